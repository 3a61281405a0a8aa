"""image.py -- the heap in memory as an image file, for objtool: fe-check, fe-heap.

objtool is the one program that checks a heap and counts what it holds
(`objtool IMAGE check`, `info --stats`, built on objstore itself); these
commands run it on a copy of the heap as the machine has it now rather
than walk the heap again in Python.

Where the bytes come from. QEMU maps the NVM image file shared
(tools/run-qemu: memory-backend-file nvm0, share=on), so while gdb has the
machine stopped the file holds exactly the bytes the kernel sees. The
helpers ask QEMU which file that is (`monitor qom-get /objects/nvm0
mem-path`), make sure its superblock and root block are the ones in
memory, and copy it, holes skipped: a sparse image of any size copies in
a moment. When there is no such file (another gdb stub, a file that does
not match) the heap is read through gdb instead, ~5 s for 64 MiB.

What the copy says. As it is, the running epoch is not committed: objtool
rolls it back in its private view, which is the heap as a power cut now
would leave it (`fe-check --committed`). Otherwise the running epoch's
changes count as made: the copy's committed_epoch is moved to the running
epoch (its log records become a finished chain) and the root block's
checksum, which only a commit computes, is made good. Stopped inside an
objstore call, a half-made change can show as problems: step out of it
first (`finish`).
"""

import contextlib
import errno
import json
import os
import struct
import subprocess
import tempfile

import gdb

import heapformat as F

from .commands import FeCommand
from .heap import Heap
from .target import FeError, build_dir, field_offset, read

CHUNK = 1 << 20
NVM_BACKEND = "/objects/nvm0"  # the memory backend tools/run-qemu gives the NVDIMM


def nvm_file(heap):
    """The NVM image file QEMU maps, if it holds the heap gdb sees; else None."""
    try:
        out = gdb.execute(f"monitor qom-get {NVM_BACKEND} mem-path", to_string=True)
        path = json.loads(out.strip())
    except (gdb.error, ValueError):
        return None
    if not isinstance(path, str) or not os.path.isfile(path):
        return None
    page = F.OS_PAGE_SIZE
    root = int(heap.sb["root_offset"])
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size < int(heap.sb["heap_size"]):
                return None
            same = (os.pread(f.fileno(), page, 0) == read(heap.base, page) and
                    os.pread(f.fileno(), page, root) == read(heap.base + root, page))
    except OSError:
        return None
    return path if same else None


def copy_file(src, dst, size):
    """Bytes [0, size) of file descriptor src into dst, holes skipped."""
    at = 0
    while at < size:
        try:
            start = os.lseek(src, at, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:   # nothing but a hole from here on
                return
            raise
        if start >= size:
            return
        end = min(os.lseek(src, start, os.SEEK_HOLE), size)
        for pos in range(start, end, CHUNK):
            os.pwrite(dst, os.pread(src, min(CHUNK, end - pos), pos), pos)
        at = end


def copy_memory(heap, dst, size):
    """The heap's bytes read through gdb into file descriptor dst."""
    for at in range(0, size, CHUNK):
        os.pwrite(dst, read(heap.base + at, min(CHUNK, size - at)), at)


def count_running_epoch(heap, fd):
    """Make the copy's running epoch committed: committed_epoch moved to it,
    the root block's checksum made good."""
    kh = heap.kheap
    os.pwrite(fd, struct.pack("<Q", int(kh["tx_epoch"])),
              field_offset("struct os_superblock", "committed_epoch"))
    root = int(heap.sb["root_offset"])
    crc_at = field_offset("struct os_root", "crc")
    crc = F.crc32c(os.pread(fd, crc_at, root))
    os.pwrite(fd, struct.pack("<I", crc), root + crc_at)


@contextlib.contextmanager
def heap_image(heap, committed):
    """(path, what) of a temporary image file holding the heap now -- as
    committed, or with the running epoch's changes counted as made --
    removed afterwards."""
    size = int(heap.sb["heap_size"])
    kh = heap.kheap
    running = bool(kh["in_tx"]) and int(kh["log_tail"]) > 0
    source = nvm_file(heap)
    fd, path = tempfile.mkstemp(prefix="fe-heap-", suffix=".nvm")
    try:
        os.ftruncate(fd, size)
        if source is not None:
            with open(source, "rb") as f:
                copy_file(f.fileno(), fd, size)
        else:
            copy_memory(heap, fd, size)
        if committed or not running:
            what = f"as committed (epoch {int(heap.sb['committed_epoch'])})"
        else:
            what = f"live, the running epoch {int(kh['tx_epoch'])}'s changes included"
            count_running_epoch(heap, fd)
        os.close(fd)
        fd = -1
        yield path, what
    finally:
        if fd >= 0:
            os.close(fd)
        os.unlink(path)


def objtool_path():
    """build/objtool, refused if make has not built it."""
    tool = os.path.join(build_dir(), "objtool")
    if not os.access(tool, os.X_OK):
        raise FeError(f"{tool} is missing: make builds it")
    return tool


def objtool(tool, path, *args):
    """objtool on an image copy: (exit status, stdout, stderr with the
    copy's name said as 'the copy')."""
    p = subprocess.run([tool, path] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.replace(path, "the copy")


class FeCheck(FeCommand):
    """fe-check [--committed]: objtool's check of the heap as it is in
    memory now -- the running epoch's changes included -- or, with
    --committed, as a power cut now would leave it; read-only."""

    def __init__(self):
        """Register fe-check."""
        super().__init__("fe-check")

    def run(self, arg):
        """Copy the heap into a file, make it say what to check, run objtool check."""
        if arg not in ("", "--committed"):
            raise FeError("usage: fe-check [--committed]")
        tool = objtool_path()
        heap = Heap()
        with heap_image(heap, committed=arg == "--committed") as (path, what):
            gdb.write(f"fe-check: the heap {what}\n")
            _, out, err = objtool(tool, path, "check")
        gdb.write(out + err)


class FeHeap(FeCommand):
    """fe-heap: objtool's info --stats of the heap in memory now (the
    running epoch's changes included): objects, bytes and bytes held by
    type; slabs by block size; whole pages; free pages, runs and the
    largest; fragmentation; the log's high water; the heap's age."""

    def __init__(self):
        """Register fe-heap."""
        super().__init__("fe-heap")

    def run(self, arg):
        """Copy the heap into a file, run objtool info --stats, print its figures."""
        tool = objtool_path()
        heap = Heap()
        with heap_image(heap, committed=False) as (path, _):
            status, out, err = objtool(tool, path, "info", "--stats")
        if status:
            raise FeError(err.strip() or f"objtool info --stats: exit status {status}")
        stats = out.find("objects by type:")
        gdb.write(out[stats:] if stats >= 0 else out)
