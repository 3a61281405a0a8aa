"""heap.py -- the kernel's open heap, read from guest memory as objstore reads it.

`kheap` (kernel/core/heap.c) says where the heap is mapped; from there
the superblock and the root block (format.h), and the walks objstore
makes: an object id down the id index (a radix tree of index pages from
root.index_root) to its header, a paged object's page down its own radix
tree. Every offset followed is checked to start a data page and every
walk is bounded, so a damaged heap makes a command say so, never loop.

The structures' layouts are the kernel's debug info; the preprocessor
constants of the format, which debug info does not carry, come from
heapformat (the C headers, as the compiler saw them). Every command
first checks the heap's layout major version.
"""

import struct

import gdb

import heapformat as F

from .target import FeError, enum_name, lookup_type, read, symbol, typed, u64, value_at


def layout_majors():
    """The layout major versions these walks know (format.h OS_LAYOUT_OLDEST_MAJOR..MAJOR)."""
    return range(F.OS_LAYOUT_OLDEST_MAJOR, F.OS_LAYOUT_MAJOR + 1)


def placement(name):
    """The value of an enum os_placement enumerator."""
    for field in lookup_type("enum os_placement").fields():
        if field.name == name:
            return field.enumval
    raise FeError(f"the kernel's debug info has no {name}")


class Heap:
    """The kernel's open heap (`kheap`), read from guest memory."""

    def __init__(self):
        """Find the heap through `kheap`; refuse while it is not open."""
        kheap = symbol("kheap")
        self.base = int(kheap["base"])
        if not self.base:
            raise FeError("the heap is not open yet: kheap.base is NULL "
                          "(heap_init has not run in this power-on)")
        if read(self.base, len(F.OS_MAGIC)) != F.OS_MAGIC:
            raise FeError(f"no heap at kheap.base {self.base:#x}: no "
                          f"{F.OS_MAGIC.decode()} magic")
        self.sb = typed(self.base, "struct os_superblock")
        majors = layout_majors()
        if int(self.sb["layout_major"]) not in majors:
            raise FeError(f"the heap has layout {int(self.sb['layout_major'])}."
                          f"{int(self.sb['layout_minor'])}; these helpers know "
                          f"layouts {majors[0]}.x to {majors[-1]}.x")
        self.root = typed(self.base + int(self.sb["root_offset"]), "struct os_root")
        self.kheap = kheap

    def at(self, off, type_name):
        """The structure of `type_name` at heap offset off."""
        return typed(self.base + off, type_name)

    def page(self, off):
        """The 4 KiB at heap offset off."""
        return read(self.base + off, F.OS_PAGE_SIZE)

    def data_page_index(self, off):
        """The data page number holding heap offset off, None outside the data pages."""
        rel = off - int(self.sb["data_offset"])
        if off < int(self.sb["data_offset"]) or rel // F.OS_PAGE_SIZE >= int(self.sb["page_count"]):
            return None
        return rel // F.OS_PAGE_SIZE

    def check_page(self, off, what):
        """Refuse to follow `off` unless it starts a data page."""
        n = self.data_page_index(off)
        if n is None or (off - int(self.sb["data_offset"])) % F.OS_PAGE_SIZE:
            raise FeError(f"{what}: offset {off:#x} is not a data page: the heap is damaged")

    def radix(self, top, depth, key, what):
        """Follow `key` down a radix tree of `depth` levels from `top`; the leaf or 0."""
        shift = F.OS_RADIX_SHIFT
        cur = top
        for level in reversed(range(depth)):
            if not cur:
                return 0
            self.check_page(cur, what)
            digit = (key >> (shift * level)) & ((1 << shift) - 1)
            cur = u64(self.base + cur + 8 * digit)
        return cur

    def header_offset(self, oid):
        """The heap offset of object oid's header, None if there is no such object."""
        r = self.root
        if oid <= 0 or oid >= int(r["next_object_id"]) or not int(r["index_root"]):
            return None
        depth = int(r["index_depth"])
        if depth > F.OS_ID_MAX_DEPTH:
            raise FeError(f"the id index claims {depth} levels: the heap is damaged")
        return self.radix(int(r["index_root"]), depth, oid, "id index") or None

    def header(self, oid):
        """Object oid's header (struct os_obj_header); FeError if it does not exist."""
        off = self.header_offset(oid)
        if off is None:
            raise FeError(f"no object #{oid}")
        h = self.at(off, "struct os_obj_header")
        if int(h["id"]) != oid:
            raise FeError(f"the id index leads #{oid} to the header of "
                          f"#{int(h['id'])}: the heap is damaged")
        return h

    def small_offset(self, oid):
        """The heap offset of a small object's bytes."""
        h = self.header(oid)
        if int(h["placement"]) != placement("OS_PLACE_SMALL"):
            raise FeError(f"object #{oid} is paged, not a kernel object")
        return int(h["data"])

    def small(self, oid, type_name):
        """A small object's bytes as the kernel structure `type_name` (read now)."""
        return self.at(self.small_offset(oid), type_name)

    def small_value(self, oid, type_name):
        """The same as an lvalue in guest memory, its fields read when used
        (so a breakpoint condition reads them afresh at each hit)."""
        return value_at(self.base + self.small_offset(oid), type_name)

    def obj_page(self, h, index):
        """The heap offset of page `index` of paged object h, 0 if missing."""
        if index * F.OS_PAGE_SIZE >= int(h["size"]):
            return 0
        return self.radix(int(h["data"]), int(h["depth"]), index,
                          f"object #{int(h['id'])}")

    def mappings(self, aspace):
        """The mappings of address space `aspace` (struct kaspace), in
        order: its own, then those in its `more` object's pages (kformat.h)."""
        count = min(int(aspace["count"]), F.KASPACE_MAX_MAPS)
        more = self.header(int(aspace["more"])) if int(aspace["more"]) else None
        for i in range(count):
            if i < F.KASPACE_INLINE_MAPS:
                yield aspace["map"][i]
                continue
            past = i - F.KASPACE_INLINE_MAPS
            page = self.obj_page(more, past // F.KASPACE_MORE_PER_PAGE) if more else 0
            if not page:
                raise FeError(f"address space: mapping {i} is in a page of "
                              f"#{int(aspace['more'])} that is missing")
            yield self.at(page + (past % F.KASPACE_MORE_PER_PAGE) *
                          lookup_type("struct kmapping").sizeof, "struct kmapping")

    def obj_pages(self, h):
        """How many data pages paged object h has (a walk of its radix tree)."""
        if int(h["placement"]) != placement("OS_PLACE_PAGED") or not int(h["data"]):
            return 0
        budget = [1 << 20]
        entries_format = f"<{F.OS_RADIX_FANOUT}Q"

        def under(off, level):
            """Data pages under index page off at `level`."""
            budget[0] -= 1
            if budget[0] < 0:
                raise FeError(f"object #{int(h['id'])}: its page tree does not end")
            if level == 0:
                return 1
            self.check_page(off, f"object #{int(h['id'])}")
            entries = struct.unpack(entries_format, self.page(off))
            return sum(under(e, level - 1) for e in entries if e)

        return under(int(h["data"]), int(h["depth"]))

    def type_name(self, obj_type):
        """'blob', 'code'... the kernel's own names (objstore's type_names)."""
        try:
            names = symbol("'object.c'::type_names")
            if 0 < obj_type < names.type.range()[1] + 1:
                return names[obj_type].string()
        except (FeError, gdb.error):
            pass
        return enum_name("enum os_obj_type", obj_type).replace("OS_TYPE_", "").lower()
