"""info.py -- the heap at a glance: fe-info.

The superblock and root block's figures in the keys `objtool IMAGE info`
writes (tests/system/test_gdb.py sets them side by side), then what only
the running kernel knows: the undo log's running epoch and high water
(`kheap`), what the last power-on rolled back, the DRAM cache
(kernel/uvm/pagecache.c), and the kernel root's power-ons, commits,
clock and processes.
"""

import gdb

import heapformat as F
from numtext import size_text

from .commands import FeCommand
from .heap import Heap
from .processes import Kernel
from .target import FeError, symbol


class FeInfo(FeCommand):
    """fe-info: the heap (layout, size and use, epochs, the undo log), the
    DRAM cache and power-ons."""

    def __init__(self):
        """Register fe-info."""
        super().__init__("fe-info")

    def run(self, arg):
        """Print the superblock, root block and kernel root figures."""
        heap = Heap()
        sb, r, kh = heap.sb, heap.root, heap.kheap
        hid = bytes(int(sb["heap_id"][i]) for i in range(16)).hex()
        pages = int(sb["page_count"])
        # The never-used tail is counted to the descriptors' room (format.h).
        room = int(sb["page_capacity"]) or pages
        free = int(r["free_top"]) + pages - (room - int(r["pages_unformatted"]))
        epoch = int(sb["committed_epoch"])
        w = gdb.write
        w(f"layout version:   {int(sb['layout_major'])}.{int(sb['layout_minor'])}\n")
        w(f"heap id:          {hid[:8]}-{hid[8:12]}-{hid[12:16]}-{hid[16:20]}-{hid[20:]}\n")
        w(f"heap:             {int(sb['heap_size'])} bytes at {heap.base:#x}\n")
        w(f"size:             {size_text(int(sb['heap_size']))} ({int(sb['heap_size'])} bytes)\n")
        w(f"data pages:       {pages} of {F.OS_PAGE_SIZE} bytes: {pages - free} used, "
          f"{free} free ({size_text(free * F.OS_PAGE_SIZE)})\n")
        w(f"objects:          {int(r['object_count'])}\n")
        w(f"next object id:   {int(r['next_object_id'])}\n")
        w(f"names:            {int(r['catalogue_count'])}\n")
        roots = []
        for i in range(r["app_roots"].type.range()[1] + 1):
            oid = int(r["app_roots"][i])
            if oid:
                try:
                    kind = heap.type_name(int(heap.header(oid)["type"]))
                except FeError:
                    kind = "(missing)"
                roots.append(f"[{i}] #{oid} {kind}")
        w(f"app roots:        {', '.join(roots) or 'none'}\n")
        w(f"committed epoch:  {epoch}\n")
        self.log_state(kh)
        self.dram_cache()
        self.power_ons(heap)

    def log_state(self, kh):
        """The undo log: size, the running transaction's use, the high water."""
        tail = int(kh["log_tail"])
        state = (f"epoch {int(kh['tx_epoch'])} running, {size_text(tail)} used"
                 if bool(kh["in_tx"]) else "no transaction running")
        gdb.write(f"log:              {size_text(int(kh['log_size']))}, {state}, "
                  f"high water {size_text(int(kh['log_high_water']))}\n")
        gdb.write(f"last open:        rolled back {int(kh['rolled_back'])} records "
                  f"({size_text(int(kh['rolled_back_bytes']))})\n")

    def dram_cache(self):
        """The DRAM cache in front of the NVM (kernel/uvm/pagecache.c)."""
        capacity = int(symbol("'pagecache.c'::capacity"))
        if not capacity:
            gdb.write("dram cache:       off (user pages mapped onto the NVM)\n")
            return
        f = symbol("'pagecache.c'::figures")
        cached, dirty, opened = (int(symbol(f"'pagecache.c'::{name}"))
                                 for name in ("count", "dirty_count", "open_count"))
        gdb.write(f"dram cache:       {cached} of {capacity} pages, {dirty} written "
                  f"since the last commit, {opened} open\n")
        gdb.write(f"                  {int(f['fills'])} fills, {int(f['hits'])} hits, "
                  f"{int(f['evictions'])} evictions; written back {int(f['written_back'])} "
                  f"pages ({int(f['written_last'])} at the last commit)\n")

    def power_ons(self, heap):
        """The kernel root's counters, or why there is none yet."""
        try:
            k = Kernel(heap)
        except FeError as e:
            gdb.write(f"kernel root:      {e}\n")
            return
        kr = k.kroot
        live = sum(1 for _ in k.processes())
        gdb.write(f"kernel root:      #{k.root_id}, version {int(kr['version'])}\n")
        gdb.write(f"power-ons:        {int(kr['power_ons'])}\n")
        gdb.write(f"kernel commits:   {int(kr['commits'])}\n")
        gdb.write(f"monotonic clock:  {int(kr['mono_ns']) / 1e9:.3f} s at the last commit\n")
        gdb.write(f"processes:        {live} live, next pid {int(kr['next_pid'])}\n")
