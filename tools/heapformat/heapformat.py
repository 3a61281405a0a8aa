"""heapformat.py -- the heap's on-NVM format, for the host's Python readers.

The format has one home, the C headers: objstore/include/objstore/format.h
(the heap) and kernel/kformat/kformat.h (the kernel's objects in it). The
Python that reads heap images -- the tests' image reader
(tests/system/heapimage.py) and the gdb helpers' constants (tools/gdb/) --
takes every offset, size and number from what the C compiler made of
those headers: describe.c prints it, `make` writes it to
build/heapformat/layout.json, and this module serves it. Nothing here is
a copy that could drift; a header changed without a `make` is the only
way to read stale numbers (the file is rebuilt whenever a header it
depends on changes).

  import heapformat as F
  F.OS_PAGE_SIZE, F.OS_LOG_UNDO, F.KROOT_MAGIC   the constants, by their C names
  SB = F.layout("os_superblock")                 a structure's layout:
  SB.size, SB.offset("committed_epoch")            its size, a field's offset
  SB.get(img, 0, "heap_size")                      read a field from bytes
  SB.put(img, 0, "flags", 1)                       write one into a bytearray
  F.layout("kthread").offset("regs.rip")         nested structures by dotted path
  F.type_names()                                 {1: "blob", ...}, objstore's own
  F.crc32c(data)                                 the format's checksum

Fields are little-endian integers (struct format B H I Q, lower case when
signed), or arrays of them (`index` picks an element); an array of bytes
reads whole with `bytes_of`.

A gdb session has the kernel's debug info and reads structure layouts
from there (gdb.lookup_type); it takes only the preprocessor constants,
which debug info does not carry, from here.
"""

import json
import os
import struct

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYOUT_FILE = os.path.join(REPO, "build", "heapformat", "layout.json")

_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}
_loaded = {}


class FormatUnknown(Exception):
    """The description is missing, or has no such name."""


def _description():
    """The JSON document describe.c wrote, read once."""
    if "doc" not in _loaded:
        try:
            with open(LAYOUT_FILE) as f:
                _loaded["doc"] = json.load(f)
        except OSError as e:
            raise FormatUnknown(f"{LAYOUT_FILE}: {e.strerror}: `make` writes it "
                                f"(tools/heapformat/describe.c)") from None
    return _loaded["doc"]


def __getattr__(name):
    """A constant of the format by its C name: F.OS_PAGE_SIZE."""
    if name.startswith("__"):
        raise AttributeError(name)
    constants = _description()["constants"]
    if name not in constants:
        raise AttributeError(f"the heap format has no constant {name} "
                             f"(tools/heapformat/describe.c lists them)")
    value = constants[name]
    return value.encode() if isinstance(value, str) else value


def type_names():
    """{type number: name} of the object types, as objstore names them."""
    return {int(k): v for k, v in _description()["type_names"].items()}


class Field:
    """One field of a structure, as describe.c found it."""

    def __init__(self, d):
        """From its description: name, offset, size, count, signed, struct."""
        self.name = d["name"]
        self.offset = d["offset"]
        self.size = d["size"]
        self.count = d["count"]
        self.signed = d["signed"]
        self.struct = d.get("struct")

    @property
    def element(self):
        """The bytes of one element (the whole field unless an array)."""
        return self.size // self.count if self.count else 0

    @property
    def format(self):
        """The struct module's format of one element: 'Q', 'i'..."""
        if self.struct or self.element not in _FORMATS:
            raise FormatUnknown(f"field {self.name} is not an integer")
        f = _FORMATS[self.element]
        return f.lower() if self.signed else f


class Layout:
    """A persistent structure's layout: its size and its fields' places."""

    def __init__(self, name):
        """The layout of `struct name` (os_superblock, kproc...)."""
        structs = _description()["structs"]
        if name not in structs:
            raise FormatUnknown(f"the heap format has no structure {name}")
        self.name = name
        self.size = structs[name]["size"]
        self.fields = [Field(f) for f in structs[name]["fields"]]
        self._by_name = {f.name: f for f in self.fields}

    def field(self, path):
        """(offset from the structure's start, Field) of a field, dotted
        through nested structures: 'exit.reason', 'regs.rip'."""
        head, _, rest = path.partition(".")
        if head not in self._by_name:
            raise FormatUnknown(f"struct {self.name} has no field {head}")
        f = self._by_name[head]
        if not rest:
            return f.offset, f
        if not f.struct:
            raise FormatUnknown(f"{self.name}.{head} is not a structure")
        off, inner = layout(f.struct).field(rest)
        return f.offset + off, inner

    def offset(self, path):
        """Where a field starts."""
        return self.field(path)[0]

    def __getitem__(self, path):
        """(offset, struct format) of an integer field: what a forgery needs."""
        off, f = self.field(path)
        return off, f.format

    def at(self, path, index=0):
        """(offset, format) of element `index` of an integer field or array."""
        off, f = self.field(path)
        if index and not 0 <= index < f.count:
            raise FormatUnknown(f"{self.name}.{path} has {f.count} elements, not {index + 1}")
        return off + index * f.element, f.format

    def get(self, buf, base, path, index=0):
        """The integer at field `path` (element `index`) of the structure at `base`."""
        off, fmt = self.at(path, index)
        return struct.unpack_from("<" + fmt, buf, base + off)[0]

    def put(self, buf, base, path, value, index=0):
        """Store an integer into field `path` (element `index`) of a bytearray."""
        off, fmt = self.at(path, index)
        struct.pack_into("<" + fmt, buf, base + off, value)

    def bytes_of(self, buf, base, path):
        """The bytes of a field (a byte array such as a name or a magic)."""
        off, f = self.field(path)
        return bytes(buf[base + off:base + off + f.size])

    def unpack(self, buf, base):
        """{field: value} of every integer field (arrays and structures left out)."""
        return {f.name: struct.unpack_from("<" + f.format, buf, base + f.offset)[0]
                for f in self.fields
                if f.count == 1 and not f.struct and f.element in _FORMATS}

    def crc_end(self):
        """The bytes a header's `crc` covers: those before it."""
        return self.offset("crc")


def layout(name):
    """The Layout of `struct name`, made once."""
    key = "layout:" + name
    if key not in _loaded:
        _loaded[key] = Layout(name)
    return _loaded[key]


def _crc_table():
    """The byte-at-a-time table of the reflected polynomial 0x82F63B78."""
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
        table.append(c)
    return table


_CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), as objstore/crc32c.c computes it: every
    header's checksum (format.h)."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
