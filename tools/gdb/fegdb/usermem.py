"""usermem.py -- a process's user memory, through its address space; fe-pt.

User memory is read through the process's persistent address space, the
way uvm.c resolves a fault -- the mapping holding the address, then the
private mapping's copy-on-write shadow, then the object it shows (bytes
past the mapping's `limit` read as zero) -- never through page tables,
which are a volatile cache that may not even exist yet after a power-on.
So any process can be read at any moment, running or not. A page the
DRAM cache holds (kernel/uvm/pagecache.c) is read from its frame: that
is the process's memory now; the heap page holds it as of the last
commit. fe-pt shows both sides: the page tables' walk to a frame, and
the mapping and object page behind the address.
"""

import struct

import gdb

import heapformat as F

from .catalogue import names_of
from .commands import FeCommand
from .heap import Heap
from .processes import Kernel, running_slot, selected_cpu
from .target import HHDM_BASE, FeError, array_bytes, cstring, lookup_type, read, symbol, u64
from .text import escaped


def dram_cache_frames():
    """{(object, index): DRAM frame} of every page the DRAM cache holds."""
    capacity = int(symbol("'pagecache.c'::capacity"))
    if not capacity:
        return {}
    t = lookup_type("struct cache_entry")
    at = {f.name: f.bitpos // 8 for f in t.fields()}
    raw = read(int(symbol("'pagecache.c'::entries")), capacity * t.sizeof)
    frames = {}
    for i in range(capacity):
        base = i * t.sizeof
        oid, index, frame = (struct.unpack_from("<Q", raw, base + at[k])[0]
                             for k in ("object", "index", "frame"))
        if oid:
            frames[(oid, index)] = frame
    return frames


class UserMemory:
    """A process's user memory, read as uvm.c resolves a fault: mapping, shadow, object."""

    def __init__(self, heap, proc):
        """The address space of process `proc` (struct kproc)."""
        self.heap = heap
        self.aspace = heap.small(int(proc["aspace"]), "struct kaspace")
        self.cached = dram_cache_frames()

    def mapping(self, va):
        """The mapping holding va, None if none."""
        for m in self.heap.mappings(self.aspace):
            if int(m["start"]) <= va < int(m["end"]):
                return m
        return None

    def page(self, va):
        """The 4 KiB of user page va (rounded down); None if not mapped."""
        m = self.mapping(va)
        if m is None:
            return None
        index = (int(m["offset"]) + (va - int(m["start"]))) // F.OS_PAGE_SIZE
        if int(m["flags"]) & F.FE_MAP_SHARED:
            return self.object_page(int(m["object"]), index, None)
        if int(m["shadow"]):
            data = self.object_page(int(m["shadow"]), index, None, absent_is_none=True)
            if data is not None:
                return data
        return self.object_page(int(m["object"]), index, int(m["limit"]))

    def object_page(self, oid, index, limit, absent_is_none=False):
        """Page `index` of object oid, bytes at or past `limit` as zero; an
        absent page reads as zeros, or is None if absent_is_none."""
        page_size = F.OS_PAGE_SIZE
        frame = self.cached.get((oid, index))
        if frame is not None:
            data = read(HHDM_BASE + frame, page_size)
        else:
            h = self.heap.header(oid)
            off = self.heap.obj_page(h, index)
            if not off:
                return None if absent_is_none else b"\0" * page_size
            data = self.heap.page(off)
        if limit is not None and limit < (index + 1) * page_size:
            keep = max(0, limit - index * page_size)
            data = data[:keep] + b"\0" * (page_size - keep)
        return data

    def read(self, va, size):
        """`size` bytes of user memory at va; None if any of it is not mapped."""
        out = b""
        while size > 0:
            data = self.page(va & ~(F.OS_PAGE_SIZE - 1))
            if data is None:
                return None
            start = va % F.OS_PAGE_SIZE
            chunk = data[start:start + size]
            out += chunk
            va += len(chunk)
            size -= len(chunk)
        return out

    def u64(self, va):
        """The 64-bit word at user address va, None if not mapped."""
        data = self.read(va, 8)
        return None if data is None else struct.unpack("<Q", data)[0]


class FePt(FeCommand):
    """fe-pt VA [PID]: the page-table walk for a user address of process PID
    (default: the one running now), each level's entry, the frame it ends
    at and what that frame is; and which object and offset back the
    address in the process's address space, or why nothing does."""

    LEVELS = ("PML4", "PDPT", "PD", "PT")
    FLAGS = ((0, "P"), (1, "W"), (2, "U"), (5, "A"), (6, "D"), (7, "PS"), (63, "NX"))
    ADDR_MASK = 0x000ffffffffff000

    def __init__(self):
        """Register fe-pt."""
        super().__init__("fe-pt")

    def run(self, arg):
        """Walk the tables, then the address space."""
        words = arg.split()
        if len(words) not in (1, 2):
            raise FeError("usage: fe-pt VA [PID]")
        try:
            va = int(words[0], 0)
            pid = int(words[1]) if len(words) == 2 else None
        except ValueError:
            raise FeError(f"'{arg}': VA is a number (0x hex or decimal), PID a decimal")
        if not 0 <= va < 1 << 47:
            raise FeError(f"{va:#x} is not a user address (below 0x800000000000)")
        heap = Heap()
        k = Kernel(heap)
        if pid is None:
            slot = running_slot()
            if slot < 0:
                raise FeError(f"CPU {selected_cpu()} runs no process now: name one, "
                              f"fe-pt VA PID")
            proc = heap.small(int(k.kroot["procs"][slot]), "struct kproc")
        else:
            slot, _, proc = k.process(pid)
        gdb.write(f"pid {int(proc['pid'])} ({cstring(array_bytes(proc['name']))}), "
                  f"address {va:#x}\n")
        self.walk(heap, slot, va)
        self.backing(heap, proc, va)

    def walk(self, heap, slot, va):
        """The four levels from the process's page-table root."""
        table = int(symbol(f"'ptable.c'::ctx[{slot}].mem.pt_root"))
        if not table:
            gdb.write("page tables: none yet (built at the process's first fault "
                      "after power-on: a cache of its address space)\n")
            return
        for level, name in enumerate(self.LEVELS):
            index = (va >> (39 - 9 * level)) & 0x1ff
            entry = u64(HHDM_BASE + table + 8 * index)
            flags = " ".join(f for bit, f in self.FLAGS if entry >> bit & 1)
            gdb.write(f"  {name:<4} table {table:#x} [{index:3}] = {entry:#018x}  {flags}\n")
            if not entry & 1:
                gdb.write(f"  not present at the {name} level: the next access faults "
                          f"and the kernel maps the page from the address space\n")
                return
            table = entry & self.ADDR_MASK
            if entry >> 7 & 1 and level in (1, 2):
                raise FeError(f"a large page at the {name} level: user mappings are 4 KiB "
                              f"pages, the tables are damaged")
        gdb.write(f"  frame {table:#x}, byte {table + (va & 0xfff):#x}: "
                  f"{self.frame_text(heap, table)}\n")

    def frame_text(self, heap, frame):
        """What a physical frame is: a DRAM cache frame, a heap page, or other DRAM."""
        for (oid, index), cached in dram_cache_frames().items():
            if cached == frame:
                return f"DRAM, the cache's copy of object #{oid} page {index}"
        nvm = int(symbol("'heap.c'::nvm_phys"))
        if nvm <= frame < nvm + int(heap.sb["heap_size"]):
            off = frame - nvm
            page = heap.data_page_index(off)
            what = f"data page {page}" if page is not None else "heap metadata"
            return f"NVM, heap offset {off:#x} ({what})"
        return "DRAM outside the cache (a page the kernel lent the process)"

    def backing(self, heap, proc, va):
        """The mapping that holds va, and the object page behind it."""
        mem = UserMemory(heap, proc)
        m = mem.mapping(va)
        if m is None:
            gdb.write("address space: no mapping holds it: an access faults and "
                      "ends the process\n")
            return
        start, obj = int(m["start"]), int(m["object"])
        off = int(m["offset"]) + (va - start)
        shared = bool(int(m["flags"]) & F.FE_MAP_SHARED)
        names = names_of(heap, obj)
        label = f" ({escaped(names[0])})" if names else ""
        page_size = F.OS_PAGE_SIZE
        gdb.write(f"address space: mapping {start:#x}-{int(m['end']):#x} "
                  f"{'shared' if shared else 'private'}, object #{obj}{label} "
                  f"offset {off:#x} (page {off // page_size})\n")
        shadow = int(m["shadow"])
        if not shared and shadow:
            h = heap.header(shadow)
            if heap.obj_page(h, off // page_size):
                gdb.write(f"  written since mapped: its private copy is page "
                          f"{off // page_size} of shadow object #{shadow}\n")
                return
        h = heap.header(obj)
        page = heap.obj_page(h, off // page_size)
        gdb.write(f"  the object's page: heap offset {page:#x}\n" if page else
                  "  the object has no such page yet: it reads as zeros\n")
