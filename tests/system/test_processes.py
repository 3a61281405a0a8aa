"""test_processes.py -- processes that live in the heap, checked from outside.

Each test drives the real kernel in QEMU through osh, powers it off with
osh's `poweroff` (which commits, then ACPI S5), and then reads the image on
the host with objtool: the checker must find it consistent after usertest's
hostile children, after heavy spawn/exit churn, and a text written in
Ferrite must be there byte for byte. An ELF imported on the host with
`objtool import --type code` must run as a program. Every power-on runs the
log checker (`logcheck`, docs/logcheck.md) on a small heap, so each commit
also proves that the kernel logged every byte it changed.
"""

import os
import re
import subprocess

from ferrite import PROMPT, ROOT, accel, command as _command, run as _run

OBJTOOL = os.path.join(ROOT, "build", "objtool")
HEAP = "32M"  # small, so the log checker's compare per commit stays cheap
LONG = 600   # a bound for TCG on a loaded machine, never a criterion
# Spawn churn: 1,000 under TCG. Under the development machines' KVM (PVM,
# a software hypervisor: ~0.5 s per spawn+exit+wait, docs/performance.md)
# 100 runs the same code paths in a bounded time.
CHURN = 100 if accel() == "kvm" else 1000

# What usertest's children do, and the kernel's line for each (isolation).
KILL_LINES = [
    r"page fault at 0xffff800000000000 \(read, kernel address\)",
    r"page fault at 0xffffffff80000000 \(write, kernel address\)",
    r"page fault at 0xffffffff80000000 \(execute, kernel address\)",
    r"page fault at 0x400000 \(write, read-only\)",
    r"\(execute, not executable\)",
    r"page fault at 0x0 \(read, not mapped\)",
    r"general protection fault",
    r"divide error",
]


def power_on(machines, image):
    """A power-on of the image (made on first use) with the log checker."""
    return machines(image=image, size=HEAP, boot="kernel", append="logcheck panic=exit")


def objtool(image, *args, check=True):
    """objtool on image: (exit status, stdout)."""
    p = subprocess.run([OBJTOOL, str(image)] + list(args),
                       capture_output=True, text=True)
    if check:
        assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p.returncode, p.stdout


def run(m, line, pattern, timeout=120):
    """Type a command line; wait for pattern, then for the prompt."""
    return _run(m, line, pattern, timeout)


def command(m, line):
    """Type a command line that prints nothing; wait for the next prompt."""
    _command(m, line)


def power_off(m):
    """osh's poweroff: QEMU must exit on its own."""
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)


def check_clean(image):
    status, out = objtool(image, "check", check=False)
    assert status == 0, out


def test_isolation_and_checker(machines, image):
    m = power_on(machines, image)
    m.expect(PROMPT)
    start = len(m.output)
    match = run(m, "usertest", r"usertest: (\d+) passed, (\d+) failed\n",
                timeout=LONG)
    assert match.group(2) == "0", re.findall(r"usertest: FAIL [^\n]*",
                                             m.output[start:])
    kills = m.output[start:]
    for line in KILL_LINES:
        assert re.search(r"\[\d+ usertest\] killed: [^\n]*" + line, kills), line
    run(m, "hello", r"hello from hello, pid \d+\n")   # the kernel lives on
    power_off(m)
    check_clean(image)


def test_churn_many_and_objects_leave_no_leak(machines, image):
    m = power_on(machines, image)
    m.expect(PROMPT)
    for mode, n in (("many", 50), ("churn", CHURN), ("objects", 1000)):
        match = run(m, "usertest %s %d" % (mode, n),
                    r"usertest %s %d: (\w+) \(objects (\d+) -> (\d+), "
                    r"heap_used (\d+) -> (\d+)\)\n" % (mode, n), timeout=LONG)
        assert match.group(1) == "ok"
        assert match.group(2) == match.group(3)
    power_off(m)
    check_clean(image)


def test_written_text_is_read_on_the_host(machines, image):
    m = power_on(machines, image)
    m.expect(PROMPT)
    command(m, "write notes/today 'written inside Ferrite'")
    power_off(m)
    check_clean(image)
    _, text = objtool(image, "cat", "notes/today")
    assert text == "written inside Ferrite\n"


def test_imported_program_runs(machines, image, tmp_path):
    m = power_on(machines, image)
    m.expect(PROMPT)
    power_off(m)
    hello = os.path.join(ROOT, "build", "user", "bin", "hello")
    objtool(image, "import", "bin/greet", hello, "--type", "code")
    m = power_on(machines, image)
    m.expect(PROMPT)
    run(m, "greet", r"hello from greet, pid \d+\n")
    power_off(m)
    check_clean(image)
