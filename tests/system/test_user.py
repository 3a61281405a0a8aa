"""test_user.py -- user space as a person sees it: the object shell, hello,
counter and Ctrl-C, and usertest (every system call, isolation faults, and
its leak modes), on a fresh image booted with the programs of
build/user/bin as modules. The image is small and the log checker runs
(`logcheck`, docs/logcheck.md): every commit also proves that the kernel
logged every byte it changed."""

import re

import pytest

# Bounds, never criteria: under nested KVM (docs/performance.md) one spawn
# can take seconds, and usertest spawns a few dozen children.
STEP_TIMEOUT = 120
USERTEST_TIMEOUT = 300
PROMPT = r"osh> "


@pytest.fixture
def osh(machines, image):
    """A fresh machine at its first osh prompt, checking every commit."""
    m = machines(image=image, size="32M", boot="kernel", append="logcheck panic=exit")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m


def run(m, line, pattern=None, timeout=STEP_TIMEOUT):
    """Type a command line; wait for pattern (if any) in what follows, then
    for the next prompt; the pattern's match."""
    start = len(m.output)
    m.send(line + "\n")
    match = m.expect(pattern, timeout=timeout, start=start) if pattern else None
    m.expect(PROMPT, timeout=timeout, start=match.end() if match else start)
    return match


def test_hello(osh):
    run(osh, "hello", r"hello from hello, pid \d+\n")


def test_osh_objects(osh):
    run(osh, "write note 'two  words' and more")
    run(osh, "cat note", r"two  words and more\n")
    run(osh, "ls no", r"note\s+blob\s+20\n")
    run(osh, "mv note memo")
    run(osh, "stat memo", r"memo: #\d+, blob, 20 bytes")
    run(osh, "rm memo")
    run(osh, "rm memo", r"rm: no object named 'memo'\n")
    run(osh, "cat memo", r"cat: no object named 'memo'\n")


def test_osh_mistakes(osh):
    run(osh, "nosuchprogram", r"osh: no program named 'bin/nosuchprogram'\n")
    run(osh, "kill x", r"kill: 'x' is not a pid\n")
    run(osh, "kill 999999", r"kill: no process with pid 999999\n")
    run(osh, "cat", r"usage: cat NAME\n")
    run(osh, "echo 'open", r"osh: missing closing '\n")


def test_osh_background_and_ps(osh):
    started = run(osh, "counter 1 100000 &", r"\[(\d+)\] started\n")
    pid = started.group(1)
    run(osh, "ps", r"\s+%s\s+\d+\s+\w+\s+\d+\s+\d+ counter\n" % pid)
    # A job that ended is reported at the next prompt.
    run(osh, "kill " + pid, r"\[%s\] killed: killed by pid \d+\n" % pid)
    start = len(osh.output)
    hello = run(osh, "hello &", r"\[(\d+)\] started\n").group(1)
    osh.expect(r"hello from hello, pid %s\n" % hello, timeout=STEP_TIMEOUT,
               start=start)
    done = r"\[%s\] done, status 0\n" % hello
    for _ in range(50):  # hello may still be exiting at the next prompt
        if re.search(done, osh.output[start:]):
            break
        run(osh, "")
    osh.expect(done, start=start)


def test_counter_and_ctrl_c(osh):
    start = len(osh.output)
    osh.send("counter 7 0\n")
    osh.expect(r"\n7\n8\n9\n", timeout=STEP_TIMEOUT, start=start)
    osh.send("\x03")
    osh.expect(r"\[\d+\] killed: [^\n]+\n" + PROMPT, timeout=STEP_TIMEOUT,
               start=start)
    run(osh, "status", r"\[\d+\] killed: ")


def test_usertest(osh):
    start = len(osh.output)
    osh.send("usertest\n")
    match = osh.expect(r"usertest: (\d+) passed, (\d+) failed\n",
                       timeout=USERTEST_TIMEOUT, start=start)
    failures = re.findall(r"usertest: FAIL [^\n]*", osh.output[start:])
    assert match.group(2) == "0", "\n".join(failures)
    assert int(match.group(1)) > 500


@pytest.mark.parametrize("mode,n", [("many", 50), ("churn", 30), ("objects", 100)])
def test_usertest_leaks(osh, mode, n):
    run(osh, "usertest %s %d" % (mode, n),
        r"usertest %s %d: ok \(objects \d+ -> \d+, heap_used \d+ -> \d+\)\n" % (mode, n),
        timeout=USERTEST_TIMEOUT)
