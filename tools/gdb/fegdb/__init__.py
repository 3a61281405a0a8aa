"""fegdb -- gdb commands that read Ferrite's state from a live or stopped machine.

tools/gdb/ferrite.py loads this package (`make debug` sources it, and so
may any gdb that has build/ferrite.elf loaded). It adds, in the spirit of
the Linux kernel's scripts/gdb (lx-ps, lx-dmesg):

  fe-info          the heap: layout, size and use, epochs, the undo log, the
                   DRAM cache, power-ons                          info.py
  fe-heap          objtool's info --stats of the heap in memory: by type,
                   slabs, free runs, the log's high water, age     image.py
  fe-check [--committed]  objtool's check of the heap in memory (the running
                   epoch's changes included), or as a power cut would
                   leave it                                        image.py
  fe-ls [PREFIX]   the catalogue, in the columns of osh's `ls -l`  catalogue.py
  fe-obj ID|NAME   an object's header and, for kernel objects, their fields
                                                                   objects.py
  fe-ps            processes and their threads: state, what they wait on,
                   registers, and the CPU that runs each           processes.py
  fe-cpus          the CPUs: what each runs or that it idles, the kernel lock
                                                                   processes.py
  fe-bt PID [TID]  a user thread's backtrace, with its program's symbols
                                                                   backtrace.py
  fe-user PROG     load build/user/bin/PROG's symbols, to break in user code
                                                                   backtrace.py
  fe-pt VA [PID]   a user address through the page tables to its frame, and
                   the object and offset that back it              usermem.py
  fe-log [N]       the undo log of the running epoch, record by record
                                                                   log.py
  fe-snapshots     the heap's snapshots (osh's `snapshots`, and each node)
                   and the area                                    snapshots.py
  fe-dmesg [LINES] the kernel's message ring (printk), oldest first
                                                                   dmesg.py
  fe-epitaph       why the kernel panicked, if it did              dmesg.py
  $fe_pid()        the pid of the process running now on the CPU gdb looks
                   at (0: none), for breakpoint conditions: every program is
                   linked at 0x400000                              processes.py
  $fe_current()    that process's struct kproc (an error when none runs)
  $fe_proc(PID)    process PID's struct kproc                      processes.py
  $fe_obj(ID)      object ID: a kernel object as its structure (struct
                   kproc, kthread...), any other as its header     objects.py

The rest are what they share: target.py (guest memory and the kernel's
debug info), heap.py (the heap's superblock, id index, objects),
commands.py (one line for every failure), text.py (how numbers and names
are written).

CPUs. QEMU's gdb stub shows each CPU as a thread (`info threads`; CPU n is
thread n + 1); the commands that depend on "now" look at the CPU gdb has
selected, fe-ps and fe-cpus at all of them.

How it reads. Everything comes from guest memory through the kernel's
DWARF: the kernel's globals (`kheap`, the open heap; `kroot`, the kernel's
root object; `cpus`, each CPU's scheduling state; `panic_epitaph`) and the
layouts of the structures (gdb.lookup_type), so the commands follow the
code when a structure gains or moves a field. The heap is walked as
objstore walks it (heap.py, catalogue.py); a process's memory is read
through its persistent address space (usermem.py), so any process can be
read at any time, current or not. What objstore's own programs already
compute -- the check, the statistics -- is not computed again here:
fe-check and fe-heap run objtool on a copy of the heap (image.py).

What DWARF cannot say. The preprocessor constants of the on-NVM format
(the page size, the radix fan-out, the catalogue node magic, the
snapshot node flags, FE_MAP_SHARED...) are not in the debug info; they
come from tools/heapformat/heapformat.py, which serves what the C
compiler made of format.h and kformat.h (build/heapformat/layout.json).
There is no copy of the format here to keep in step with the headers.

Errors. A command that cannot do its work says why in one line (the heap
is not open yet, genesis has not made the kernel root, no such process...)
and never shows a Python traceback (commands.py); reads are bounded so a
damaged heap cannot make a command loop.
"""

from . import (backtrace, catalogue, dmesg, image, info, log, objects, processes,
               snapshots, usermem)

COMMANDS = (
    info.FeInfo, image.FeHeap, image.FeCheck, catalogue.FeLs, objects.FeObj,
    processes.FePs, processes.FeCpus, backtrace.FeBt, log.FeLog, dmesg.FeDmesg,
    usermem.FePt, snapshots.FeSnapshots, dmesg.FeEpitaph, backtrace.FeUser,
    processes.FePid, processes.FeProc, processes.FeCurrent, objects.FeObjValue,
)


def register():
    """Add every fe-* command and $fe_* function to gdb (again, if sourced twice)."""
    for command in COMMANDS:
        command()
