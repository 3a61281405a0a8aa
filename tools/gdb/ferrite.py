"""ferrite.py -- gdb commands that read Ferrite's state from a live or stopped machine.

`make debug` sources this file (so does `source tools/gdb/ferrite.py` in
any gdb that has build/ferrite.elf loaded). It adds, in the spirit of the
Linux kernel's scripts/gdb (lx-ps, lx-dmesg):

  fe-info          the heap: layout, size and use, epochs, the undo log, the
                   DRAM cache, power-ons
  fe-heap          objtool's info --stats from live memory: by type, slabs,
                   free runs, the log's high water, age
  fe-check [--committed]  objtool's check of the heap in memory (the running
                   epoch's changes included), or as a power cut would leave it
  fe-ls [PREFIX]   the catalogue, in the columns of osh's `ls -l`
  fe-obj ID|NAME   an object's header and, for kernel objects, their fields
  fe-ps            processes and their threads: state, what they wait on,
                   registers, and the CPU that runs each
  fe-cpus          the CPUs: what each runs or that it idles, the kernel lock
  fe-bt PID [TID]  a user thread's backtrace, with its program's symbols
  fe-log           the undo log of the running epoch, record by record
  fe-dmesg [LINES] the kernel's message ring (printk), oldest first
  fe-pt VA [PID]   a user address through the page tables to its frame, and
                   the object and offset that back it
  fe-snapshots     the heap's snapshots (osh's `snapshots`, and each node) and the area
  fe-epitaph       why the kernel panicked, if it did
  fe-user PROG     load build/user/bin/PROG's symbols, to break in user code
  $fe_pid()        the pid of the process running now on the CPU gdb looks
                   at (0: none), for breakpoint conditions: every program is
                   linked at 0x400000
  $fe_current()    that process's struct kproc (an error when none runs)
  $fe_proc(PID)    process PID's struct kproc
  $fe_obj(ID)      object ID: a kernel object as its structure (struct
                   kproc, kthread...), any other as its header

CPUs. QEMU's gdb stub shows each CPU as a thread (`info threads`; CPU n is
thread n + 1); the commands that depend on "now" look at the CPU gdb has
selected, fe-ps and fe-cpus at all of them.

How it reads. Everything comes from guest memory through the kernel's
DWARF: the kernel's globals (`kheap`, the open heap; `kroot`, the kernel's
root object; `cpus`, each CPU's scheduling state; `panic_epitaph`) and the layouts of the
structures (gdb.lookup_type), so the commands follow the code when a
structure gains or moves a field. The heap is walked as objstore walks it:
the id index (a radix tree of index pages) to an object's header, a paged
object's radix tree to its data pages, the catalogue B+-tree from the root
block (format.h, catalogue.c). A process's user memory is read through its
persistent address space (the kaspace mappings, the objects they show and
their copy-on-write shadows, as uvm.c resolves a fault), never through page
tables, which are a volatile cache that may not exist: so any process can
be read at any time, current or not. A page the DRAM cache holds
(kernel/uvm/pagecache.c) is read from its frame: that is the process's
memory now; the heap page holds it as of the last commit.

What DWARF cannot say. Preprocessor constants of the on-NVM format are not
in the debug info; the few the walks need are below, with the header they
come from. They are part of layout 1 and change only with the layout major
version, which every command checks first.

Errors. A command that cannot do its work says why in one line (the heap
is not open yet, genesis has not made the kernel root, no such process...)
and never shows a Python traceback; reads are bounded so a damaged heap
cannot make a command loop.
"""

import datetime
import os
import struct
import subprocess
import tempfile

import gdb

# --- the format's constants that DWARF does not carry ------------------------

LAYOUT_MAJORS = (1, 2)        # format.h OS_LAYOUT_OLDEST_MAJOR..OS_LAYOUT_MAJOR, the layouts these walks know
HEAP_MAGIC = b"FERRHEAP"       # format.h OS_MAGIC
PAGE_SIZE = 4096               # format.h OS_PAGE_SIZE
CACHE_LINE = 64                # format.h OS_CACHE_LINE
RADIX_SHIFT = 9                # format.h OS_RADIX_SHIFT (512 entries an index page)
RADIX_MASK = (1 << RADIX_SHIFT) - 1
ID_MAX_DEPTH = 7               # object_internal.h ID_MAX_DEPTH
CAT_MAGIC = 0x4E544143         # format.h OS_CAT_MAGIC, "CATN"
LOG_UNDO = 1                   # format.h enum os_log_kind
LOG_REDO = 3
APP_ROOT_KERNEL = 0            # format.h OS_APP_ROOT_KERNEL
APP_ROOT_MACHINE = 1           # format.h OS_APP_ROOT_MACHINE
MAP_SHARED = 0x10              # ferrite/syscall.h FE_MAP_SHARED
USER_BASE = 0x400000           # ferrite/syscall.h FE_USER_BASE
BT_MAX_FRAMES = 64             # fe-bt stops there (a loop in a damaged stack)
SNAP_HIDDEN = 1                # format.h OS_SNAP_HIDDEN: removed, kept while others need its list
SNAP_AUTO = 2                  # format.h OS_SNAP_AUTO: taken by the system
SNAP_ENTRIES_PER_PAGE = 512    # format.h OS_SNAP_ENTRIES_PER_PAGE
SNAP_TABLE_PAGES = 2           # format.h OS_SNAP_TABLE_PAGES
SNAP_NODES = 64                # format.h OS_SNAP_NODES
HHDM_BASE = 0xffff800000000000  # mm/phys.h: physical memory, mapped linearly

# Fields whose integers are values of an enum the kernel's DWARF knows.
ENUM_FIELDS = {
    ("kproc", "state"): "enum kproc_state",
    ("kthread", "state"): "enum kthread_state",
    ("kthread", "wait"): "enum kwait",
    ("kthread", "blocked_call"): "enum fe_syscall",
    ("fe_exit_info", "reason"): "enum fe_exit_reason",
}


class FeError(Exception):
    """Why a command cannot do its work, said to the user in one line."""


# --- guest memory and the kernel's symbols --------------------------------------

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


def array_bytes(value):
    """The bytes of a char or uint8_t array value."""
    return bytes(int(value[i]) & 0xFF for i in range(value.type.range()[1] + 1))


def cstring_bytes(data):
    """The bytes of a NUL-terminated string, without the NUL."""
    return data.split(b"\0", 1)[0]


def cstring(data):
    """A NUL-terminated byte string as text."""
    return cstring_bytes(data).decode("utf-8", "replace")


def escaped(name):
    """A name as osh prints it: control bytes and backslashes as \\xNN."""
    out = bytearray()
    for c in name:
        if c < 0x20 or c == 0x7F or c == 0x5C:
            out += f"\\x{c:02x}".encode()
        else:
            out.append(c)
    return out.decode("utf-8", "replace")


def size_text(n):
    """'64 MiB', '10.5 KiB', '100 B' (as objtool writes sizes)."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u, scale = 0, 1
    while u + 1 < len(units) and n >= scale * 1024:
        scale *= 1024
        u += 1
    return f"{n // scale} {units[u]}" if n % scale == 0 else f"{n / scale:.1f} {units[u]}"


def crc32c(data):
    """CRC-32C (Castagnoli), as objstore/crc32c.c computes it."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc_table():
    """The byte-at-a-time table of the reflected polynomial 0x82F63B78."""
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc_table()


# --- the heap -------------------------------------------------------------------

class Heap:
    """The kernel's open heap (`kheap`), read from guest memory."""

    def __init__(self):
        """Find the heap through `kheap`; refuse while it is not open."""
        kheap = symbol("kheap")
        self.base = int(kheap["base"])
        if not self.base:
            raise FeError("the heap is not open yet: kheap.base is NULL "
                          "(heap_init has not run in this power-on)")
        if read(self.base, 8) != HEAP_MAGIC:
            raise FeError(f"no heap at kheap.base {self.base:#x}: no "
                          f"{HEAP_MAGIC.decode()} magic")
        self.sb = typed(self.base, "struct os_superblock")
        if int(self.sb["layout_major"]) not in LAYOUT_MAJORS:
            raise FeError(f"the heap has layout {int(self.sb['layout_major'])}."
                          f"{int(self.sb['layout_minor'])}; these helpers know "
                          f"layouts {LAYOUT_MAJORS[0]}.x to {LAYOUT_MAJORS[-1]}.x")
        self.root = typed(self.base + int(self.sb["root_offset"]), "struct os_root")
        self.kheap = kheap

    def at(self, off, type_name):
        """The structure of `type_name` at heap offset off."""
        return typed(self.base + off, type_name)

    def page(self, off):
        """The 4 KiB at heap offset off."""
        return read(self.base + off, PAGE_SIZE)

    def data_page_index(self, off):
        """The data page number holding heap offset off, None outside the data pages."""
        rel = off - int(self.sb["data_offset"])
        if off < int(self.sb["data_offset"]) or rel // PAGE_SIZE >= int(self.sb["page_count"]):
            return None
        return rel // PAGE_SIZE

    def check_page(self, off, what):
        """Refuse to follow `off` unless it starts a data page."""
        n = self.data_page_index(off)
        if n is None or (off - int(self.sb["data_offset"])) % PAGE_SIZE:
            raise FeError(f"{what}: offset {off:#x} is not a data page: the heap is damaged")

    def radix(self, top, depth, key, what):
        """Follow `key` down a radix tree of `depth` levels from `top`; the leaf or 0."""
        cur = top
        for level in reversed(range(depth)):
            if not cur:
                return 0
            self.check_page(cur, what)
            digit = (key >> (RADIX_SHIFT * level)) & RADIX_MASK
            cur = u64(self.base + cur + 8 * digit)
        return cur

    def header_offset(self, oid):
        """The heap offset of object oid's header, None if there is no such object."""
        r = self.root
        if oid <= 0 or oid >= int(r["next_object_id"]) or not int(r["index_root"]):
            return None
        depth = int(r["index_depth"])
        if depth > ID_MAX_DEPTH:
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
        if index * PAGE_SIZE >= int(h["size"]):
            return 0
        return self.radix(int(h["data"]), int(h["depth"]), index,
                          f"object #{int(h['id'])}")

    def obj_pages(self, h):
        """How many data pages paged object h has (a walk of its radix tree)."""
        if int(h["placement"]) != placement("OS_PLACE_PAGED") or not int(h["data"]):
            return 0
        budget = [1 << 20]

        def under(off, level):
            """Data pages under index page off at `level`."""
            budget[0] -= 1
            if budget[0] < 0:
                raise FeError(f"object #{int(h['id'])}: its page tree does not end")
            if level == 0:
                return 1
            self.check_page(off, f"object #{int(h['id'])}")
            entries = struct.unpack("<512Q", self.page(off))
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


def placement(name):
    """The value of an enum os_placement enumerator."""
    for field in lookup_type("enum os_placement").fields():
        if field.name == name:
            return field.enumval
    raise FeError(f"the kernel's debug info has no {name}")


# --- the catalogue -----------------------------------------------------------------

def catalogue(heap, prefix=b""):
    """(name, id) of every name starting with prefix, in order (a B+-tree walk)."""
    node_t = lookup_type("struct os_cat_node")
    entry_t = lookup_type("struct os_cat_entry")
    name_off = entry_t.sizeof
    budget = [int(heap.root["catalogue_count"]) * 2 + 64]

    def entries(data, node):
        """The (key, value) of every slot of a node, in slot order."""
        out = []
        for i in range(int(node["count"])):
            slot = struct.unpack_from("<Q", data, node_t.sizeof + 8 * i)[0]
            off = slot & 0xFFF
            if off + name_off > PAGE_SIZE:
                raise FeError("a catalogue slot points past its node: the catalogue is damaged")
            e = typed_bytes(data, off, "struct os_cat_entry")
            n = int(e["len"])
            out.append((data[off + name_off:off + name_off + n], int(e["value"])))
        return out

    def visit(off, level, lo, hi):
        """Yield the wanted names under node off, whose keys lie in [lo, hi)."""
        budget[0] -= 1
        if budget[0] < 0:
            raise FeError("the catalogue has more nodes than its names allow: it is damaged")
        heap.check_page(off, "catalogue node")
        data = heap.page(off)
        node = typed_bytes(data, 0, "struct os_cat_node")
        if int(node["magic"]) != CAT_MAGIC or (level is not None and int(node["level"]) != level):
            raise FeError(f"no catalogue node at heap offset {off:#x}: the catalogue is damaged")
        items = entries(data, node)
        if int(node["level"]) == 0:
            for key, value in items:
                if key.startswith(prefix):
                    yield key, value
            return
        children = [int(node["first"])] + [value for _, value in items]
        keys = [key for key, _ in items]
        for c, child in enumerate(children):
            c_lo = keys[c - 1] if c > 0 else lo
            c_hi = keys[c] if c < len(keys) else hi
            if c_hi is not None and c_hi <= prefix:
                continue  # every key below c_hi sorts before any name with the prefix
            if c_lo is not None and c_lo > prefix and not c_lo.startswith(prefix):
                break     # every key from c_lo on sorts after them
            yield from visit(child, int(node["level"]) - 1, c_lo, c_hi)

    top = int(heap.root["catalogue_root"])
    if top:
        yield from visit(top, None, None, None)


def names_of(heap, oid):
    """Every name bound to object oid (a scan of the catalogue)."""
    return [name for name, value in catalogue(heap) if value == oid]


def resolve(heap, text):
    """An object id from '#ID', 'ID' or a catalogue name."""
    digits = text[1:] if text.startswith("#") else text
    if digits.isdigit():
        return int(digits)
    key = text.encode()
    for name, value in catalogue(heap, key):
        if name == key:
            return value
    raise FeError(f"no object named '{text}'")


# --- processes ----------------------------------------------------------------------

class Kernel:
    """The kernel's root object and its process table."""

    def __init__(self, heap):
        """Find the kernel root; refuse before genesis made it."""
        self.heap = heap
        root_id = int(heap.root["app_roots"][APP_ROOT_KERNEL])
        kroot_ptr = int(symbol("kroot"))
        if not root_id or not kroot_ptr:
            raise FeError("no kernel root yet: genesis is not complete "
                          "(kobj_root_init has not made or found it in this power-on)")
        self.root_id = root_id
        self.kroot = heap.small(root_id, "struct kroot")

    def processes(self):
        """(slot, process id, struct kproc) of every live process, by slot."""
        procs = self.kroot["procs"]
        for slot in range(procs.type.range()[1] + 1):
            pid_obj = int(procs[slot])
            if pid_obj:
                yield slot, pid_obj, self.heap.small(pid_obj, "struct kproc")

    def process(self, pid):
        """(slot, object id, kproc) of the live process `pid`."""
        for slot, oid, proc in self.processes():
            if int(proc["pid"]) == pid:
                return slot, oid, proc
        raise FeError(f"no live process with pid {pid} (fe-ps lists them)")


def selected_cpu():
    """The CPU gdb looks at: QEMU's gdb stub shows CPU n as thread n + 1."""
    thread = gdb.selected_thread()
    return thread.num - 1 if thread is not None else 0


def online_cpus():
    """The CPU numbers that run (core/smp.c's cpus[])."""
    cpus = symbol("cpus")
    return [i for i in range(cpus.type.range()[1] + 1) if bool(cpus[i]["online"])]


def max_threads():
    """Threads a process may have (KPROC_MAX_THREADS: struct pctx's array)."""
    return lookup_type("struct pctx")["thread"].type.range()[1] + 1


def running_slot(cpu=None):
    """The process-table slot whose thread's registers are live on a CPU
    (default: the one gdb looks at), -1 if none."""
    running = int(symbol("cpus")[selected_cpu() if cpu is None else cpu]["running"])
    return running // max_threads() if running >= 0 else -1


def cpu_of_thread(slot, tid):
    """The CPU that runs thread `tid` of the process in `slot`, -1 if none
    (sched.c's thread_cpu, by thread index slot * KPROC_MAX_THREADS + tid)."""
    return int(symbol("'sched.c'::thread_cpu")[slot * max_threads() + tid])


def threads_of(heap, proc):
    """(object id, struct kthread) of each thread of a process, in list
    order (kproc.thread, then each kthread.next), at most max_threads()."""
    oid = int(proc["thread"])
    for _ in range(max_threads()):
        if not oid:
            return
        thread = heap.small(oid, "struct kthread")
        yield oid, thread
        oid = int(thread["next"])


def on_cpu(cpu, read):
    """read() with gdb looking at CPU `cpu` (its registers), then back."""
    here = gdb.selected_thread()
    for thread in gdb.selected_inferior().threads():
        if thread.num == cpu + 1:
            thread.switch()
            try:
                return read()
            finally:
                here.switch()
    raise FeError(f"gdb shows no thread for cpu {cpu}")


def held(slot, oid):
    """Whether a safe power-on holds process `oid` in `slot` (sched.c, volatile)."""
    return (int(symbol("'sched.c'::holding")) != 0
            and int(symbol("'sched.c'::held")[slot]) == oid)


def in_user_mode():
    """Whether the CPU gdb looks at was stopped in ring 3."""
    try:
        return int(gdb.newest_frame().read_register("cs")) & 3 == 3
    except gdb.error:
        return False


def live_regs():
    """(rip, rsp, rbp) of the CPU gdb looks at, or None in kernel mode."""
    if not in_user_mode():
        return None
    frame = gdb.newest_frame()
    return (int(frame.read_register("rip")), int(frame.read_register("rsp")),
            int(frame.read_register("rbp")))


def user_regs(slot, thread):
    """(rip, rsp, rbp, where from) of a thread: live if it runs, else saved."""
    cpu = cpu_of_thread(slot, int(thread["tid"]))
    if cpu >= 0:
        live = on_cpu(cpu, live_regs)
        if live is not None:
            return live + (f"live in cpu {cpu} (it runs in user mode)",)
        top = int(symbol("cpu_locals")[cpu]["kernel_stack_top"])
        tf_t = lookup_type("struct trap_frame")
        tf = typed(top - tf_t.sizeof, "struct trap_frame")
        return (int(tf["rip"]), int(tf["rsp"]), int(tf["rbp"]),
                f"in cpu {cpu}'s trap frame: it is in a system call or interrupt now")
    regs = thread["regs"]
    return (int(regs["rip"]), int(regs["rsp"]), int(regs["rbp"]),
            "saved in its thread object")


def number_of(k, oid, struct, field):
    """' (FIELD N)' of kernel object oid, or '' if it cannot be read."""
    try:
        return f" ({field} {int(k.heap.small(oid, f'struct {struct}')[field])})"
    except FeError:
        return ""


def wait_text(k, thread):
    """What a blocked thread waits for, in words."""
    wait = int(thread["wait"])
    obj = int(thread["wait_obj"])
    name = enum_name("enum kwait", wait)
    if name == "KWAIT_SLEEP":
        return (f"sleeping until {int(thread['wake_ns']) / 1e9:.3f} s monotonic "
                f"(last commit at {int(k.kroot['mono_ns']) / 1e9:.3f} s)")
    if name == "KWAIT_PROCESS":
        return f"waiting for process #{obj}{number_of(k, obj, 'kproc', 'pid')} to end"
    if name == "KWAIT_CHANNEL":
        return f"waiting on channel #{obj}"
    if name == "KWAIT_THREAD":
        return f"waiting for thread #{obj}{number_of(k, obj, 'kthread', 'tid')} to exit"
    if name == "KWAIT_FUTEX":
        return f"waiting on the futex at {obj:#x}"
    if name == "KWAIT_CONSOLE":
        return "waiting for console input"
    if name == "KWAIT_CONSOLE_OUT":
        return "waiting for queued console output to go out"
    if name == "KWAIT_LINK":
        return "waiting for bytes from the host link"
    if name == "KWAIT_LINK_OUT":
        return "waiting for room in the host link's output"
    return f"waiting ({name}, object #{obj})"


def anon_pages(heap, aspace):
    """Pages of memory a process made, as osh's ps counts them (uvm_pages)."""
    seen, pages = set(), 0
    anon = enum_value("enum os_obj_type", "OS_TYPE_ANON")
    for i in range(int(aspace["count"])):
        m = aspace["map"][i]
        for oid in (int(m["shadow"]), int(m["object"])):
            if not oid or oid in seen:
                continue
            seen.add(oid)
            try:
                h = heap.header(oid)
            except FeError:
                continue
            if int(h["type"]) == anon:
                pages += heap.obj_pages(h)
    return pages


def enum_value(type_name, name):
    """The value of enumerator `name` of `type_name`."""
    for field in lookup_type(type_name).fields():
        if field.name == name:
            return field.enumval
    raise FeError(f"the kernel's debug info has no {name}")


# --- user memory, through the address space objects --------------------------------------

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
        for i in range(int(self.aspace["count"])):
            m = self.aspace["map"][i]
            if int(m["start"]) <= va < int(m["end"]):
                return m
        return None

    def page(self, va):
        """The 4 KiB of user page va (rounded down); None if not mapped."""
        m = self.mapping(va)
        if m is None:
            return None
        index = (int(m["offset"]) + (va - int(m["start"]))) // PAGE_SIZE
        if int(m["flags"]) & MAP_SHARED:
            return self.object_page(int(m["object"]), index, None)
        if int(m["shadow"]):
            data = self.object_page(int(m["shadow"]), index, None, missing=None)
            if data is not None:
                return data
        return self.object_page(int(m["object"]), index, int(m["limit"]))

    def object_page(self, oid, index, limit, missing=b"\0" * PAGE_SIZE):
        """Page `index` of object oid, bytes at or past `limit` as zero; `missing` if absent."""
        frame = self.cached.get((oid, index))
        if frame is not None:
            data = read(HHDM_BASE + frame, PAGE_SIZE)
        else:
            h = self.heap.header(oid)
            off = self.heap.obj_page(h, index)
            if not off:
                return missing
            data = self.heap.page(off)
        if limit is not None and limit < (index + 1) * PAGE_SIZE:
            keep = max(0, limit - index * PAGE_SIZE)
            data = data[:keep] + b"\0" * (PAGE_SIZE - keep)
        return data

    def read(self, va, size):
        """`size` bytes of user memory at va; None if any of it is not mapped."""
        out = b""
        while size > 0:
            data = self.page(va & ~(PAGE_SIZE - 1))
            if data is None:
                return None
            start = va % PAGE_SIZE
            chunk = data[start:start + size]
            out += chunk
            va += len(chunk)
            size -= len(chunk)
        return out

    def u64(self, va):
        """The 64-bit word at user address va, None if not mapped."""
        data = self.read(va, 8)
        return None if data is None else struct.unpack("<Q", data)[0]


# --- user programs' symbols ------------------------------------------------------------------

def build_dir():
    """The build directory: where the kernel's ELF gdb has loaded lives."""
    name = gdb.current_progspace().filename
    if not name:
        raise FeError("no kernel symbols loaded: file build/ferrite.elf")
    return os.path.dirname(os.path.abspath(name))


def program_path(prog):
    """build/user/bin/PROG, refused with the list of programs if it is not there."""
    bindir = os.path.join(build_dir(), "user", "bin")
    path = os.path.join(bindir, prog)
    if "/" in prog or not os.path.isfile(path):
        known = sorted(os.listdir(bindir)) if os.path.isdir(bindir) else []
        raise FeError(f"no program '{prog}' in {bindir}"
                      + (f" (there are: {', '.join(known)})" if known else " (run make)"))
    return path


_user_symbols = [None]  # the program whose symbols fe-user (or fe-bt) loaded


def load_user_symbols(prog):
    """Make PROG's symbols the user program's in gdb (replacing another's); whether it changed."""
    path = program_path(prog)
    if _user_symbols[0] == path:
        return False
    confirm = gdb.parameter("confirm")
    gdb.execute("set confirm off")
    try:
        if _user_symbols[0]:
            gdb.execute(f"remove-symbol-file {_user_symbols[0]}", to_string=True)
            _user_symbols[0] = None
        # Linked at its final address (user/user.ld): no offset to give.
        gdb.execute(f"add-symbol-file {path}", to_string=True)
        _user_symbols[0] = path
    finally:
        gdb.execute(f"set confirm {'on' if confirm else 'off'}")
    return True


def describe_pc(pc, caller):
    """'func () at file:line' for a user pc (a return address if caller),
    with the functions inlined at that point."""
    look = pc - 1 if caller else pc
    names = []
    block = gdb.block_for_pc(look)
    while block is not None:
        if block.function is not None:
            names.append(block.function.print_name)
        block = block.superblock
    sal = gdb.find_pc_line(look)
    where = f" at {sal.symtab.filename}:{sal.line}" if sal.symtab else ""
    if not names:
        return f"??{where}"
    inlined = f" [inlined: {' <- '.join(names[:-1])}]" if len(names) > 1 else ""
    return f"{names[-1]} (){inlined}{where}"


def function_start(pc):
    """The first address of the function holding pc, None if unknown."""
    block = gdb.block_for_pc(pc)
    while block is not None and block.function is None:
        block = block.superblock
    return block.start if block is not None else None


PROLOGUE = b"\x55\x48\x89\xe5"  # push %rbp; mov %rsp,%rbp


def frame_setup(mem, pc):
    """How far the function holding pc has set up its frame: 'none' (no
    push %rbp; mov %rsp,%rbp before pc -- a frameless leaf, which gcc makes
    even with -fno-omit-frame-pointer, or before the prologue -- or at a
    ret), 'pushed' (between the two), or 'done'."""
    if mem.read(pc, 1) == b"\xc3":
        return "none"
    start = function_start(pc)
    if start is None:
        return "done"
    code = mem.read(start, pc - start) if pc > start else b""
    at = (code or b"").rfind(PROLOGUE)
    if at < 0:
        return "pushed" if code and code.endswith(PROLOGUE[:1]) else "none"
    return "done" if start + at + len(PROLOGUE) <= pc else "pushed"


def backtrace(mem, rip, rsp, rbp):
    """The (pc, is_caller) of each frame: frame pointers, as -fno-omit-frame-pointer keeps them."""
    frames = [(rip, False)]
    setup = frame_setup(mem, rip)
    if setup != "done":
        ret = mem.u64(rsp if setup == "none" else rsp + 8)
        if setup == "pushed":
            rbp = mem.u64(rsp)
        if ret is None:
            return frames
        frames.append((ret, True))
    fp = rbp
    while fp and len(frames) < BT_MAX_FRAMES:
        if fp % 8:
            break
        ret, next_fp = mem.u64(fp + 8), mem.u64(fp)
        if ret is None or next_fp is None or ret < USER_BASE:
            break
        frames.append((ret, True))
        if next_fp <= fp:
            break
        fp = next_fp
    return frames


# --- printing kernel structures --------------------------------------------------------

def int_text(n):
    """A number: decimal, with hex beside it when it is large."""
    return f"{n} ({n:#x})" if n >= 0x10000 else str(n)


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


# --- the commands ---------------------------------------------------------------------

class FeCommand(gdb.Command):
    """A Ferrite command: FeError and gdb errors become one line, never a traceback."""

    def __init__(self, name):
        """Register the command under `name`."""
        super().__init__(name, gdb.COMMAND_USER)
        self.name = name

    def invoke(self, arg, from_tty):
        """Run the command, turning every failure into one clear line."""
        try:
            self.run(arg.strip())
        except FeError as e:
            gdb.write(f"{self.name}: {e}\n")
        except gdb.MemoryError as e:
            gdb.write(f"{self.name}: cannot read guest memory ({e}): the "
                      f"structure is not mapped at this point\n")
        except gdb.error as e:
            gdb.write(f"{self.name}: {e}\n")
        except Exception as e:  # a bug here: still one line, never a traceback
            gdb.write(f"{self.name}: internal error in tools/gdb/ferrite.py: "
                      f"{type(e).__name__}: {e}\n")

    def run(self, arg):
        """The command's work (each command defines it)."""
        raise NotImplementedError


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
        free = int(r["free_top"]) + int(r["pages_unformatted"])
        epoch = int(sb["committed_epoch"])
        w = gdb.write
        w(f"layout version:   {int(sb['layout_major'])}.{int(sb['layout_minor'])}\n")
        w(f"heap id:          {hid[:8]}-{hid[8:12]}-{hid[12:16]}-{hid[16:20]}-{hid[20:]}\n")
        w(f"heap:             {int(sb['heap_size'])} bytes at {heap.base:#x}\n")
        w(f"size:             {size_text(int(sb['heap_size']))} ({int(sb['heap_size'])} bytes)\n")
        w(f"data pages:       {pages} of {PAGE_SIZE} bytes: {pages - free} used, "
          f"{free} free ({size_text(free * PAGE_SIZE)})\n")
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


class FeLs(FeCommand):
    """fe-ls [PREFIX]: the catalogue, in the columns of osh's `ls -l`."""

    def __init__(self):
        """Register fe-ls."""
        super().__init__("fe-ls")

    def run(self, arg):
        """Walk the catalogue B+-tree and print every name under the prefix."""
        heap = Heap()
        prefix = arg.encode()
        gdb.write(f"{'ID':<8} {'TYPE':<7} {'SIZE':>12} {'REFS':>4} {'EPOCH':>8}  NAME\n")
        shown = 0
        for name, oid in catalogue(heap, prefix):
            try:
                h = heap.header(oid)
                row = (f"{'#' + str(oid):<8} {heap.type_name(int(h['type'])):<7} "
                       f"{int(h['size']):>12} {int(h['refcount']):>4} "
                       f"{int(h['modified_epoch']):>8}  ")
            except FeError:
                row = f"{'#' + str(oid):<8} {'?':<7} {'?':>12} {'?':>4} {'?':>8}  "
            gdb.write(row + escaped(name) + "\n")
            shown += 1
        if not shown and prefix:
            gdb.write(f"fe-ls: no name starts with '{arg}'\n")


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
    if oid == int(roots[APP_ROOT_KERNEL]):
        return "kroot"
    if oid == int(roots[APP_ROOT_MACHINE]):
        return "kclock"
    try:
        if oid == int(Kernel(heap).kroot["console"]):
            return "kconsole"
    except FeError:
        pass
    return None


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
        crc_ok = crc32c(raw[:-4]) == int(h["crc"])
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


class FeCpus(FeCommand):
    """fe-cpus: each CPU, what it runs, and who holds the kernel lock."""

    def __init__(self):
        """Register fe-cpus."""
        super().__init__("fe-cpus")

    def run(self, arg):
        """One line per online CPU."""
        cpus = symbol("cpus")
        holder = int(symbol("'smp.c'::lock")["holder"])
        heap = Heap()
        k = Kernel(heap)
        names = {slot: (int(proc["pid"]), cstring(array_bytes(proc["name"])))
                 for slot, _, proc in k.processes()}
        for i in online_cpus():
            c = cpus[i]
            apic = int(symbol("cpu_locals")[i]["apic_id"])
            slot = running_slot(i)
            if bool(c["idle"]):
                what = "idle (halted)"
            elif slot >= 0 and slot in names:
                pid, name = names[slot]
                tid = int(c["running"]) % max_threads()
                mode = "user mode" if on_cpu(i, in_user_mode) else "the kernel"
                what = f"runs pid {pid} ({name}) thread {tid}, now in {mode}"
            else:
                what = "in the kernel, no thread"
            lock = ", holds the kernel lock" if holder == i else ""
            gdb.write(f"cpu {i} (APIC id {apic}): {what}{lock}; "
                      f"busy {int(c['busy_ns']) // 1000000} ms this power-on\n")


class FePs(FeCommand):
    """fe-ps: processes and their threads: state, what they wait on, registers."""

    def __init__(self):
        """Register fe-ps."""
        super().__init__("fe-ps")

    def run(self, arg):
        """One line per process in osh's ps columns, two per thread under it."""
        heap = Heap()
        k = Kernel(heap)
        runnable = enum_value("enum kthread_state", "KTHREAD_RUNNABLE")
        rows = sorted(k.processes(), key=lambda p: int(p[2]["pid"]))
        gdb.write(f"{'PID':>6} {'PARENT':>6} {'STATE':<13} {'CPU_MS':>10} {'PAGES':>6}  NAME\n")
        for slot, oid, proc in rows:
            threads = list(threads_of(heap, proc))
            aspace = heap.small(int(proc["aspace"]), "struct kaspace")
            state = ("runnable" if any(int(t["state"]) == runnable for _, t in threads)
                     else "blocked")
            if held(slot, oid):
                state = "held," + state
            gdb.write(f"{int(proc['pid']):>6} {int(proc['parent_pid']):>6} {state:<13} "
                      f"{int(proc['cpu_ns']) // 1000000:>10} {anon_pages(heap, aspace):>6}  "
                      f"{cstring(array_bytes(proc['name']))}\n")
            for tid_oid, thread in threads:
                self.thread_line(k, slot, oid, tid_oid, thread, runnable)
        if not rows:
            gdb.write("(no processes)\n")

    def thread_line(self, k, slot, oid, tid_oid, thread, runnable):
        """A thread under its process: state, wait, registers."""
        tid = int(thread["tid"])
        cpu = cpu_of_thread(slot, tid)
        if cpu >= 0:
            what = f"running now on cpu {cpu}"
        elif int(thread["state"]) == runnable:
            what = "runnable"
        elif int(thread["state"]) == enum_value("enum kthread_state", "KTHREAD_EXITED"):
            gdb.write(f"{'':>15}process #{oid}, slot {slot}, thread #{tid_oid} (tid {tid}): "
                      f"exited with status {int(thread['exit_status'])}, not yet joined\n")
            return
        else:
            call = enum_name("enum fe_syscall", int(thread["blocked_call"]))
            what = f"blocked in {call}, {wait_text(k, thread)}"
        rip, rsp, _, where = user_regs(slot, thread)
        gdb.write(f"{'':>15}process #{oid}, slot {slot}, thread #{tid_oid} (tid {tid}): {what}\n")
        gdb.write(f"{'':>15}rip {rip:#x} rsp {rsp:#x} ({where})\n")


class FeBt(FeCommand):
    """fe-bt PID: a user thread's backtrace from its registers, with its program's symbols."""

    def __init__(self):
        """Register fe-bt."""
        super().__init__("fe-bt")

    def run(self, arg):
        """Unwind the thread's user stack by frame pointers and name each frame."""
        words = arg.split()
        if not 1 <= len(words) <= 2 or not all(w.isdigit() for w in words):
            raise FeError("usage: fe-bt PID [TID] (fe-ps lists them; TID defaults to the first thread)")
        heap = Heap()
        k = Kernel(heap)
        slot, oid, proc = k.process(int(words[0]))
        threads = list(threads_of(heap, proc))
        if len(words) == 2:
            threads = [t for t in threads if int(t[1]["tid"]) == int(words[1])]
            if not threads:
                raise FeError(f"pid {words[0]} has no thread {words[1]} (fe-ps lists them)")
        tid_oid, thread = threads[0]
        prog = cstring(array_bytes(proc["name"]))
        changed = load_user_symbols(os.path.basename(prog))
        rip, rsp, rbp, where = user_regs(slot, thread)
        mem = UserMemory(heap, proc)
        gdb.write(f"pid {words[0]} ({prog}), thread #{tid_oid} (tid {int(thread['tid'])}), "
                  f"registers {where}\n")
        for i, (pc, caller) in enumerate(backtrace(mem, rip, rsp, rbp)):
            gdb.write(f"#{i:<2} {pc:#018x} in {describe_pc(pc, caller)}\n")
        if changed:
            gdb.write(f"(the symbols of {prog} are now loaded, as `fe-user {prog}` does)\n")


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
            undo_bytes += length if kind == LOG_UNDO else 0
            data = length if kind in (LOG_UNDO, LOG_REDO) else 0
            size = -(-(e.type.sizeof + data) // CACHE_LINE) * CACHE_LINE
            pos += size
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
        if off < int(sb["stack_offset"]):
            page = (off - int(sb["desc_offset"])) // lookup_type("struct os_page_desc").sizeof
            return f"page descriptor of data page {page}"
        if off < int(sb["data_offset"]):
            return "free-page stack"
        if int(sb["snap_size"]) and off >= int(sb["snap_offset"]):
            return snapshot_region(heap, off - int(sb["snap_offset"]))
        page = heap.data_page_index(off)
        if page is None:
            return "past the heap"
        desc = heap.at(int(sb["desc_offset"]) + page * lookup_type("struct os_page_desc").sizeof,
                       "struct os_page_desc")
        kind = enum_name("enum os_page_kind", int(desc["kind"]))
        if kind == "OS_PAGE_SLAB":
            return f"data page {page}, a slab of {64 << int(desc['size_class'])}-byte blocks"
        return f"data page {page}, {'a whole page' if kind == 'OS_PAGE_WHOLE' else kind}"


class FeDmesg(FeCommand):
    """fe-dmesg [LINES]: the kernel's message ring (printk_ring), oldest
    first: what the console printed, and during power-on what it has not
    printed yet; the last LINES lines only, if given."""

    def __init__(self):
        """Register fe-dmesg."""
        super().__init__("fe-dmesg")

    def run(self, arg):
        """Read the ring's bytes up to printk_ring_head, in order."""
        if arg and not arg.isdigit():
            raise FeError(f"'{arg}' is not a line count (usage: fe-dmesg [LINES])")
        head = int(symbol("printk_ring_head"))
        ring = symbol("printk_ring")
        size = ring.type.sizeof
        base = int(ring.address)
        kept = min(head, size)
        start = (head - kept) % size
        first = read(base + start, min(kept, size - start)) if kept else b""
        data = first + (read(base, kept - len(first)) if kept > len(first) else b"")
        lost = head - kept
        if lost:
            # the oldest kept line is cut: start at the first whole one
            cut = data.find(b"\n") + 1
            lost += cut
            data = data[cut:]
        text = data.decode("utf-8", "replace")
        if arg:
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(arg):]) if int(arg) else ""
        elif lost:
            gdb.write(f"({lost} older bytes were overwritten)\n")
        gdb.write(text)
        if text and not text.endswith("\n"):
            gdb.write("\n")


class Snapshots:
    """The snapshot area of the kernel's heap (`kheap.snap`), read from memory."""

    def __init__(self, heap):
        """The area header and its node table; FeError if the heap has no area."""
        area = int(heap.kheap["snap"])
        if not area:
            raise FeError("this heap has no snapshot area (made by a layout 1 Ferrite)")
        self.area = typed(area, "struct os_snap_area")
        node_type = lookup_type("struct os_snap_node")
        table = read(int(heap.kheap["snap_nodes"]), SNAP_NODES * node_type.sizeof)
        self.nodes = [typed_bytes(table, i * node_type.sizeof, "struct os_snap_node")
                      for i in range(SNAP_NODES)]
        gen = int(self.area["table_gen"])
        self.in_use = [i for i, n in enumerate(self.nodes) if int(n["gen"]) == gen]

    def children(self, i):
        """The nodes in use stored relative to node i (whose parent it is)."""
        return [c for c in self.in_use if int(self.nodes[c]["parent"]) == i + 1]

    def pages(self, i):
        """Area pages node i's list takes: copies, list pages, directory (snapshot.c list_pages)."""
        n = self.nodes[i]
        count = int(n["count"])
        if not count:
            return 1 if int(n["dir"]) else 0
        return count + -(-count // SNAP_ENTRIES_PER_PAGE) + 1

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
    table = PAGE_SIZE * (1 + SNAP_TABLE_PAGES)
    maps = table + PAGE_SIZE * int(a["map_pages"])
    stack = maps + PAGE_SIZE * int(a["stack_pages"])
    if rel < PAGE_SIZE:
        return "the snapshot area's header"
    if rel < table:
        return f"snapshot node {(rel - PAGE_SIZE) // lookup_type('struct os_snap_node').sizeof}"
    if rel < maps:
        return "the snapshot area's head map"
    if rel < stack:
        return "the snapshot area's free stack"
    return f"snapshot area page {(rel - stack) // PAGE_SIZE}"


def utc_text(ns):
    """Wall-clock ns since 1970 as osh prints it, 'YYYY-MM-DD HH:MM:SS' (UTC); '-' for 0."""
    if not ns:
        return "-"
    return datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc) \
        .strftime("%Y-%m-%d %H:%M:%S")


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
            hidden = flags & SNAP_HIDDEN
            name = "(removed)" if hidden else cstring(array_bytes(n["name"]))
            words = (["newest"] if int(a["head"]) == i + 1 else []) + \
                (["boot"] if int(a["boot"]) == i + 1 else []) + \
                (["auto"] if flags & SNAP_AUTO else []) + (["removed"] if hidden else [])
            parent = int(n["parent"])
            row = (f"{name:<24} {int(n['epoch']):>8}  {utc_text(int(n['time_ns'])):<19} "
                   f"{snaps.pages(i):>7} {snaps.held(i):>7}  {i:>4} "
                   f"{parent - 1 if parent else 'live':>6}  {' '.join(words)}")
            gdb.write(row.rstrip() + "\n")
        if not snaps.in_use:
            gdb.write("(no snapshots)\n")
        free, total = snaps.free_pages(), int(a["data_pages"])
        gdb.write(f"area: {free} of {total} pages free ({size_text(free * PAGE_SIZE)} of "
                  f"{size_text(total * PAGE_SIZE)}); power-on snapshots kept: {int(a['keep'])}\n")
        gdb.write(f"area: {int(a['high_water'])} pages ever handed out, {int(a['free_top'])} "
                  f"on the free stack; dropped {int(a['dropped'])} times when full; "
                  f"table generation {int(a['table_gen'])}\n")
        if int(a["restore_target"]):
            gdb.write(f"restore: into node {int(a['restore_target']) - 1} in progress, the "
                      f"replaced state to node {int(a['restore_before']) - 1}; step "
                      f"{int(a['restore_step'])}, entry {int(a['restore_entry'])}\n")


class FeEpitaph(FeCommand):
    """fe-epitaph: why the kernel panicked (panic_epitaph), if it did."""

    def __init__(self):
        """Register fe-epitaph."""
        super().__init__("fe-epitaph")

    def run(self, arg):
        """Print panic_epitaph, or say there was no panic."""
        epitaph = symbol("panic_epitaph")
        text = cstring(array_bytes(epitaph))
        if text:
            gdb.write(f"panic: {text}\n")
        else:
            gdb.write("no panic in this power-on (panic_epitaph is empty)\n")


class FeUser(FeCommand):
    """fe-user PROG: load build/user/bin/PROG's symbols at its link address."""

    def __init__(self):
        """Register fe-user."""
        super().__init__("fe-user")

    def run(self, arg):
        """add-symbol-file the program, replacing another program's symbols."""
        if not arg:
            loaded = _user_symbols[0]
            gdb.write(f"user symbols: {loaded or 'none'} (usage: fe-user PROG)\n")
            return
        path = program_path(arg)
        load_user_symbols(arg)
        gdb.write(f"symbols of {arg} loaded from {path} at {USER_BASE:#x}; every "
                  f"program is linked there, so break with a condition, e.g.\n"
                  f"  break main if $fe_pid() == PID\n")


class FePid(gdb.Function):
    """$fe_pid(): the pid of the process whose registers are live now, 0 if none."""

    def __init__(self):
        """Register $fe_pid."""
        super().__init__("fe_pid")

    def invoke(self):
        """The running process's pid, read from its process object."""
        try:
            slot = running_slot()
            # ptable.c's cache of the running slot is always loaded (sched_run_next).
            return int(gdb.parse_and_eval(f"'ptable.c'::ctx[{slot}].proc->pid")) if slot >= 0 else 0
        except (FeError, gdb.error):
            return 0


class FeHeap(FeCommand):
    """fe-heap: objtool info --stats from live memory: objects, bytes and
    bytes held by type; slabs by block size; whole pages; free pages, runs
    and the largest; fragmentation; the log's high water; the heap's age."""

    SIZE_CLASSES = 6               # format.h OS_SIZE_CLASSES
    PAGE_FREE, PAGE_SLAB, PAGE_WHOLE = 0, 1, 2  # format.h enum os_page_kind

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
            held[t] = held.get(t, 0) + (heap.obj_pages(h) * PAGE_SIZE
                                        if int(h["placement"]) == paged else int(h["size"]))
        gdb.write(f"objects by type:  {'TYPE':<10} {'OBJECTS':>8} {'BYTES':>14} {'HELD':>14}\n")
        for t in sorted(count):
            gdb.write(f"                  {heap.type_name(t):<10} {count[t]:>8} {size[t]:>14} "
                      f"{held[t]:>14}\n")

    def pages(self, heap):
        """Slabs, whole pages and free runs from the page descriptors below
        the never-used tail, which is one free run of its own."""
        sb = heap.sb
        desc = lookup_type("struct os_page_desc")
        at = {f.name: f.bitpos // 8 for f in desc.fields()}
        tail = int(heap.root["pages_unformatted"])
        n = int(sb["page_count"]) - tail
        raw = read(heap.base + int(sb["desc_offset"]), n * desc.sizeof)
        slabs, used = [0] * self.SIZE_CLASSES, [0] * self.SIZE_CLASSES
        whole = free = runs = run = largest = 0
        for p in range(n):
            base = p * desc.sizeof
            kind, size_class = raw[base + at["kind"]], raw[base + at["size_class"]]
            if kind == self.PAGE_FREE:
                free += 1
                runs += run == 0
                run += 1
                largest = max(largest, run)
                continue
            run = 0
            if kind == self.PAGE_WHOLE:
                whole += 1
            elif kind == self.PAGE_SLAB and size_class < self.SIZE_CLASSES:
                slabs[size_class] += 1
                used[size_class] += struct.unpack_from("<H", raw, base + at["used"])[0]
        if tail:
            free += tail
            runs += run == 0
            largest = max(largest, run + tail)
        gdb.write(f"slabs:            {'BLOCK':<10} {'PAGES':>8} {'BLOCKS USED':>14} "
                  f"{'OCCUPANCY':>14}\n")
        for c in range(self.SIZE_CLASSES):
            if slabs[c]:
                slots = slabs[c] * (PAGE_SIZE >> (c + 6))
                gdb.write(f"                  {64 << c:<10} {slabs[c]:>8} {used[c]:>14} "
                          f"{used[c] * 100 // slots:>13}%\n")
        gdb.write(f"whole pages:      {whole}\n")
        gdb.write(f"free pages:       {free} ({size_text(free * PAGE_SIZE)}) in {runs} "
                  f"run{'' if runs == 1 else 's'}, the largest {largest} pages "
                  f"({size_text(largest * PAGE_SIZE)})\n")
        gdb.write(f"fragmentation:    {(free - largest) * 100 // free if free else 0}% "
                  f"(free pages outside the largest run)\n")

    def log_and_age(self, heap):
        """The log's last non-zero line, and epochs and power-ons."""
        sb = heap.sb
        size = int(sb["log_size"])
        log = read(heap.base + int(sb["log_offset"]), size)
        stripped = log.rstrip(b"\0")
        high = -(-len(stripped) // CACHE_LINE) * CACHE_LINE
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


class FeCheck(FeCommand):
    """fe-check [--committed]: objtool's check of the heap as it is in
    memory now -- the running epoch's changes included -- or, with
    --committed, as a power cut now would leave it; read-only."""

    CHUNK = 1 << 20
    COMMITTED_EPOCH_AT = 256       # format.h: offsetof(struct os_superblock, committed_epoch)

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
            struct.pack_into("<Q", image, self.COMMITTED_EPOCH_AT, int(kh["tx_epoch"]))
            root = int(heap.sb["root_offset"])
            crc_at = lookup_type("struct os_root")["crc"].bitpos // 8
            struct.pack_into("<I", image, root + crc_at,
                             crc32c(bytes(image[root:root + crc_at])))
        gdb.write(f"fe-check: the heap {what}\n")
        fd, path = tempfile.mkstemp(prefix="fe-check-", suffix=".nvm")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(image)
            p = subprocess.run([objtool, path, "check"], capture_output=True, text=True)
        finally:
            os.unlink(path)
        gdb.write(p.stdout + p.stderr.replace(path, "the copy"))


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
        shared = bool(int(m["flags"]) & MAP_SHARED)
        names = names_of(heap, obj)
        label = f" ({escaped(names[0])})" if names else ""
        gdb.write(f"address space: mapping {start:#x}-{int(m['end']):#x} "
                  f"{'shared' if shared else 'private'}, object #{obj}{label} "
                  f"offset {off:#x} (page {off // PAGE_SIZE})\n")
        shadow = int(m["shadow"])
        if not shared and shadow:
            h = heap.header(shadow)
            if heap.obj_page(h, off // PAGE_SIZE):
                gdb.write(f"  written since mapped: its private copy is page "
                          f"{off // PAGE_SIZE} of shadow object #{shadow}\n")
                return
        h = heap.header(obj)
        page = heap.obj_page(h, off // PAGE_SIZE)
        gdb.write(f"  the object's page: heap offset {page:#x}\n" if page else
                  "  the object has no such page yet: it reads as zeros\n")


def value_at(addr, type_name):
    """The `type_name` in guest memory at addr, as an lvalue."""
    return gdb.Value(addr).cast(lookup_type(type_name).pointer()).dereference()


class FeFunction(gdb.Function):
    """A Ferrite convenience function: a FeError becomes gdb's one-line error."""

    def __init__(self, name):
        """Register $name."""
        super().__init__(name)
        self.name = name

    def invoke(self, *args):
        """Run the function; a FeError or a bad argument is a gdb error."""
        try:
            return self.value(*[int(a) for a in args])
        except FeError as e:
            raise gdb.GdbError(f"${self.name}: {e}")
        except TypeError:
            raise gdb.GdbError(f"${self.name}: {self.__doc__.split(':', 1)[0]} "
                               f"takes {self.value.__code__.co_argcount - 1} argument(s)")


class FeProc(FeFunction):
    """$fe_proc(PID): the process PID's struct kproc (its object in the heap)."""

    def __init__(self):
        """Register $fe_proc."""
        super().__init__("fe_proc")

    def value(self, pid):
        """The live process `pid`'s kproc, an lvalue in the heap."""
        heap = Heap()
        _, oid, _ = Kernel(heap).process(pid)
        return heap.small_value(oid, "struct kproc")


class FeCurrent(FeFunction):
    """$fe_current(): the struct kproc of the process running on the CPU
    gdb looks at; an error when that CPU runs none."""

    def __init__(self):
        """Register $fe_current."""
        super().__init__("fe_current")

    def value(self):
        """The running process's kproc, an lvalue in the heap."""
        slot = running_slot()
        if slot < 0:
            raise FeError(f"CPU {selected_cpu()} runs no process now (fe-cpus says what it does)")
        heap = Heap()
        return heap.small_value(int(Kernel(heap).kroot["procs"][slot]), "struct kproc")


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


for command in (FeInfo, FeHeap, FeCheck, FeLs, FeObj, FePs, FeCpus, FeBt, FeLog, FeDmesg, FePt,
                FeSnapshots, FeEpitaph, FeUser, FePid, FeProc, FeCurrent, FeObjValue):
    command()
