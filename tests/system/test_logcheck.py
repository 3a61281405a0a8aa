"""test_logcheck.py -- the log checker (`logcheck`, docs/logcheck.md).

With `logcheck` on the command line every commit compares the heap with a
DRAM shadow of it as of the last commit, and panics on a changed byte that
no record of the epoch covers. These tests prove it can fail (a kernel
built with a planted unlogged write, `make plant`), that the real kernel
passes it while osh, programs and usertest run, across a power-off and a
resume, and that too little DRAM is said plainly. Other system tests that
run programs boot with `logcheck` too (test_user.py, test_processes.py).
"""

import os
import re

from ferrite import EXIT_PANIC, PROMPT, ROOT, command as _command, run as _run

PLANTED = os.path.join(ROOT, "build", "plant", "ferrite.elf")
HEAP = "32M"
LONG = 300   # a bound for TCG on a loaded machine, never a criterion

VIOLATION = (r"panic: logcheck: heap offset (0x[0-9a-f]+) \((\d+) bytes? from "
             r"0x[0-9a-f]+ to 0x[0-9a-f]+\) changed in epoch \d+ but was not "
             r"logged: ([^\n]*)\n")


def run(m, line, pattern, timeout=LONG):
    """Type a command line; wait for pattern, then for the prompt."""
    return _run(m, line, pattern, timeout)


def command(m, line):
    """Type a command line that prints nothing; wait for the next prompt."""
    _command(m, line, LONG)


def test_a_planted_unlogged_write_is_caught(machines, image):
    assert os.path.exists(PLANTED), "build/plant/ferrite.elf is missing: run make plant"
    m = machines(image=image, size=HEAP, boot="kernel",
                 append="logcheck panic=exit", extra=["--kernel", PLANTED],
                 expect_panic=True)
    assert m.wait_exit(timeout=LONG) == EXIT_PANIC, m.output
    match = re.search(VIOLATION, m.output)
    assert match, m.output
    # The planted write: kroot->commits, in the kernel's root object.
    assert re.match(r"object #\d+ \(kernel\), bytes \+0x[0-9a-f]+$",
                    match.group(3)), match.group(0)
    offset = match.group(1)
    assert re.search(r"logcheck: old bytes at heap offset %s: [0-9a-f ]+\n" % offset,
                     m.output), m.output
    assert re.search(r"logcheck: new bytes at heap offset %s: [0-9a-f ]+\n" % offset,
                     m.output), m.output


def test_the_kernel_logs_everything_it_writes(machines, image):
    m = machines(image=image, size=HEAP, boot="kernel", append="logcheck panic=exit")
    m.expect(r"logcheck: on: every commit compares the 32 MiB heap", timeout=LONG)
    m.expect(PROMPT, timeout=LONG)
    command(m, "write notes/a 'kept across the power-off'")
    command(m, "mv notes/a notes/b")
    run(m, "hello", r"hello from hello, pid \d+\n")
    start = len(m.output)
    m.send("counter 1 0\n")
    m.expect(r"\n3\n4\n", timeout=LONG, start=start)
    m.send("\x03")
    m.expect(r"killed: [^\n]+\n" + PROMPT, timeout=LONG, start=start)
    match = run(m, "usertest", r"usertest: (\d+) passed, (\d+) failed\n")
    assert match.group(2) == "0", re.findall(r"usertest: FAIL [^\n]*", m.output)
    run(m, "usertest objects 30", r"usertest objects 30: ok")
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    assert not re.search(r"^panic: ", m.output, re.M), m.output

    # Resumed: the shadow is taken after the rollback, and holds again.
    m = machines(image=image, boot="kernel", append="logcheck panic=exit")
    m.expect(PROMPT, timeout=LONG)
    run(m, "cat notes/b", r"kept across the power-off\n")
    command(m, "rm notes/b")
    run(m, "hello", r"hello from hello, pid \d+\n")
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    assert not re.search(r"^panic: ", m.output, re.M), m.output


def test_too_little_dram_is_said_plainly(machines, image):
    m = machines(image=image, size="64M", ram="64M", boot="kernel",
                 append="logcheck panic=exit", expect_panic=True)
    assert m.wait_exit(timeout=LONG) == EXIT_PANIC, m.output
    assert re.search(r"panic: logcheck: the 64 MiB heap needs \d+ MiB of DRAM "
                     r"for its shadow \(in contiguous runs\), \d+ MiB are free",
                     m.output), m.output
