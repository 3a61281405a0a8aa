"""objects.py -- one object as the kernel sees it: fe-obj and $fe_obj(ID).

An object's header (format.h struct os_obj_header, its checksum
verified), the names bound to it, and its bytes: a kernel object (a
small object of a kernel type, or the kernel root, the console or the
clock among the OS_TYPE_KERNEL ones) shown field by field as its
structure of kformat.h, read with the kernel's debug info; a paged one
by its page count and first bytes.
"""

import gdb

import heapformat as F

from .catalogue import names_of, resolve
from .commands import FeCommand, FeFunction
from .heap import Heap, placement
from .processes import Kernel
from .target import (FeError, array_bytes, cstring_bytes, enum_name, lookup_type, read,
                     value_at)
from .text import escaped, int_text

# Fields whose integers are values of an enum the kernel's DWARF knows.
ENUM_FIELDS = {
    ("kproc", "state"): "enum kproc_state",
    ("kthread", "state"): "enum kthread_state",
    ("kthread", "wait"): "enum kwait",
    ("kthread", "blocked_call"): "enum fe_syscall",
    ("fe_exit_info", "reason"): "enum fe_exit_reason",
}

# The structure each kernel type's objects hold (kformat.h).
KERNEL_STRUCTS = {
    "OS_TYPE_PROCESS": "kproc", "OS_TYPE_THREAD": "kthread",
    "OS_TYPE_ASPACE": "kaspace", "OS_TYPE_HANDLES": "khandles",
    "OS_TYPE_CHANNEL": "kchannel",
}


def kernel_struct(heap, oid, kind):
    """The kernel structure (kproc, kroot...) object oid of type `kind`
    (an enum os_obj_type name) holds, None if it is no kernel object."""
    if kind != "OS_TYPE_KERNEL":
        return KERNEL_STRUCTS.get(kind)
    roots = heap.root["app_roots"]
    if oid == int(roots[F.OS_APP_ROOT_KERNEL]):
        return "kroot"
    if oid == int(roots[F.OS_APP_ROOT_MACHINE]):
        return "kclock"
    try:
        if oid == int(Kernel(heap).kroot["console"]):
            return "kconsole"
    except FeError:
        pass
    return None


def show_fields(value, struct_name, indent="  ", prefix=""):
    """Print a structure's fields: enums by name, char arrays as text, arrays
    without their zero elements; reserved fields, padding and FPU state left out."""
    for field in value.type.strip_typedefs().fields():
        name = field.name
        if name is None or name.startswith("reserved") or "pad" in name or name == "fpu":
            continue
        v = value[field]
        t = v.type.strip_typedefs()
        label = prefix + name
        if t.code == gdb.TYPE_CODE_STRUCT:
            show_fields(v, t.tag or "", indent, label + ".")
        elif t.code == gdb.TYPE_CODE_ARRAY:
            show_array(v, t, label, indent)
        else:
            enum = ENUM_FIELDS.get((struct_name, name))
            text = enum_name(enum, int(v)) if enum else int_text(int(v))
            if name == "magic":
                text = f"{int(v):#x} '{int(v).to_bytes(4, 'little').decode('ascii', 'replace')}'"
            gdb.write(f"{indent}{label} = {text}\n")


def show_array(v, t, label, indent):
    """Print an array field: text for chars, the non-zero elements otherwise."""
    target = t.target().strip_typedefs()
    count = t.range()[1] + 1
    if target.sizeof == 1 and target.code == gdb.TYPE_CODE_INT:
        text = escaped(cstring_bytes(array_bytes(v)))
        gdb.write(f"{indent}{label} = \"{text}\"\n")
        return
    shown = 0
    for i in range(count):
        e = v[i]
        if target.code == gdb.TYPE_CODE_STRUCT:
            if not any(int(e[f]) for f in target.fields()
                       if f.type.strip_typedefs().code == gdb.TYPE_CODE_INT):
                continue
            show_fields(e, target.tag or "", indent, f"{label}[{i}].")
        else:
            if not int(e):
                continue
            gdb.write(f"{indent}{label}[{i}] = {int_text(int(e))}\n")
        shown += 1
    if not shown:
        gdb.write(f"{indent}{label} = (all {count} zero)\n")


class FeObj(FeCommand):
    """fe-obj ID|NAME: an object's header and, for a kernel object, its fields."""

    def __init__(self):
        """Register fe-obj."""
        super().__init__("fe-obj")

    def run(self, arg):
        """Print the header, the names, then the decoded bytes."""
        if not arg:
            raise FeError("usage: fe-obj ID|#ID|NAME")
        heap = Heap()
        oid = resolve(heap, arg)
        off = heap.header_offset(oid)
        if off is None:
            raise FeError(f"no object #{oid}")
        h = heap.header(oid)
        raw = read(heap.base + off, lookup_type("struct os_obj_header").sizeof)
        crc_ok = F.crc32c(raw[:-4]) == int(h["crc"])
        kind = enum_name("enum os_obj_type", int(h["type"]))
        place = enum_name("enum os_placement", int(h["placement"]))
        gdb.write(f"object #{oid}: {heap.type_name(int(h['type']))} ({kind}), "
                  f"{int(h['size'])} bytes, refcount {int(h['refcount'])}, "
                  f"modified in epoch {int(h['modified_epoch'])}\n")
        gdb.write(f"header:   heap offset {off:#x} (kernel address {heap.base + off:#x}), "
                  f"crc {int(h['crc']):#010x} {'good' if crc_ok else 'BAD'}\n")
        gdb.write(f"names:    {', '.join(repr(escaped(n)) for n in names_of(heap, oid)) or '(none)'}\n")
        if place == "OS_PLACE_SMALL":
            gdb.write(f"data:     small block at heap offset {int(h['data']):#x} "
                      f"(kernel address {heap.base + int(h['data']):#x})\n")
            self.kernel_fields(heap, oid, kind, int(h["data"]))
        else:
            gdb.write(f"data:     paged, radix depth {int(h['depth'])}, "
                      f"{heap.obj_pages(h)} data pages allocated\n")
            first = heap.obj_page(h, 0)
            if first:
                head = heap.page(first)[:min(64, int(h["size"]))]
                gdb.write(f"bytes:    {head.hex(' ')}\n")

    def kernel_fields(self, heap, oid, kind, data_off):
        """Decode a small object as the kernel structure its type (or root) says."""
        name = kernel_struct(heap, oid, kind)
        if name is None:
            return
        gdb.write(f"struct {name}:\n")
        show_fields(heap.at(data_off, f"struct {name}"), name)


class FeObjValue(FeFunction):
    """$fe_obj(ID): object ID as the kernel sees it: a kernel object as its
    structure (struct kproc, kthread, kaspace, khandles, kchannel, kroot,
    kclock, kconsole), any other as its header (struct os_obj_header)."""

    def __init__(self):
        """Register $fe_obj."""
        super().__init__("fe_obj")

    def value(self, oid):
        """The object's structure, or its header, an lvalue in the heap."""
        heap = Heap()
        off = heap.header_offset(oid)
        if off is None:
            raise FeError(f"no object #{oid}")
        h = heap.header(oid)
        kind = enum_name("enum os_obj_type", int(h["type"]))
        name = kernel_struct(heap, oid, kind)
        if name and int(h["placement"]) == placement("OS_PLACE_SMALL"):
            return heap.small_value(oid, f"struct {name}")
        return value_at(heap.base + off, "struct os_obj_header")
