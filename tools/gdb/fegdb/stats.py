"""stats.py -- objtool's info --stats from live memory: fe-heap.

Objects, bytes and bytes held by type (a walk of the id index), slabs by
block size, whole pages and free runs (the page descriptors below the
never-used tail, which is one free run of its own), the log's high water
(its last non-zero line) and the heap's age, in objtool's columns.
"""

import struct

import gdb

import heapformat as F

from .commands import FeCommand
from .heap import Heap, placement
from .processes import Kernel
from .target import FeError, lookup_type, read
from .text import size_text


class FeHeap(FeCommand):
    """fe-heap: objtool info --stats from live memory: objects, bytes and
    bytes held by type; slabs by block size; whole pages; free pages, runs
    and the largest; fragmentation; the log's high water; the heap's age."""

    def __init__(self):
        """Register fe-heap."""
        super().__init__("fe-heap")

    def run(self, arg):
        """Walk the objects, the page descriptors and the log."""
        heap = Heap()
        self.by_type(heap)
        self.pages(heap)
        self.log_and_age(heap)

    def by_type(self, heap):
        """Objects, bytes and bytes held, per type, in objtool's columns."""
        count, held, size = {}, {}, {}
        paged = placement("OS_PLACE_PAGED")
        for oid in range(1, int(heap.root["next_object_id"])):
            if heap.header_offset(oid) is None:
                continue
            h = heap.header(oid)
            t = int(h["type"])
            count[t] = count.get(t, 0) + 1
            size[t] = size.get(t, 0) + int(h["size"])
            held[t] = held.get(t, 0) + (heap.obj_pages(h) * F.OS_PAGE_SIZE
                                        if int(h["placement"]) == paged else int(h["size"]))
        gdb.write(f"objects by type:  {'TYPE':<10} {'OBJECTS':>8} {'BYTES':>14} {'HELD':>14}\n")
        for t in sorted(count):
            gdb.write(f"                  {heap.type_name(t):<10} {count[t]:>8} {size[t]:>14} "
                      f"{held[t]:>14}\n")

    def pages(self, heap):
        """Slabs, whole pages and free runs from the page descriptors below
        the never-used tail, which is one free run of its own."""
        sb = heap.sb
        classes = F.OS_SIZE_CLASSES
        desc = lookup_type("struct os_page_desc")
        at = {f.name: f.bitpos // 8 for f in desc.fields()}
        tail = int(heap.root["pages_unformatted"])
        n = int(sb["page_count"]) - tail
        raw = read(heap.base + int(sb["desc_offset"]), n * desc.sizeof)
        slabs, used = [0] * classes, [0] * classes
        whole = free = runs = run = largest = 0
        for p in range(n):
            base = p * desc.sizeof
            kind, size_class = raw[base + at["kind"]], raw[base + at["size_class"]]
            if kind == F.OS_PAGE_FREE:
                free += 1
                runs += run == 0
                run += 1
                largest = max(largest, run)
                continue
            run = 0
            if kind == F.OS_PAGE_WHOLE:
                whole += 1
            elif kind == F.OS_PAGE_SLAB and size_class < classes:
                slabs[size_class] += 1
                used[size_class] += struct.unpack_from("<H", raw, base + at["used"])[0]
        if tail:
            free += tail
            runs += run == 0
            largest = max(largest, run + tail)
        gdb.write(f"slabs:            {'BLOCK':<10} {'PAGES':>8} {'BLOCKS USED':>14} "
                  f"{'OCCUPANCY':>14}\n")
        for c in range(classes):
            if slabs[c]:
                slots = slabs[c] * (F.OS_PAGE_SIZE >> (c + 6))
                gdb.write(f"                  {64 << c:<10} {slabs[c]:>8} {used[c]:>14} "
                          f"{used[c] * 100 // slots:>13}%\n")
        gdb.write(f"whole pages:      {whole}\n")
        gdb.write(f"free pages:       {free} ({size_text(free * F.OS_PAGE_SIZE)}) in {runs} "
                  f"run{'' if runs == 1 else 's'}, the largest {largest} pages "
                  f"({size_text(largest * F.OS_PAGE_SIZE)})\n")
        gdb.write(f"fragmentation:    {(free - largest) * 100 // free if free else 0}% "
                  f"(free pages outside the largest run)\n")

    def log_and_age(self, heap):
        """The log's last non-zero line, and epochs and power-ons."""
        sb = heap.sb
        size = int(sb["log_size"])
        log = read(heap.base + int(sb["log_offset"]), size)
        stripped = log.rstrip(b"\0")
        line = F.OS_CACHE_LINE
        high = -(-len(stripped) // line) * line
        gdb.write(f"log high water:   {size_text(high)} of {size_text(size)} "
                  f"(the furthest any transaction reached)\n")
        age = f"age:              epoch {int(sb['committed_epoch'])}"
        try:
            kr = Kernel(heap).kroot
            ons = int(kr["power_ons"])
            age += (f", {ons} power-on{'' if ons == 1 else 's'}, {int(kr['commits'])} "
                    f"kernel commits, {int(kr['mono_ns']) // 1000000000} s of running time")
        except FeError:
            age += " (no kernel root yet)"
        gdb.write(age + "\n")
