"""hostlink.py -- the host's half of the host link (docs/hostlink.md).

tools/run-qemu puts the machine's second serial port (COM2) on a unix
socket next to the NVM image; inside, bin/linkd answers. This module is
the protocol from the host's side -- framing, checksums, the requests --
for tools/fe, the tests and any Python program; docs/hostlink.md is the
same protocol for programs in any language.

A frame is COBS(header + payload + CRC-32), then one 0x00 byte. The header
is version (1), type, two zero bytes, the tag (u32) and the payload length
(u32), little-endian; the CRC-32 (zlib's) covers header and payload.
"""

import os
import select
import socket
import struct
import zlib
from pathlib import Path

VERSION = 1
DATA_MAX = 4096                       # bytes in one DATA frame
PAYLOAD_MAX = 8 + DATA_MAX
HEADER = struct.Struct("<BBHII")      # version, type, reserved, tag, length
FRAME_MAX = HEADER.size + PAYLOAD_MAX + 4

REQ_HELLO, REQ_LS, REQ_GET, REQ_PUT, REQ_DATA, REQ_RUN = 1, 2, 3, 4, 5, 6
ANS_HELLO, ANS_NAMES, ANS_INFO, ANS_READY = 0x81, 0x82, 0x83, 0x84
ANS_DATA, ANS_OUT, ANS_EXIT, ANS_END, ANS_ERR = 0x85, 0x86, 0x87, 0x8F, 0xFF

KIND_BLOB, KIND_CODE = 1, 2
TYPE_NAMES = {1: "blob", 2: "code", 3: "process", 4: "thread", 5: "aspace",
              6: "channel", 7: "catalogue", 8: "anon"}
EXIT_REASONS = {1: "exited", 2: "killed", 3: "fault", 4: "interrupted"}
# The kernel's error codes (<ferrite/errors.h>), as linkd's ERR frames carry them.
ERRORS = ["ERR_NONE", "ERR_PERM", "ERR_NOENT", "ERR_NOMEM", "ERR_FAULT",
          "ERR_BUSY", "ERR_EXIST", "ERR_INVAL", "ERR_NOSPC", "ERR_RANGE",
          "ERR_NOSYS", "ERR_BADF", "ERR_CORRUPT", "ERR_VERSION", "ERR_NOTSUP",
          "ERR_TOOBIG", "ERR_AGAIN", "ERR_IO", "ERR_NOEXEC", "ERR_PEER",
          "ERR_RESET"]
ERR_BUSY = ERRORS.index("ERR_BUSY")


def socket_path(image):
    """Where the link of the machine running on `image` listens: IMAGE.link,
    or (when that is too long for a unix socket) a name in $TMPDIR (or
    /tmp) made from the image's absolute path. (Cheap to import: the
    launcher calls it on every power-on.)"""
    image = os.path.abspath(image)
    beside = image + ".link"
    if len(beside.encode()) <= 100:
        return Path(beside)
    digest = "%08x%08x" % (zlib.crc32(image.encode()), zlib.adler32(image.encode()))
    return Path(os.environ.get("TMPDIR") or "/tmp") / f"ferrite-{digest}.link"


def cobs_encode(data):
    """COBS: the bytes of `data` with no 0x00 left."""
    out = bytearray([0])
    code_at, code = 0, 1
    for b in data:
        if b:
            out.append(b)
            code += 1
        if not b or code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """What COBS bytes stood for; ValueError if they are not COBS."""
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        i += 1
        if code == 0 or i + code - 1 > len(data):
            raise ValueError("not COBS")
        out += data[i:i + code - 1]
        i += code - 1
        if code != 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


def frame(ftype, tag, payload=b"", version=VERSION):
    """One frame on the wire, delimiter included."""
    raw = HEADER.pack(version, ftype, 0, tag, len(payload)) + payload
    return cobs_encode(raw + struct.pack("<I", zlib.crc32(raw))) + b"\0"


class LinkError(Exception):
    """The machine answered with an error, or the link failed."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class Link:
    """A session with linkd on the machine whose link listens at `path`."""

    def __init__(self, path, timeout=60.0):
        self.path = Path(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(str(self.path))
        except FileNotFoundError:
            self.sock.close()
            raise LinkError(f"no machine's link at {self.path} (is Ferrite "
                            "running on that image?)")
        except ConnectionRefusedError:
            self.sock.close()
            raise LinkError(f"nothing listens at {self.path} (the machine "
                            "that made it is gone)")
        self.timeout = timeout
        self.buffer = bytearray()
        self.tag = int.from_bytes(os.urandom(2), "little") << 16
        self.hello()

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def next_tag(self):
        self.tag = (self.tag + 1) & 0xFFFFFFFF or 1
        return self.tag

    def send(self, ftype, tag, payload=b""):
        self.sock.sendall(frame(ftype, tag, payload))

    def receive(self, wait=True):
        """The next frame from the machine: (type, tag, payload), or None
        when `wait` is false and none has arrived whole."""
        while True:
            cut = self.buffer.find(0)
            if cut >= 0:
                encoded = bytes(self.buffer[:cut])
                del self.buffer[:cut + 1]
                if not encoded:
                    continue
                return self.parse(encoded)
            if not wait and not select.select([self.sock], [], [], 0)[0]:
                return None
            ready = select.select([self.sock], [], [], self.timeout)[0]
            if not ready:
                raise LinkError(f"no answer from the machine in {self.timeout:g} s "
                                "(is bin/linkd in the image? `make install`)")
            chunk = self.sock.recv(65536)
            if not chunk:
                raise LinkError("the machine closed the link (powered off, "
                                "or cut)")
            self.buffer += chunk

    @staticmethod
    def parse(encoded):
        try:
            raw = cobs_decode(encoded)
        except ValueError:
            raise LinkError("a garbled frame from the machine")
        if len(raw) < HEADER.size + 4:
            raise LinkError("a short frame from the machine")
        version, ftype, _, tag, length = HEADER.unpack_from(raw)
        (crc,) = struct.unpack_from("<I", raw, len(raw) - 4)
        if zlib.crc32(raw[:-4]) != crc:
            raise LinkError("a frame from the machine failed its CRC-32")
        if version != VERSION or length != len(raw) - HEADER.size - 4:
            raise LinkError("a frame from the machine of another version or "
                            "length")
        return ftype, tag, raw[HEADER.size:-4]

    def answer(self, tag, wait=True):
        """The next frame for `tag` (others, from an earlier session, are
        skipped); an ERR raises LinkError."""
        while True:
            got = self.receive(wait)
            if got is None:
                return None
            ftype, ftag, payload = got
            if ftype == ANS_ERR and ftag in (tag, 0):
                code = struct.unpack_from("<I", payload)[0] if len(payload) >= 4 else 0
                name = ERRORS[code] if code < len(ERRORS) else f"error {code}"
                text = payload[4:].decode(errors="replace")
                raise LinkError(f"{text} ({name})", code)
            if ftag == tag:
                return ftype, payload

    def expect(self, tag, *types):
        ftype, payload = self.answer(tag)
        if ftype not in types:
            raise LinkError(f"the machine answered with frame type {ftype:#x}")
        return ftype, payload

    def hello(self):
        """Start over: a lone 0x00 ends whatever an earlier host left half
        sent, then HELLO with a nonce the answer must carry."""
        nonce = os.urandom(8)
        tag = self.next_tag()
        self.sock.sendall(b"\0")
        self.send(REQ_HELLO, tag, nonce)
        while True:
            # What an earlier session left (its answers, an ERR for the
            # half frame the 0x00 ended) is skipped.
            ftype, ftag, payload = self.receive()
            if ftag != tag:
                continue
            if ftype == ANS_HELLO and payload[:8] == nonce:
                version, self.data_max = struct.unpack_from("<II", payload, 8)
                if version != VERSION or not 0 < self.data_max <= DATA_MAX:
                    raise LinkError(f"the machine speaks version {version}, "
                                    f"{self.data_max}-byte data; this is {VERSION}")
                return version
            if ftype == ANS_ERR:
                raise LinkError("the machine refused HELLO: "
                                + payload[4:].decode(errors="replace"))

    def ls(self, prefix=""):
        """[(name, type name, size, id)] of the names starting with prefix."""
        tag = self.next_tag()
        self.send(REQ_LS, tag, prefix.encode())
        names = []
        while True:
            ftype, payload = self.expect(tag, ANS_NAMES, ANS_END)
            if ftype == ANS_END:
                return names
            at = 0
            while at < len(payload):
                otype, size, oid, length = struct.unpack_from("<BQQB", payload, at)
                name = payload[at + 18:at + 18 + length].decode(errors="replace")
                names.append((name, TYPE_NAMES.get(otype, str(otype)), size, oid))
                at += 18 + length

    def get(self, name, out, progress=None):
        """Write the committed bytes of `name` to the file object `out`;
        retried while the object changes under the transfer -> size."""
        for attempt in range(5):
            try:
                return self._get_once(name, out, progress)
            except LinkError as e:
                if e.code != ERR_BUSY or attempt == 4:
                    raise
                out.seek(0)
                out.truncate()

    def _get_once(self, name, out, progress):
        tag = self.next_tag()
        self.send(REQ_GET, tag, name.encode())
        _, info = self.expect(tag, ANS_INFO)
        size = struct.unpack_from("<Q", info)[0]
        crc, got = 0, 0
        while True:
            ftype, payload = self.expect(tag, ANS_DATA, ANS_END)
            if ftype == ANS_END:
                end_size, end_crc = struct.unpack_from("<QI", payload)
                if end_size != size or got != size or end_crc != crc:
                    raise LinkError(f"get {name}: {got} bytes with CRC-32 "
                                    f"{crc:08x}; the machine sent {end_size} "
                                    f"with {end_crc:08x}")
                return size
            (offset,) = struct.unpack_from("<Q", payload)
            if offset != got:
                raise LinkError(f"get {name}: bytes at {offset}, expected {got}")
            data = payload[8:]
            out.write(data)
            crc = zlib.crc32(data, crc)
            got += len(data)
            if progress:
                progress(got, size)

    def put(self, data, name, kind=KIND_BLOB, progress=None):
        """Store `data` as `name` (replacing what it named), durably: this
        returns once the machine committed it."""
        tag = self.next_tag()
        self.send(REQ_PUT, tag, struct.pack("<QIB", len(data), zlib.crc32(data), kind)
                  + name.encode())
        self.expect(tag, ANS_READY)
        for offset in range(0, len(data), self.data_max):
            self.send(REQ_DATA, tag, struct.pack("<Q", offset)
                      + data[offset:offset + self.data_max])
            early = self.answer(tag, wait=False)  # an ERR raises here
            if early is not None:
                raise LinkError(f"put {name}: the machine answered {early[0]:#x} "
                                "before the last byte")
            if progress:
                progress(min(offset + self.data_max, len(data)), len(data))
        self.expect(tag, ANS_END)

    def run(self, command, out):
        """Run an osh command line; its output to the binary file `out`
        -> (status, reason name, detail)."""
        tag = self.next_tag()
        self.send(REQ_RUN, tag, command.encode())
        while True:
            ftype, payload = self.expect(tag, ANS_OUT, ANS_EXIT)
            if ftype == ANS_OUT:
                out.write(payload)
                out.flush()
                continue
            status, reason = struct.unpack_from("<qI", payload)
            return (status, EXIT_REASONS.get(reason, str(reason)),
                    payload[12:].decode(errors="replace"))
