"""Linux processes in Ferrite (docs/linux.md, "Processes"): fork and
copy-on-write memory, execve and "#!" scripts, wait4 and waitid, pipes
between processes, signals between processes and process groups.

As in test_linux.py, each program runs in Ferrite and on the host with the
same arguments, and the two must print the same bytes and end with the
same status: tests/linux/procs.c by glibc and by musl, and busybox sh
command lines that fork pipelines, subshells and command substitutions.
The machine runs with the log checker.
"""

import os
import re
import subprocess

import pytest

from ferrite import PROMPT
from test_linux import BUSYBOX, LINUX, OBJTOOL, STEP, ferrite_run, host_run

PROCS = ("procs-glibc", "procs-musl")
# The kernel's word on a program a fault ended (Linux says nothing)
FAULT_LINE = re.compile(r"\[\d+ [^\]]+\] killed: [^\n]*\n")

# busybox sh lines that fork: pipelines, subshells, $(...), background
# jobs and wait, exit statuses of each
SH_LINES = [
    "echo a | busybox tr a b",
    "busybox seq 1 500 | busybox sort -rn | busybox head -n 3",
    "(exit 3); echo $?",
    "x=$(busybox echo hi | busybox tr h H); echo got $x",
    "busybox false | busybox true; echo $?",
    "busybox sleep 0 & wait $!; echo waited $?",
    "sh -c 'exit 7'; echo $?",
    "sh -c 'kill -TERM $$'; echo $?",
    "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i | busybox md5sum; done | busybox sort | busybox uniq -c | busybox wc -l",
    "busybox yes | busybox head -n 1000 | busybox wc -l",
]


@pytest.fixture(scope="module")
def lxproc(module_machines, tmp_path_factory):
    """A machine whose catalogue holds busybox and the procs programs (bin/NAME)."""
    tmp = tmp_path_factory.mktemp("lxproc")
    image = tmp / "lxproc.nvm"
    m = module_machines(image=image, size="128M")
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    for name, path in [("bin/busybox", BUSYBOX)] + [("bin/" + p, os.path.join(LINUX, p))
                                                     for p in PROCS]:
        r = subprocess.run([OBJTOOL, str(image), "import", name, path, "--type", "code"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    m = module_machines(image=image, append="panic=exit logcheck")
    m.expect(PROMPT, timeout=STEP)
    m.image = image
    work = tmp / "host"
    work.mkdir()
    return m, str(work)


@pytest.mark.parametrize("program", PROCS)
def test_processes_as_on_the_host(lxproc, program):
    m, work = lxproc
    scratch = "s-" + program
    want = host_run([program, BUSYBOX, scratch], work, os.path.join(LINUX, program))
    out, status = ferrite_run(m, [program, "/bin/busybox", scratch])
    assert FAULT_LINE.findall(out) != []  # the child's null write, said
    assert (FAULT_LINE.sub("", out), status) == want


@pytest.mark.parametrize("line", SH_LINES)
def test_busybox_sh_forks_as_on_the_host(lxproc, line):
    m, work = lxproc
    want = host_run(["sh", "-c", line], work, BUSYBOX)
    assert ferrite_run(m, ["busybox", "sh", "-c", line]) == want
