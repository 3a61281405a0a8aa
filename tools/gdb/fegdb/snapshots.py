"""snapshots.py -- the heap's snapshot area, read from memory: fe-snapshots.

The area (format.h "the snapshot area", layout 2.0) as the kernel has it
open: its header at `kheap.snap`, the node table at `kheap.snap_nodes`.
A node is in use when its generation is the table's; its list is what it
holds relative to its parent (another node, or the live state for the
newest). The figures are osh's `snapshots` (tests/system/test_gdb.py sets
them side by side) and each node's own: its pages and those only it
holds, what snapshot_query.c's list_pages and os_snap_list count.
"""

import gdb

import heapformat as F
from numtext import size_text

from .commands import FeCommand
from .heap import Heap
from .target import FeError, array_bytes, cstring, lookup_type, read, typed, typed_bytes
from .text import utc_text


class Snapshots:
    """The snapshot area of the kernel's heap (`kheap.snap`), read from memory."""

    def __init__(self, heap):
        """The area header and its node table; FeError if the heap has no area."""
        area = int(heap.kheap["snap"])
        if not area:
            raise FeError("this heap has no snapshot area (made by a layout 1 Ferrite)")
        self.area = typed(area, "struct os_snap_area")
        node_type = lookup_type("struct os_snap_node")
        nodes = F.OS_SNAP_NODES
        table = read(int(heap.kheap["snap_nodes"]), nodes * node_type.sizeof)
        self.nodes = [typed_bytes(table, i * node_type.sizeof, "struct os_snap_node")
                      for i in range(nodes)]
        gen = int(self.area["table_gen"])
        self.in_use = [i for i, n in enumerate(self.nodes) if int(n["gen"]) == gen]

    def children(self, i):
        """The nodes in use stored relative to node i (whose parent it is)."""
        return [c for c in self.in_use if int(self.nodes[c]["parent"]) == i + 1]

    def pages(self, i):
        """Area pages node i's list takes: copies, list pages, directory (snapshot_query.c list_pages)."""
        n = self.nodes[i]
        count = int(n["count"])
        if not count:
            return 1 if int(n["dir"]) else 0
        return count + -(-count // F.OS_SNAP_ENTRIES_PER_PAGE) + 1

    def held(self, i):
        """The pages removing node i gives back now (os_snap_list's `held`)."""
        return 0 if self.children(i) else self.pages(i)

    def free_pages(self):
        """Area pages on the free stack or never handed out."""
        a = self.area
        return int(a["free_top"]) + int(a["data_pages"]) - int(a["high_water"])


def snapshot_region(heap, rel):
    """What lies at byte `rel` of the snapshot area (format.h's area geometry)."""
    try:
        a = Snapshots(heap).area
    except FeError:
        return "the snapshot area"
    page = F.OS_PAGE_SIZE
    table = page * (1 + F.OS_SNAP_TABLE_PAGES)
    maps = table + page * int(a["map_pages"])
    stack = maps + page * int(a["stack_pages"])
    if rel < page:
        return "the snapshot area's header"
    if rel < table:
        return f"snapshot node {(rel - page) // lookup_type('struct os_snap_node').sizeof}"
    if rel < maps:
        return "the snapshot area's head map"
    if rel < stack:
        return "the snapshot area's free stack"
    return f"snapshot area page {(rel - stack) // page}"


class FeSnapshots(FeCommand):
    """fe-snapshots: the heap's snapshots, node by node, and the snapshot area."""

    def __init__(self):
        """Register fe-snapshots."""
        super().__init__("fe-snapshots")

    def run(self, arg):
        """Print each node in use (osh's `snapshots` columns, then the node's
        own), then the area's figures."""
        heap = Heap()
        snaps = Snapshots(heap)
        a = snaps.area
        gdb.write(f"{'NAME':<24} {'EPOCH':>8}  {'TAKEN (UTC)':<19} {'PAGES':>7} "
                  f"{'ONLY IT':>7}  {'NODE':>4} {'PARENT':>6}  FLAGS\n")
        for i in snaps.in_use:
            n = snaps.nodes[i]
            flags = int(n["flags"])
            hidden = flags & F.OS_SNAP_HIDDEN
            name = "(removed)" if hidden else cstring(array_bytes(n["name"]))
            words = (["newest"] if int(a["head"]) == i + 1 else []) + \
                (["boot"] if int(a["boot"]) == i + 1 else []) + \
                (["auto"] if flags & F.OS_SNAP_AUTO else []) + (["removed"] if hidden else [])
            parent = int(n["parent"])
            row = (f"{name:<24} {int(n['epoch']):>8}  {utc_text(int(n['time_ns'])):<19} "
                   f"{snaps.pages(i):>7} {snaps.held(i):>7}  {i:>4} "
                   f"{parent - 1 if parent else 'live':>6}  {' '.join(words)}")
            gdb.write(row.rstrip() + "\n")
        if not snaps.in_use:
            gdb.write("(no snapshots)\n")
        free, total = snaps.free_pages(), int(a["data_pages"])
        page = F.OS_PAGE_SIZE
        gdb.write(f"area: {free} of {total} pages free ({size_text(free * page)} of "
                  f"{size_text(total * page)}); power-on snapshots kept: {int(a['keep'])}\n")
        gdb.write(f"area: {int(a['high_water'])} pages ever handed out, {int(a['free_top'])} "
                  f"on the free stack; dropped {int(a['dropped'])} times when full; "
                  f"table generation {int(a['table_gen'])}\n")
        if int(a["restore_target"]):
            gdb.write(f"restore: into node {int(a['restore_target']) - 1} in progress, the "
                      f"replaced state to node {int(a['restore_before']) - 1}; step "
                      f"{int(a['restore_step'])}, entry {int(a['restore_entry'])}\n")
