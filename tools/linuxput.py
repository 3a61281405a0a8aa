"""linuxput.py -- a host's Linux binary into Ferrite's catalogue, with
everything it needs to run there: `tools/fe put-linux` (docs/linux.md,
"Dynamic binaries").

A dynamic binary names its loader (PT_INTERP, e.g.
/lib64/ld-linux-x86-64.so.2), and the loader opens the libraries the
binary needs by their paths. Ferrite's catalogue is the programs' file
system, a path /a/b being the name a/b, so the binary runs once each of
them is in the catalogue at its path:

    bin/NAME                    the binary, a code object (osh runs bin/NAME)
    the PT_INTERP path          the loader, a code object (the kernel maps it)
    each path `ldd` names       a library, a blob (the loader maps it)
    each file below a --with DIR a blob, at its path (a program's data:
                                python3's /usr/lib/python3.11)

What `ldd BINARY` prints is the host loader's own search, so every
library lands where the same loader looks for it in Ferrite (without
/etc/ld.so.cache it searches its default directories, Debian's
/lib/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu among them).

A name that already holds the same bytes, as the same kind of object, is
left as it is (and said so), so a second put-linux of another binary puts
only what the first did not. The plan is made and checked before anything
is put: a library ldd cannot find, a file that cannot be read or a name
too long for the catalogue stops it with one line, nothing put.

The same plan goes two ways: over the host link to a running machine
(LinkStore, tools/hostlink.py), or into a powered-off image with objtool's
imports (ImageStore, `fe put-linux --offline`).
"""

import json
import os
import re
import struct
import subprocess
from pathlib import Path

from numtext import size_text  # tools/numtext.py

OBJTOOL = Path(__file__).resolve().parent.parent / "build" / "objtool"
NAME_MAX = 255                         # FE_NAME_MAX: a catalogue name's bytes
PT_INTERP = 3

# ldd's lines: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)",
# "/lib64/ld-linux-x86-64.so.2 (0x...)", "linux-vdso.so.1 (0x...)" (the
# kernel's, no file), "libfoo.so.1 => not found"
LDD_FOUND = re.compile(r"^\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)$")
LDD_PATH = re.compile(r"^\s*(/\S+) \(0x[0-9a-f]+\)$")
LDD_MISSING = re.compile(r"^\s*(\S+) => not found$")


class PutError(Exception):
    """What stops a put-linux: one line."""


def interpreter(data):
    """The PT_INTERP path of ELF image `data`, None for a static binary;
    PutError if `data` is no 64-bit little-endian ELF file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise PutError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        at = phoff + i * phentsize
        if at + 56 > len(data):
            raise PutError("its program headers pass the end of the file")
        ptype, = struct.unpack_from("<I", data, at)
        offset, = struct.unpack_from("<Q", data, at + 8)
        size, = struct.unpack_from("<Q", data, at + 32)
        if ptype == PT_INTERP:
            return data[offset:offset + size].split(b"\0")[0].decode()
    return None


def libraries(binary):
    """The paths of the libraries `ldd BINARY` names (not the loader)."""
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if r.returncode != 0:
        raise PutError(f"ldd {binary}: {(r.stderr or r.stdout).strip()}")
    paths = []
    for line in r.stdout.splitlines():
        missing, found = LDD_MISSING.match(line), LDD_FOUND.match(line)
        if missing:
            raise PutError(f"{binary} needs {missing.group(1)}, which ldd does not find")
        if found:
            paths.append(found.group(2))
        elif not LDD_PATH.match(line) and "=>" in line:
            raise PutError(f"ldd {binary}: a line this does not read: {line.strip()}")
    return paths


def catalogue_name(path):
    """The catalogue name of absolute host path `path`: it less its '/'."""
    name = os.path.normpath(path).lstrip("/")
    if not name or len(name.encode()) > NAME_MAX:
        raise PutError(f"{path}: not a name the catalogue holds (1 to {NAME_MAX} bytes)")
    return name


def files_below(directory):
    """Every regular file below `directory` (symbolic links to files
    followed, to directories not), by absolute path, in order."""
    top = os.path.abspath(directory)
    if not os.path.isdir(top):
        raise PutError(f"--with {directory}: not a directory")
    found = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files)
                  if os.path.isfile(os.path.join(root, f))]
    return found


def plan(binary, name=None, with_dirs=()):
    """[(catalogue name, host path, kind 'code' or 'blob')] of what
    put-linux puts for `binary`, checked: every file readable, every
    name one the catalogue holds."""
    try:
        data = Path(binary).read_bytes()
    except OSError as e:
        raise PutError(f"{binary}: {e.strerror}")
    name = name or os.path.basename(binary)
    if "/" in name or len(("bin/" + name).encode()) > NAME_MAX:
        raise PutError(f"{name}: not a program's name (no '/', at most {NAME_MAX - 4} bytes)")
    entries = [("bin/" + name, binary, "code")]
    try:
        loader = interpreter(data)
    except PutError as e:
        raise PutError(f"{binary}: {e}")
    if loader:
        entries.append((catalogue_name(loader), loader, "code"))
        entries += [(catalogue_name(p), p, "blob") for p in libraries(binary)]
    for directory in with_dirs:
        entries += [(catalogue_name(p), p, "blob") for p in files_below(directory)]
    seen, out = set(), []
    for entry in entries:
        if entry[0] not in seen:
            seen.add(entry[0])
            out.append(entry)
    for _, path, _ in out:
        if not os.access(path, os.R_OK):
            raise PutError(f"{path}: cannot be read")
    return out


class LinkStore:
    """A running machine's catalogue, over the host link."""

    def __init__(self, link, kinds):
        self.link, self.kinds = link, kinds

    def held(self):
        """{name: (type name, size)} of the catalogue."""
        return {n: (type_name, size) for n, type_name, size, _ in self.link.ls("")}

    def read(self, name):
        """The committed bytes of `name`."""
        chunks = _Collect()
        self.link.get(name, chunks)
        return chunks.data()

    def put(self, name, path, data, kind):
        """`name` holds `data` (host file `path`'s bytes), as a `kind`
        object, durably."""
        self.link.put(data, name, self.kinds[kind])


class _Collect:
    """A file object that keeps what is written to it."""

    def __init__(self):
        self.parts = []

    def write(self, data):
        self.parts.append(bytes(data))

    def seek(self, _):
        self.parts = []

    def truncate(self):
        self.parts = []

    def data(self):
        return b"".join(self.parts)


class ImageStore:
    """A powered-off image's catalogue, through objtool."""

    def __init__(self, image):
        self.image = str(image)
        if not OBJTOOL.exists():
            raise PutError(f"{OBJTOOL} is not built (make)")

    def objtool(self, *args, text=True):
        r = subprocess.run([str(OBJTOOL), self.image, *args], capture_output=True, text=text)
        if r.returncode != 0:
            err = r.stderr if text else r.stderr.decode(errors="replace")
            raise PutError(err.strip() or f"objtool {' '.join(args)} failed")
        return r.stdout

    def held(self):
        return {e["name"]: (e["type"], e["size"])
                for e in json.loads(self.objtool("ls", "-l", "--json"))}

    def read(self, name):
        return self.objtool("cat", name, text=False)

    def put(self, name, path, data, kind):
        del data                       # objtool imports the host file itself
        self.objtool("import", name, path, "--type", kind, "--replace")


def put_linux(store, entries, say):
    """Put each planned entry into `store` unless it holds the same bytes
    as the same kind of object already; say each step -> (put, kept)."""
    put = kept = 0
    held = store.held()
    for name, path, kind in entries:
        data = Path(path).read_bytes()
        if held.get(name) == (kind, len(data)) and store.read(name) == data:
            say(f"put-linux: {name}: already there, the same bytes")
            kept += 1
            continue
        store.put(name, path, data, kind)
        say(f"put-linux: {name} <- {path} ({kind}, {size_text(len(data))})")
        put += 1
    say(f"put-linux: {put} put, {kept} already there")
    return put, kept
