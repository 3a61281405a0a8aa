"""log.py -- the undo log of the running epoch, record by record: fe-log.

The records from the log's start to `kheap.log_tail` (format.h struct
os_log_entry, each padded to a cache line with its data), each named by
what it lies in: the root block, a page descriptor, a slab of which
block size or a whole data page, the snapshot area's parts (where
capture's records lie).
"""

import gdb

import heapformat as F
from numtext import size_text

from .commands import FeCommand
from .heap import Heap
from .snapshots import snapshot_region
from .target import FeError, enum_name, enum_value, lookup_type, typed


class FeLog(FeCommand):
    """fe-log: the undo log of the running epoch, one line per record."""

    def __init__(self):
        """Register fe-log."""
        super().__init__("fe-log")

    def run(self, arg):
        """Walk the records from the start of the log to log_tail."""
        heap = Heap()
        kh = heap.kheap
        if not bool(kh["in_tx"]):
            gdb.write("no transaction is running: the log is empty\n")
            return
        tail, epoch = int(kh["log_tail"]), int(kh["tx_epoch"])
        log = heap.base + int(heap.sb["log_offset"])
        limit = int(arg) if arg.isdigit() else None
        undo = enum_value("enum os_log_kind", "OS_LOG_UNDO")
        with_data = (undo, enum_value("enum os_log_kind", "OS_LOG_REDO"))
        line = F.OS_CACHE_LINE
        gdb.write(f"epoch {epoch} (committed: {int(heap.sb['committed_epoch'])}): "
                  f"{size_text(tail)} of {size_text(int(kh['log_size']))} used\n")
        pos, n, undo_bytes = 0, 0, 0
        while pos < tail:
            e = typed(log + pos, "struct os_log_entry")
            length, kind = int(e["length"]), int(e["kind"])
            if int(e["epoch"]) != epoch:
                raise FeError(f"record at log offset {pos:#x} is of epoch "
                              f"{int(e['epoch'])}, not {epoch}: the log is damaged")
            if limit is None or n < limit:
                gdb.write(f"{n:6} {enum_name('enum os_log_kind', kind):<12} "
                          f"{int(e['offset']):#12x} {length:6} bytes  "
                          f"{self.region(heap, int(e['offset']))}\n")
            undo_bytes += length if kind == undo else 0
            data = length if kind in with_data else 0
            pos += -(-(e.type.sizeof + data) // line) * line
            n += 1
        gdb.write(f"{n} records, {size_text(undo_bytes)} of old contents saved"
                  + (f" (first {limit} shown)" if limit is not None and n > limit else "")
                  + "\n")

    def region(self, heap, off):
        """Which part of the heap an offset lies in."""
        sb = heap.sb
        if off < int(sb["root_offset"]):
            return "superblock"
        if off < int(sb["log_offset"]):
            return "root block"
        if off < int(sb["desc_offset"]):
            return "the log itself?"
        desc_size = lookup_type("struct os_page_desc").sizeof
        if off < int(sb["stack_offset"]):
            return f"page descriptor of data page {(off - int(sb['desc_offset'])) // desc_size}"
        snap = int(sb["snap_offset"])
        if int(sb["snap_size"]) and snap <= off < snap + int(sb["snap_size"]):
            return snapshot_region(heap, off - snap)  # before the data pages from 2.3
        if off < int(sb["data_offset"]):
            return "free-page stack"
        page = heap.data_page_index(off)
        if page is None:
            return "past the heap"
        desc = heap.at(int(sb["desc_offset"]) + page * desc_size, "struct os_page_desc")
        kind = enum_name("enum os_page_kind", int(desc["kind"]))
        if kind == "OS_PAGE_SLAB":
            block = 1 << (F.OS_SMALLEST_CLASS_SHIFT + int(desc["size_class"]))
            return f"data page {page}, a slab of {block}-byte blocks"
        return f"data page {page}, {'a whole page' if kind == 'OS_PAGE_WHOLE' else kind}"
