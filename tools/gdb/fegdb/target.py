"""target.py -- the machine gdb is attached to: guest memory and the kernel's debug info.

Every helper reads through here. Memory is read in one piece per
structure (`typed`), so a value never changes under a command half way;
layouts come from the kernel's DWARF (gdb.lookup_type), so a field added
or moved in a header is followed without touching the helpers. A read
that fails becomes an FeError, which a command prints as one line.
"""

import os
import struct

import gdb

# The kernel's direct map of physical memory (kernel/mm/phys.h HHDM_BASE):
# a preprocessor constant of the kernel's memory layout, not in its DWARF.
HHDM_BASE = 0xffff800000000000


class FeError(Exception):
    """Why a command cannot do its work, said to the user in one line."""


def read(addr, size):
    """`size` bytes of guest memory at virtual address addr."""
    try:
        return gdb.selected_inferior().read_memory(addr, size).tobytes()
    except gdb.MemoryError:
        raise FeError(f"cannot read {size} bytes at {addr:#x}: not mapped "
                      f"(stopped before the kernel's page tables are on?)")
    except gdb.error as e:
        raise FeError(f"cannot read guest memory: {e} (is gdb attached? "
                      f"target remote :PORT)")


def u64(addr):
    """The 64-bit little-endian integer at addr."""
    return struct.unpack("<Q", read(addr, 8))[0]


def lookup_type(name):
    """A type of the kernel's DWARF."""
    try:
        return gdb.lookup_type(name)
    except gdb.error:
        raise FeError(f"the kernel's debug info has no '{name}': load "
                      f"build/ferrite.elf (file build/ferrite.elf)")


def field_offset(type_name, field):
    """The byte offset of a field in a structure of the kernel's DWARF."""
    return lookup_type(type_name)[field].bitpos // 8


def typed(addr, type_name):
    """A value of `type_name` read at addr (one read, then no lazy access)."""
    t = lookup_type(type_name)
    return gdb.Value(read(addr, t.sizeof), t)


def typed_bytes(data, offset, type_name):
    """A value of `type_name` taken from bytes already read."""
    t = lookup_type(type_name)
    if offset + t.sizeof > len(data):
        raise FeError(f"{type_name} at {offset} runs past its {len(data)}-byte block")
    return gdb.Value(data[offset:offset + t.sizeof], t)


def value_at(addr, type_name):
    """The `type_name` in guest memory at addr, as an lvalue (its fields
    read when used, so a breakpoint condition reads them afresh)."""
    return gdb.Value(addr).cast(lookup_type(type_name).pointer()).dereference()


def symbol(expression):
    """A kernel global (or an expression of globals), as gdb evaluates it."""
    try:
        value = gdb.parse_and_eval(expression)
        value.fetch_lazy()
        return value
    except gdb.MemoryError:
        raise FeError(f"cannot read '{expression}': kernel memory is not mapped "
                      f"(stopped before the kernel's 64-bit entry?)")
    except gdb.error as e:
        raise FeError(f"cannot evaluate '{expression}': {e} (is "
                      f"build/ferrite.elf loaded and gdb attached?)")


def enum_name(type_name, number):
    """The enumerator of `type_name` with this value, or the number."""
    try:
        for field in gdb.lookup_type(type_name).fields():
            if field.enumval == number:
                return field.name
    except gdb.error:
        pass
    return str(number)


def enum_value(type_name, name):
    """The value of enumerator `name` of `type_name`."""
    for field in lookup_type(type_name).fields():
        if field.name == name:
            return field.enumval
    raise FeError(f"the kernel's debug info has no {name}")


def array_bytes(value):
    """The bytes of a char or uint8_t array value."""
    return bytes(int(value[i]) & 0xFF for i in range(value.type.range()[1] + 1))


def cstring_bytes(data):
    """The bytes of a NUL-terminated string, without the NUL."""
    return data.split(b"\0", 1)[0]


def cstring(data):
    """A NUL-terminated byte string as text."""
    return cstring_bytes(data).decode("utf-8", "replace")


def build_dir():
    """The build directory: where the kernel's ELF gdb has loaded lives."""
    name = gdb.current_progspace().filename
    if not name:
        raise FeError("no kernel symbols loaded: file build/ferrite.elf")
    return os.path.dirname(os.path.abspath(name))
