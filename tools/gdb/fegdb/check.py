"""check.py -- objtool's check of the heap in memory: fe-check.

objtool is the one checker of a heap; fe-check runs it on a copy of the
heap read through gdb (~5 s for 64 MiB) into a temporary file. As it is,
the running epoch is not committed: objtool rolls it back in its private
view, which is the heap as a power cut now would leave it (`fe-check
--committed`). Otherwise the running epoch's changes count as made: the
copy's committed_epoch is moved to the running epoch and the root
block's checksum, which only a commit computes, is made good. Stopped
inside an objstore call, a half-made change can show as problems: step
out of it first (`finish`).
"""

import os
import struct
import subprocess
import tempfile

import gdb

import heapformat as F

from .commands import FeCommand
from .heap import Heap
from .target import FeError, build_dir, field_offset, read


class FeCheck(FeCommand):
    """fe-check [--committed]: objtool's check of the heap as it is in
    memory now -- the running epoch's changes included -- or, with
    --committed, as a power cut now would leave it; read-only."""

    CHUNK = 1 << 20

    def __init__(self):
        """Register fe-check."""
        super().__init__("fe-check")

    def run(self, arg):
        """Copy the heap into a file, make it say what to check, run objtool check."""
        if arg not in ("", "--committed"):
            raise FeError("usage: fe-check [--committed]")
        objtool = os.path.join(build_dir(), "objtool")
        if not os.access(objtool, os.X_OK):
            raise FeError(f"{objtool} is missing: make builds it")
        heap = Heap()
        size = int(heap.sb["heap_size"])
        image = bytearray()
        for at in range(0, size, self.CHUNK):
            image += read(heap.base + at, min(self.CHUNK, size - at))
        kh = heap.kheap
        running = bool(kh["in_tx"]) and int(kh["log_tail"]) > 0
        if arg == "--committed" or not running:
            what = f"as committed (epoch {int(heap.sb['committed_epoch'])})"
        else:
            # The running transaction's changes count as made: its records
            # are no longer of the next epoch, and the root block's
            # checksum (the commit computes it) is made good.
            what = f"live, the running epoch {int(kh['tx_epoch'])}'s changes included"
            struct.pack_into("<Q", image, field_offset("struct os_superblock", "committed_epoch"),
                             int(kh["tx_epoch"]))
            root = int(heap.sb["root_offset"])
            crc_at = field_offset("struct os_root", "crc")
            struct.pack_into("<I", image, root + crc_at,
                             F.crc32c(bytes(image[root:root + crc_at])))
        gdb.write(f"fe-check: the heap {what}\n")
        fd, path = tempfile.mkstemp(prefix="fe-check-", suffix=".nvm")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(image)
            p = subprocess.run([objtool, path, "check"], capture_output=True, text=True)
        finally:
            os.unlink(path)
        gdb.write(p.stdout + p.stderr.replace(path, "the copy"))
