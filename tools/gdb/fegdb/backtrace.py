"""backtrace.py -- user programs' symbols and a user thread's stack: fe-bt, fe-user.

Every user program is linked at FE_USER_BASE (user/user.ld), so its ELF
in build/user/bin/PROG gives its symbols as they are: fe-user loads them
with add-symbol-file, replacing the previous program's. fe-bt finds a
thread's registers (processes.py), reads its stack through its address
space (usermem.py), and follows frame pointers: user programs are built
with -fno-omit-frame-pointer (user/user.mk). gcc still makes small leaf
functions -- the system call wrappers among them -- without a frame, so
for the innermost frame fe-bt looks at the function's code before the
pc: with no `push %rbp; mov %rsp,%rbp` yet, the return address is at
rsp; between the two, at rsp+8. Functions inlined at a pc are shown in
brackets.
"""

import os

import gdb

import heapformat as F

from .commands import FeCommand
from .heap import Heap
from .processes import Kernel, threads_of, user_regs
from .target import FeError, array_bytes, build_dir, cstring
from .usermem import UserMemory

BT_MAX_FRAMES = 64             # fe-bt stops there (a loop in a damaged stack)
PROLOGUE = b"\x55\x48\x89\xe5"  # push %rbp; mov %rsp,%rbp

_user_symbols = [None]  # the program whose symbols fe-user (or fe-bt) loaded


def program_path(prog):
    """build/user/bin/PROG, refused with the list of programs if it is not there."""
    bindir = os.path.join(build_dir(), "user", "bin")
    path = os.path.join(bindir, prog)
    if "/" in prog or not os.path.isfile(path):
        known = sorted(os.listdir(bindir)) if os.path.isdir(bindir) else []
        raise FeError(f"no program '{prog}' in {bindir}"
                      + (f" (there are: {', '.join(known)})" if known else " (run make)"))
    return path


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
        if ret is None or next_fp is None or ret < F.FE_USER_BASE:
            break
        frames.append((ret, True))
        if next_fp <= fp:
            break
        fp = next_fp
    return frames


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
        gdb.write(f"symbols of {arg} loaded from {path} at {F.FE_USER_BASE:#x}; every "
                  f"program is linked there, so break with a condition, e.g.\n"
                  f"  break main if $fe_pid() == PID\n")
