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
import random
import re
import subprocess
import time

import pytest

from ferrite import PROMPT
from test_linux import (BUSYBOX, LINUX, OBJTOOL, STEP, check_image, ferrite_run, host_run,
                        linux_image, power_cycle, reply)

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
    # busybox's spawn (vfork): its child tells a failed exec in the memory it shares
    "echo a | busybox xargs nosuchcommand; echo $?",
    # two children alive at once, a hundred times: the parent's layers
    # collapse as the children go (on two CPUs they overlap)
    "i=0; while [ $i -lt 100 ]; do echo $i | busybox md5sum > out; i=$((i+1)); done; busybox cat out",
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


def test_trace_shows_waitid(lxproc):
    """trace of procs: its waitid(P_PID, pid, &info, WEXITED) with each
    argument (P_PID is 1, WEXITED 4; glibc passes no rusage)."""
    m, work = lxproc
    out, status = ferrite_run(m, ["trace", "procs-glibc", "/bin/busybox", "s-trace"])
    assert status == 0, out
    assert re.search(r"^waitid\(1, \d+, 0x[0-9a-f]+, 0x4, NULL\) += 0$", out, re.M), out


@pytest.mark.parametrize("line", SH_LINES)
def test_busybox_sh_forks_as_on_the_host(lxproc, line):
    m, work = lxproc
    want = host_run(["sh", "-c", line], work, BUSYBOX)
    assert ferrite_run(m, ["busybox", "sh", "-c", line]) == want


# Jobs that say they run once they hold the console: a job-control shell's
# child gives the console to the job's group before it runs the command.
TICKER = "busybox sh -c 'echo started; while busybox sleep 1; do echo tick; done'"
SLEEPER = "busybox sh -c 'echo asleep; exec busybox sleep 1000'"


def sh_line(m, line, want, start):
    """Type a line into the interactive busybox sh; wait for `want` after
    it; the offset past what matched."""
    m.send(line + "\n")
    return m.expect(want, timeout=STEP, start=start).end()


def test_job_control_on_the_console(lxproc):
    """busybox sh, interactive on the console, with its job control:
    Ctrl-Z stops the foreground job, `jobs` says so, `fg` brings it back
    (it ticks again), Ctrl-C ends it (status 130); `bg` runs a stopped job
    on in the background, and `kill %1` ends it."""
    m, work = lxproc
    PS = r"[\s\S]*?/ # "
    m.send("busybox sh\n")
    start = m.expect(r"/ # ", timeout=STEP).end()
    start = sh_line(m, TICKER, r"\nstarted\n", start)
    m.send("\x1a")
    start = m.expect(r"\[1\]\+ *Stopped[^\n]*\n" + PS, timeout=STEP, start=start).end()
    start = sh_line(m, "jobs", r"\[1\]\+ *Stopped[^\n]*tick[^\n]*\n" + PS, start)
    start = sh_line(m, "fg", r"\ntick\n", start)
    m.send("\x03")
    start = m.expect(r"/ # ", timeout=STEP, start=start).end()
    start = sh_line(m, "echo status $?", r"status 130\n" + PS, start)
    start = sh_line(m, SLEEPER, r"\nasleep\n", start)
    m.send("\x1a")
    start = m.expect(r"\[1\]\+ *Stopped[^\n]*\n" + PS, timeout=STEP, start=start).end()
    start = sh_line(m, "bg", r"\[1\][^\n]*sleep 1000[^\n]*\n" + PS, start)
    start = sh_line(m, "jobs", r"\[1\]\+ *Running[^\n]*\n" + PS, start)
    start = sh_line(m, "kill %1; wait; echo waited $?",
                    r"waited 0\n\[1\]\+ *Terminated[^\n]*sleep 1000[^\n]*\n" + PS, start)
    m.send("exit 0\n")
    m.expect(PROMPT, timeout=STEP, start=start)


# The pipeline a power cut interrupts, and how many cuts: the quick form
# here, FERRITE_PIPELINE_CUTS=20 for the long one (docs/linux.md).
PIPELINE = "busybox seq 1 200000 | busybox sort -rn | busybox md5sum"
PIPELINE_CUTS = int(os.environ.get("FERRITE_PIPELINE_CUTS", "3"))


@pytest.mark.slow(15)
def test_a_pipeline_cut_by_power_prints_the_host_s_sum(machines, tmp_path):
    """seq | sort -rn | md5sum, four processes and two pipes, cut by power
    while it runs, up to three times a run: after each power-on every
    process goes on where it was (its memory, its place in its pipes, the
    bytes in them), and the sum is the host's. Each cut comes at a random
    moment once `ps` shows the pipeline has run; the first cut of a run
    must come before its sum is out (else it tested nothing); the runs go
    on until PIPELINE_CUTS cuts were made."""
    want = subprocess.run(["sh", "-c", PIPELINE.replace("busybox ", "")],
                          capture_output=True, text=True).stdout
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="128M")
    rng = random.Random(os.environ.get("FERRITE_SEED", "pipeline"))
    cuts = 0
    while cuts < PIPELINE_CUTS:
        start = len(m.output)
        m.send("busybox sh -c '%s' &\n" % PIPELINE)
        m.expect(r"\[\d+\] started", timeout=STEP, start=start)
        for cut in range(min(3, PIPELINE_CUTS - cuts)):
            for _ in range(400):
                ps = reply(m, "ps")
                if re.search(r"^\s*\d+\s+\d+\s+\w+\s+[1-9]\d*\s+\d+\s+busybox$", ps, re.M):
                    break
            time.sleep(rng.uniform(0, 1.0))   # a random moment: any must do
            if want in m.output[start:]:
                assert cut > 0, "the pipeline ended before its first cut"
                break
            m = power_cycle(machines, m, image)
            start = 0
            cuts += 1
        m.expect(re.escape(want), timeout=STEP, start=start)
        assert re.search(r"\[\d+\] done, status 0\n", reply(m, "wait")), m.output
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


# A fork bomb that ends: a tree of 2^11 shells, each forking two and
# ending; far more at once than the process table holds (191)
BOMB = "f() { [ $1 -lt 11 ] && { f $(($1 + 1)) | f $(($1 + 1)) & }; }; f 0"


@pytest.mark.slow(10)
def test_a_fork_bomb_is_stopped_by_the_process_limit(machines, tmp_path):
    """A fork bomb in busybox sh meets the process limit: forks past it
    fail (EAGAIN: ash says it can't fork), the kernel stays up, osh
    answers while the bomb runs, the bomb ends, and the heap checks."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="128M")
    m.send("busybox sh -c '%s' &\n" % BOMB)
    m.expect(r"can't fork", timeout=STEP)
    assert reply(m, "echo alive").startswith("alive\n")  # the job may be reported after it
    for _ in range(2000):
        if "busybox" not in reply(m, "ps"):
            break
    else:
        raise AssertionError("the bomb did not end:\n" + m.output[-3000:])
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_busybox_sh_as_the_console_s_shell(machines, tmp_path):
    """With shell=sh on the command line the shell the kernel starts for
    the console is busybox sh (osh stays the default, and the rescue
    shell): once the osh the machine had ends, it runs pipelines, its jobs
    take Ctrl-C, it carries on across a power cut, and when it ends the
    kernel starts another, as it does for osh."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="128M")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    m = machines(image=image, append="panic=exit logcheck shell=sh")
    m.expect(PROMPT, timeout=STEP)        # the osh of the power-on before, resumed
    m.send("exit\n")                     # the shell the kernel starts now: busybox sh
    start = m.expect(r"/ # ", timeout=STEP).end()
    start = sh_line(m, "x=$(busybox seq 1 10 | busybox sort -rn | busybox head -n 1); echo top $x",
                    r"top 10\n[\s\S]*?/ # ", start)
    start = sh_line(m, SLEEPER, r"\nasleep\n", start)
    m.send("\x03")
    start = m.expect(r"/ # ", timeout=STEP, start=start).end()
    start = sh_line(m, "echo status $?", r"status 130\n[\s\S]*?/ # ", start)
    m.power_cut()
    m = machines(image=image, append="panic=exit logcheck shell=sh")
    m.expect(r"ferrite: resumed", timeout=STEP)
    m.send("echo after $x\n")
    start = m.expect(r"after 10\n[\s\S]*?/ # ", timeout=STEP).end()
    m.send("exit 3\n")
    m.expect(r"built-in shell \(ash\)[\s\S]*?/ # ", timeout=STEP, start=start)  # a fresh one
    m.send("poweroff -f\n")
    m.power_cut()
    check_image(image)


def test_a_stopped_job_stays_stopped_across_a_power_cut(machines, tmp_path):
    """A job Ctrl-Z stopped is still stopped after a power cut (its
    process's flag, its shell's job table, both heap state), and `fg`
    brings it back then."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="128M")
    PS = r"[\s\S]*?/ # "
    m.send("busybox sh\n")
    start = m.expect(r"/ # ", timeout=STEP).end()
    start = sh_line(m, TICKER, r"\nstarted\n", start)
    m.send("\x1a")
    m.expect(r"\[1\]\+ *Stopped[^\n]*\n" + PS, timeout=STEP, start=start)
    m = power_cycle(machines, m, image)
    start = sh_line(m, "jobs", r"\[1\]\+ *Stopped[^\n]*tick[^\n]*\n" + PS, 0)
    assert "\ntick\n" not in m.output[start:]
    start = sh_line(m, "fg", r"\ntick\n", start)
    m.send("\x03")
    start = m.expect(r"/ # ", timeout=STEP, start=start).end()
    start = sh_line(m, "echo status $?", r"status 130\n" + PS, start)
    m.send("exit 0\n")
    m.expect(PROMPT, timeout=STEP, start=start)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)
