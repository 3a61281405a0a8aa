"""processes.py -- processes, threads and CPUs: the kernel root's process
table, what each thread waits on, where its registers are; fe-ps,
fe-cpus, $fe_pid(), $fe_current(), $fe_proc(PID).

The kernel root (app root OS_APP_ROOT_KERNEL, `kroot`) holds the process
table; each process object its list of threads (kproc.thread, then each
kthread.next). What runs now is volatile, in the kernel's globals:
`cpus` (core/smp.c) names the thread each CPU runs, sched.c's thread_cpu
the CPU of each thread, sched.c's `held` the processes a safe power-on
holds.

A thread's registers: one that is not running has them in its thread
object (kthread.regs, saved when it was switched out). A running one has
them live: in its CPU when gdb stopped that CPU in user mode (QEMU's gdb
stub shows CPU n as thread n + 1; the helpers switch to it and back), or
in the trap frame at the top of that CPU's kernel stack when it is inside
a system call or an interrupt.
"""

import gdb

import heapformat as F

from .commands import FeCommand, FeFunction
from .heap import Heap
from .target import (FeError, array_bytes, cstring, enum_name, enum_value, lookup_type,
                     symbol, typed)


class Kernel:
    """The kernel's root object and its process table."""

    def __init__(self, heap):
        """Find the kernel root; refuse before genesis made it."""
        self.heap = heap
        root_id = int(heap.root["app_roots"][F.OS_APP_ROOT_KERNEL])
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
    if name == "KWAIT_PIPE":
        return f"waiting on Linux pipe #{obj}"
    if name == "KWAIT_POLL":
        return "waiting for console input or a Linux pipe (poll, select)" + (
            f" until {int(thread['wake_ns']) / 1e9:.3f} s monotonic"
            if int(thread["wake_ns"]) else "")
    if name == "KWAIT_LOCK":
        return f"waiting for a lock on object #{obj} to go (fcntl F_SETLKW, flock)"
    return f"waiting ({name}, object #{obj})"


def anon_pages(heap, aspace):
    """Pages of memory a process made, as osh's ps counts them (uvm_pages)."""
    seen, pages = set(), 0
    anon = enum_value("enum os_obj_type", "OS_TYPE_ANON")
    for m in heap.mappings(aspace):
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
