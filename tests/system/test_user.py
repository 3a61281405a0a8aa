"""test_user.py -- user space as a person sees it: hello, counter and
Ctrl-C, and usertest (every system call, isolation faults, and its leak
modes), run from the object shell on a fresh image booted with the
programs of build/user/bin as modules. The image is small and the log
checker runs (`logcheck`, docs/logcheck.md): every commit also proves that
the kernel logged every byte it changed. The shell itself is tested in
test_shell.py."""

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
