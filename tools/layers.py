"""layers.py -- the rooms of the kernel and their order, for tools/check-layers
(includes) and tools/check-calls (calls); docs/architecture.md draws them.

A room is a folder of kernel/. Includes and calls point down the levels
below, never up; rooms on one level do not reach each other either.
kernel/arch/, mm/, dev/ and acpi/ are one level, the machine, and may
reach each other; they take from core/ only its base services.
"""

import os

# Top to bottom. main.c is the power-on order and may reach anything.
LEVELS = (
    ("main.c",),
    ("entry/",),                       # entry from user mode, the safe point, faults
    ("syscall/", "linux/"),            # the system calls: native, and Linux's
    ("epoch/",),                       # the commit, snapshots, the safe power-on
    ("hostlink/", "console/"),         # the host link, the console for programs
    ("task/",),                        # processes, threads, handles, channels, scheduler
    ("uvm/",),                         # user memory: address spaces, page tables, DRAM cache
    ("obj/",),                         # the kernel root, kernel objects, the reaper
    ("core/",),                        # base services, CPUs and the kernel lock, time, the heap
    ("arch/", "mm/", "dev/", "acpi/"),  # the machine
    ("kformat/",),                     # the persistent format: objstore and the ABI only
)

# core/'s base services: every room, the machine included, may use them
# (they use nothing above the machine themselves). The rest of core/ -- the
# heap, the CPUs and the kernel lock, time -- sits above the machine.
CORE_BASE = ("core/printk", "core/panic", "core/cmdline", "core/bootinfo",
             "core/selftest")
MACHINE = ("arch/", "mm/", "dev/", "acpi/")


def kernel_room(path):
    """The room of a repository path under kernel/ ('task/', 'main.c'), or None."""
    if not path.startswith("kernel/"):
        return None
    rest = path[len("kernel/"):]
    if "/" not in rest:
        return rest
    return rest.split("/", 1)[0] + "/"


def room_level(room):
    """The level of a room, 0 at the top; None for a path outside the rooms."""
    for level, rooms in enumerate(LEVELS):
        if room in rooms:
            return level
    return None


def is_base(path):
    """Whether a repository path (extension or not) is one of core/'s base services."""
    stem = os.path.splitext(path)[0]
    return stem.startswith("kernel/") and stem[len("kernel/"):] in CORE_BASE


def may_reach(src, dst):
    """Whether kernel file `src` may include (or call into) kernel file `dst`
    (repository paths): down the levels, within its own room, or to core/'s
    base services; sideways only within the machine."""
    src_room, dst_room = kernel_room(src), kernel_room(dst)
    if src_room == dst_room or src_room == "main.c" or is_base(dst):
        return True
    if src_room == "kformat/":
        return dst == "kernel/arch/arch.h"  # the saved registers' layout is the CPU's
    s, d = room_level(src_room), room_level(dst_room)
    if s is None or d is None:
        return True
    if s == d:
        return src_room in MACHINE and dst_room in MACHINE
    return d > s


