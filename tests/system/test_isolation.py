"""test_isolation.py -- what one process must not do to the others, and
every resource it can exhaust, checked from outside (docs/security.md).

usertest's isolation groups ("forged handles", "passed then closed",
"open by id sweep", "private memory", "other processes", and the forbidden
acts in children, "fault KIND") run in test_processes.py and test_user.py
as part of a plain `usertest`; here `usertest exhaust` fills, one at a
time, the caller's handle table, the process table, a channel queue and
the heap, and gives each back. The heap check shrinks a blob of nearly the
whole heap in one call on an image whose undo log (512 KiB) is far
smaller than that call needs, so the call stops with -ERR_NOSPC part way
and finishes when called again after the commit: the "log full" case.

While usertest exhausts, `counter` runs in the background: it must print
on through the full heap and after it. The log checker checks every
commit, and `objtool check` the image after poweroff.
"""

import os
import re
import subprocess

from ferrite import PROMPT, ROOT, command, run, untangle

OBJTOOL = os.path.join(ROOT, "build", "objtool")
LONG = 600          # a bound for TCG on a loaded machine, never a criterion
HEAP, LOG = "32M", "512K"
TYPED = "usertest exhaust hold"


def test_exhaustion_is_an_error_and_freeing_recovers(machines, tmp_path):
    image = tmp_path / "exhaust.nvm"
    subprocess.run([OBJTOOL, "create", "--size", HEAP, "--log-size", LOG, str(image)],
                   check=True, capture_output=True)
    m = machines(image=image, size=HEAP, append="logcheck panic=exit")
    m.expect(PROMPT, timeout=LONG)
    pid = run(m, "counter 1 20 &", r"\[(\d+)\] started\n").group(1)
    start = len(m.output)
    m.send(TYPED + "\n")
    held = m.expect(r"usertest exhaust: the heap is full; Enter gives it back\n",
                    timeout=LONG, start=start)
    # counter prints on while the heap is full (two numbers, to be sure one
    # was made after the heap filled).
    m.expect(r"^\d+\n(?:.*\n)*?^\d+\n", timeout=LONG, start=held.end())
    m.send("\n")
    match = m.expect(r"usertest: (\d+) passed, (\d+) failed\n", timeout=LONG, start=start)
    m.expect(PROMPT, timeout=LONG, start=match.end())
    out = m.output[start:]
    assert match.group(2) == "0", re.findall(r"usertest: FAIL [^\n]*", out)
    assert re.search(r"process table full at 191 processes \(\d+ started here\): "
                     r"ERR_NOSPC\n", out), out
    full = re.search(r"heap full after \d+ KiB \(ERR_NOMEM, \d+ KiB free\); the shrink "
                     r"took (\d+) more calls after -ERR_NOSPC", out)
    assert full and int(full.group(1)) > 0, out
    # The bystander that touched a new page while the heap was full.
    assert re.search(r"\[\d+ usertest\] killed: page fault at 0x[0-9a-f]+ "
                     r"\(write, heap full\)", out), out
    # counter, one number a line, each once, before, during and after: its
    # lines fall into osh's prompts and the echo of what is typed, anywhere.
    counted = [int(n) for n in re.findall(r"^(\d+)$", untangle(out, [TYPED]), re.M)]
    assert counted == list(range(counted[0], counted[0] + len(counted))), counted
    m.expect(r"(?:^|%s)%d\n" % (PROMPT, counted[-1] + 2), timeout=LONG, start=start)  # and on
    command(m, "kill " + pid)
    run(m, "hello", r"hello from hello, pid \d+\n")        # the system lives on
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
