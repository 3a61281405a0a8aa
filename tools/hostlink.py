"""hostlink.py -- the host's half of the host link (docs/hostlink.md).

tools/run-qemu puts the machine's second serial port (COM2) on a unix
socket next to the NVM image, and the link's bulk window -- QEMU's
ivshmem-plain device over a file beside the image (IMAGE.window) -- in
the machine; inside, bin/linkd answers. This module is the protocol from
the host's side -- framing, checksums, the requests, the window -- for
tools/fe, the tests and any Python program; docs/hostlink.md is the same
protocol for programs in any language.

The protocol is defined once, in C: include/ferrite/hostlink.h (the frame
types, the header and every payload's layout, the version and the
limits), with the error codes of include/ferrite/errors.h and the object
types and exit reasons of include/ferrite/syscall.h. This module reads
those headers when it is imported (CHeader) and holds no copy of a
number; tests/system/test_hostlink_header.py sets what it read against
what the C compiler makes of the same headers.

A frame is COBS(header + payload + CRC-32), then one 0x00 byte. The header
is version (1), type, two zero bytes, the tag (u32) and the payload length
(u32), little-endian; the CRC-32 (zlib's) covers header and payload.
"""

import ast
import collections
import mmap
import os
import re
import select
import socket
import struct
import zlib
from pathlib import Path

INCLUDE = Path(__file__).resolve().parent.parent / "include" / "ferrite"


class CHeader:
    """The constants and packed structures of a C header, as far as a
    protocol header needs: object-like #defines and enumerators whose
    values are integer expressions (of numbers, other names and
    sizeof(struct X)), and packed structures of fixed-width integers and
    byte arrays, one field a line."""

    _COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
    _DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.+?)[ \t]*$", re.M)
    _ENUM = re.compile(r"\benum\s+\w*\s*\{(.*?)\}", re.S)
    _STRUCT = re.compile(r"\bstruct\s+(\w+)\s*\{([^{}]*)\}\s*__attribute__\s*"
                         r"\(\(\s*(?:__)?packed(?:__)?\s*\)\)\s*;", re.S)
    _FIELD = re.compile(r"^(u?int(?:8|16|32|64)_t)\s+(\w+)\s*(?:\[(\w+)\])?$")
    _SIZEOF = re.compile(r"\bsizeof\s*\(\s*struct\s+(\w+)\s*\)")
    _INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")
    FORMATS = {"uint8_t": "B", "uint16_t": "H", "uint32_t": "I", "uint64_t": "Q",
               "int8_t": "b", "int16_t": "h", "int32_t": "i", "int64_t": "q"}

    def __init__(self, path):
        """Read `path`: its #defines and enumerators as expressions, its
        packed structures as (name, format) fields."""
        self.path = Path(path)
        text = self._COMMENT.sub(" ", self.path.read_text())
        self.expressions, self._values = {}, {}
        for m in self._DEFINE.finditer(text):       # (a guard, with no value, is not one)
            self.expressions[m.group(1)] = m.group(2)
        for m in self._ENUM.finditer(text):
            previous = None
            for item in filter(None, (i.strip() for i in m.group(1).split(","))):
                name, _, value = (part.strip() for part in item.partition("="))
                self.expressions[name] = value or (f"({previous}) + 1" if previous else "0")
                previous = name
        self.structs = {}
        for m in self._STRUCT.finditer(text):
            fields = []
            for line in filter(None, (f.strip() for f in m.group(2).split(";"))):
                f = self._FIELD.match(line)
                if not f or (f.group(3) and f.group(1) != "uint8_t"):
                    raise ValueError(f"{self.path}: struct {m.group(1)}: cannot read '{line}'")
                fmt = f"{self.value(f.group(3))}s" if f.group(3) else self.FORMATS[f.group(1)]
                fields.append((f.group(2), fmt))
            self.structs[m.group(1)] = fields

    def value(self, name_or_number):
        """The integer a name (or a number) stands for."""
        if re.fullmatch(r"\d+", name_or_number):
            return int(name_or_number)
        if name_or_number not in self._values:
            if name_or_number not in self.expressions:
                raise KeyError(f"{self.path} defines no {name_or_number}")
            self._values[name_or_number] = self._evaluate(self.expressions[name_or_number])
        return self._values[name_or_number]

    def names(self, prefix):
        """{name: value} of every constant whose name starts with prefix."""
        return {n: self.value(n) for n in self.expressions if n.startswith(prefix)}

    def layout(self, name):
        """struct `name` as a struct.Struct (little-endian, packed)."""
        return struct.Struct("<" + "".join(fmt for _, fmt in self.structs[name]))

    def fields(self, name):
        """[(field, offset, size)] of struct `name`."""
        out, at = [], 0
        for field, fmt in self.structs[name]:
            size = struct.calcsize("<" + fmt)
            out.append((field, at, size))
            at += size
        return out

    _OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                  ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a // b,
                  ast.Mod: lambda a, b: a % b, ast.LShift: lambda a, b: a << b,
                  ast.RShift: lambda a, b: a >> b, ast.BitOr: lambda a, b: a | b,
                  ast.BitAnd: lambda a, b: a & b, ast.USub: lambda a: -a,
                  ast.Invert: lambda a: ~a}

    @staticmethod
    def _c_int(literal):
        """A C integer literal's value (suffixes dropped): 0x hex, 0 octal, decimal."""
        if literal[:2] in ("0x", "0X"):
            return int(literal, 16)
        return int(literal, 8 if literal.startswith("0") else 10)

    def _evaluate(self, expression):
        """An integer C expression: numbers (C suffixes dropped), names,
        sizeof(struct X), the arithmetic operators and parentheses."""
        text = self._SIZEOF.sub(lambda m: str(self.layout(m.group(1)).size), expression)
        text = self._INT.sub(lambda m: str(self._c_int(m.group(1))), text)

        def walk(node):
            if isinstance(node, ast.Expression):
                return walk(node.body)
            if isinstance(node, ast.Constant) and isinstance(node.value, int):
                return node.value
            if isinstance(node, ast.Name):
                return self.value(node.id)
            if isinstance(node, ast.BinOp) and type(node.op) in self._OPERATORS:
                return self._OPERATORS[type(node.op)](walk(node.left), walk(node.right))
            if isinstance(node, ast.UnaryOp) and type(node.op) in self._OPERATORS:
                return self._OPERATORS[type(node.op)](walk(node.operand))
            raise ValueError(f"{self.path}: cannot evaluate '{expression}'")
        try:
            return walk(ast.parse(text.strip(), mode="eval"))
        except SyntaxError:
            raise ValueError(f"{self.path}: cannot evaluate '{expression}'") from None


PROTOCOL = CHeader(INCLUDE / "hostlink.h")
ERROR_CODES = CHeader(INCLUDE / "errors.h")
ABI = CHeader(INCLUDE / "syscall.h")

VERSION = PROTOCOL.value("HOSTLINK_VERSION")
DATA_MAX = PROTOCOL.value("HOSTLINK_DATA_MAX")          # bytes in one DATA frame
PAYLOAD_MAX = PROTOCOL.value("HOSTLINK_PAYLOAD_MAX")
FRAME_MAX = PROTOCOL.value("HOSTLINK_FRAME_MAX")
CRC = struct.Struct("<I")                                 # HOSTLINK_CRC_SIZE bytes

# The frame types and the put kinds: the header's names less HOSTLINK_.
REQ_HELLO, REQ_LS, REQ_GET, REQ_PUT, REQ_DATA, REQ_RUN = (
    PROTOCOL.value("HOSTLINK_REQ_" + n) for n in ("HELLO", "LS", "GET", "PUT", "DATA", "RUN"))
REQ_PUT_SPAN, REQ_GET_WINDOW, REQ_GET_SPAN = (
    PROTOCOL.value("HOSTLINK_REQ_" + n) for n in ("PUT_SPAN", "GET_WINDOW", "GET_SPAN"))
ANS_HELLO, ANS_NAMES, ANS_INFO, ANS_READY, ANS_DATA, ANS_OUT, ANS_EXIT, ANS_END, ANS_ERR = (
    PROTOCOL.value("HOSTLINK_ANS_" + n) for n in
    ("HELLO", "NAMES", "INFO", "READY", "DATA", "OUT", "EXIT", "END", "ERR"))
ANS_SPAN = PROTOCOL.value("HOSTLINK_ANS_SPAN")
KIND_BLOB, KIND_CODE = (PROTOCOL.value("HOSTLINK_KIND_" + n) for n in ("BLOB", "CODE"))

# The payloads' fixed parts (struct hostlink_*), as struct.Structs.
HEADER = PROTOCOL.layout("hostlink_header")
HELLO_ANSWER = PROTOCOL.layout("hostlink_hello_answer")
PUT = PROTOCOL.layout("hostlink_put")
DATA = PROTOCOL.layout("hostlink_data")
NAME_ENTRY = PROTOCOL.layout("hostlink_name_entry")
INFO = PROTOCOL.layout("hostlink_info")
EXIT = PROTOCOL.layout("hostlink_exit")
END_GET = PROTOCOL.layout("hostlink_end_get")
SPAN = PROTOCOL.layout("hostlink_span")
SPAN_ANSWER = PROTOCOL.layout("hostlink_span_answer")
ERROR = PROTOCOL.layout("hostlink_error")

# The object types' names (FE_TYPE_BLOB: "blob"), the words `run` ends
# with, and the error codes' names, as ERR frames carry them.
TYPE_NAMES = {v: n[len("FE_TYPE_"):].lower() for n, v in ABI.names("FE_TYPE_").items()}
EXIT_REASONS = {ABI.value("FE_EXIT_NORMAL"): "exited", ABI.value("FE_EXIT_KILLED"): "killed",
                ABI.value("FE_EXIT_FAULT"): "fault", ABI.value("FE_EXIT_INTERRUPT"): "interrupted"}
ERRORS = {v: n for n, v in ERROR_CODES.names("ERR_").items() if n != "ERR__COUNT"}
ERR_BUSY = ERROR_CODES.value("ERR_BUSY")


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


def window_path(image):
    """The file the machine running on `image` shares as the link's bulk
    window (QEMU's ivshmem-plain device maps it): IMAGE.window."""
    return Path(os.path.abspath(image) + ".window")


# Transfers of more than this go through the window when there is one;
# smaller ones in DATA frames (a frame or two cost less than the spans'
# round trip).
WINDOW_MIN = 2 * DATA_MAX
# Spans at a time: the window is cut in this many parts, one span in
# flight in each, so that the host fills (or empties) one while the
# machine moves another.
WINDOW_PARTS = 2


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
    return cobs_encode(raw + CRC.pack(zlib.crc32(raw))) + b"\0"


class LinkError(Exception):
    """The machine answered with an error, or the link failed."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class Link:
    """A session with linkd on the machine whose link listens at `path`;
    bulk data through the window file `window` (window_path) when the
    machine has a window and the file is the same size, else in DATA
    frames."""

    def __init__(self, path, timeout=60.0, window=None):
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
        self.window = None
        try:
            self.hello()
            if window is not None and self.window_size:
                self.window = self._map_window(window)
        except BaseException:
            self.sock.close()
            raise

    def _map_window(self, path):
        """The window file mapped, if it is the machine's size; else None.
        (QEMU serves one connection at a time, so only the host whose
        HELLO was answered uses the window.)"""
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size != self.window_size:
                return None
            return mmap.mmap(fd, self.window_size, mmap.MAP_SHARED,
                             mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)

    def close(self):
        if self.window is not None:
            self.window.close()
            self.window = None
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
        if len(raw) < HEADER.size + CRC.size:
            raise LinkError("a short frame from the machine")
        version, ftype, _, tag, length = HEADER.unpack_from(raw)
        (crc,) = CRC.unpack_from(raw, len(raw) - CRC.size)
        if zlib.crc32(raw[:-CRC.size]) != crc:
            raise LinkError("a frame from the machine failed its CRC-32")
        if version != VERSION or length != len(raw) - HEADER.size - CRC.size:
            raise LinkError("a frame from the machine of another version or "
                            "length")
        return ftype, tag, raw[HEADER.size:-CRC.size]

    def answer(self, tag, wait=True):
        """The next frame for `tag` (others, from an earlier session, are
        skipped); an ERR raises LinkError."""
        while True:
            got = self.receive(wait)
            if got is None:
                return None
            ftype, ftag, payload = got
            if ftype == ANS_ERR and ftag in (tag, 0):
                code = ERROR.unpack_from(payload)[0] if len(payload) >= ERROR.size else 0
                name = ERRORS.get(code, f"error {code}")
                text = payload[ERROR.size:].decode(errors="replace")
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
        nonce = os.urandom(PROTOCOL.fields("hostlink_hello")[0][2])
        tag = self.next_tag()
        self.sock.sendall(b"\0")
        self.send(REQ_HELLO, tag, nonce)
        while True:
            # What an earlier session left (its answers, an ERR for the
            # half frame the 0x00 ended) is skipped.
            ftype, ftag, payload = self.receive()
            if ftag != tag:
                continue
            if ftype == ANS_HELLO and payload[:len(nonce)] == nonce:
                # (a service older than the window answers without its size)
                _, version, self.data_max, self.window_size = HELLO_ANSWER.unpack_from(
                    payload.ljust(HELLO_ANSWER.size, b"\0"))
                if version != VERSION or not 0 < self.data_max <= DATA_MAX:
                    raise LinkError(f"the machine speaks version {version}, "
                                    f"{self.data_max}-byte data; this is {VERSION}")
                return version
            if ftype == ANS_ERR:
                raise LinkError("the machine refused HELLO: "
                                + payload[ERROR.size:].decode(errors="replace"))

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
                otype, size, oid, length = NAME_ENTRY.unpack_from(payload, at)
                at += NAME_ENTRY.size
                name = payload[at:at + length].decode(errors="replace")
                names.append((name, TYPE_NAMES.get(otype, str(otype)), size, oid))
                at += length

    def get(self, name, out, progress=None):
        """Write the committed bytes of `name` to the file object `out`;
        retried while the object changes under the transfer -> size."""
        for attempt in range(5):
            try:
                if self.window is not None:
                    return self._get_window(name, out, progress)
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
        size = INFO.unpack_from(info)[0]
        crc, got = 0, 0
        while True:
            ftype, payload = self.expect(tag, ANS_DATA, ANS_END)
            if ftype == ANS_END:
                return self._end_get(name, payload, size, got, crc)
            (offset,) = DATA.unpack_from(payload)
            if offset != got:
                raise LinkError(f"get {name}: bytes at {offset}, expected {got}")
            data = payload[DATA.size:]
            out.write(data)
            crc = zlib.crc32(data, crc)
            got += len(data)
            if progress:
                progress(got, size)

    @staticmethod
    def _end_get(name, payload, size, got, crc):
        """Check a get's END against what came -> size."""
        end_size, end_crc = END_GET.unpack_from(payload)
        if end_size != size or got != size or end_crc != crc:
            raise LinkError(f"get {name}: {got} bytes with CRC-32 "
                            f"{crc:08x}; the machine sent {end_size} "
                            f"with {end_crc:08x}")
        return size

    def _spans(self, size):
        """The spans of a transfer of `size` bytes: (offset, at, length),
        taking the window's parts in turn."""
        part = self.window_size // WINDOW_PARTS
        for i, offset in enumerate(range(0, size, part)):
            yield offset, (i % WINDOW_PARTS) * part, min(part, size - offset)

    def _span_answer(self, tag, what, expected):
        """The next SPAN for `tag`; LinkError unless it is the span
        expected (offset, at, length) -> its CRC-32 of the transfer so far."""
        _, payload = self.expect(tag, ANS_SPAN)
        offset, at, length, crc = SPAN_ANSWER.unpack_from(payload)
        if (offset, at, length) != expected:
            raise LinkError(f"{what}: the machine answered the span "
                            f"{(offset, at, length)}, not {expected}")
        return crc

    def _get_window(self, name, out, progress):
        """A get through the window: INFO, then a span asked for in each
        part of the window; a part is read as soon as its SPAN says the
        bytes are there, then asked for again."""
        tag = self.next_tag()
        self.send(REQ_GET_WINDOW, tag, name.encode())
        _, info = self.expect(tag, ANS_INFO)
        size = INFO.unpack_from(info)[0]
        spans, asked = self._spans(size), collections.deque()
        crc, got = 0, 0
        while True:
            while len(asked) < WINDOW_PARTS:
                span = next(spans, None)
                if span is None:
                    break
                self.send(REQ_GET_SPAN, tag, SPAN.pack(*span))
                asked.append(span)
            if not asked:
                break
            span = asked.popleft()
            machine_crc = self._span_answer(tag, f"get {name}", span)
            data = self.window[span[1]:span[1] + span[2]]
            crc = zlib.crc32(data, crc)
            if crc != machine_crc:
                raise LinkError(f"get {name}: the window's bytes {span[0]} to "
                                f"{span[0] + span[2]} make CRC-32 {crc:08x}; the "
                                f"machine sent {machine_crc:08x}")
            out.write(data)
            got += len(data)
            if progress:
                progress(got, size)
        _, payload = self.expect(tag, ANS_END)
        return self._end_get(name, payload, size, got, crc)

    def put(self, data, name, kind=KIND_BLOB, progress=None):
        """Store `data` as `name` (replacing what it named), durably: this
        returns once the machine committed it."""
        tag = self.next_tag()
        self.send(REQ_PUT, tag, PUT.pack(len(data), zlib.crc32(data), kind) + name.encode())
        self.expect(tag, ANS_READY)
        if self.window is not None and len(data) > WINDOW_MIN:
            self._put_spans(tag, memoryview(data), name, progress)
        else:
            self._put_frames(tag, data, name, progress)
        self.expect(tag, ANS_END)

    def _put_frames(self, tag, data, name, progress):
        """A put's bytes in DATA frames. Before the last one an answer can
        only be an ERR (raised here, so the rest is not sent); after it the
        END may come at once, and put's expect takes it."""
        for offset in range(0, len(data), self.data_max):
            self.send(REQ_DATA, tag, DATA.pack(offset) + data[offset:offset + self.data_max])
            last = offset + self.data_max >= len(data)
            early = None if last else self.answer(tag, wait=False)  # an ERR raises here
            if early is not None:
                raise LinkError(f"put {name}: the machine answered {early[0]:#x} "
                                "before the last byte")
            if progress:
                progress(min(offset + self.data_max, len(data)), len(data))

    def _put_spans(self, tag, data, name, progress):
        """A put's bytes through the window: each part filled and its
        PUT_SPAN sent; a part is filled again once its SPAN says the bytes
        are stored (with the CRC-32, read back, of all so far)."""
        sent, crc = collections.deque(), 0
        for span in self._spans(len(data)):
            if len(sent) == WINDOW_PARTS:
                self._put_span_done(tag, name, sent.popleft(), len(data), progress)
            offset, at, length = span
            self.window[at:at + length] = data[offset:offset + length]
            crc = zlib.crc32(data[offset:offset + length], crc)
            self.send(REQ_PUT_SPAN, tag, SPAN.pack(*span))
            sent.append((span, crc))
        while sent:
            self._put_span_done(tag, name, sent.popleft(), len(data), progress)

    def _put_span_done(self, tag, name, sent, size, progress):
        """Wait for the SPAN of a put's span; check its CRC-32."""
        span, crc = sent
        stored = self._span_answer(tag, f"put {name}", span)
        if stored != crc:
            raise LinkError(f"put {name}: the machine stored bytes up to "
                            f"{span[0] + span[2]} making CRC-32 {stored:08x}, "
                            f"not {crc:08x}")
        if progress:
            progress(span[0] + span[2], size)

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
            status, reason = EXIT.unpack_from(payload)
            return (status, EXIT_REASONS.get(reason, str(reason)),
                    payload[EXIT.size:].decode(errors="replace"))
