"""Linux processes in Ferrite (docs/linux.md, "Processes"): fork, execve,
wait4, pipes between processes, signals between processes."""

import os
import subprocess

import pytest

from ferrite import PROMPT, ROOT
from test_linux import BUSYBOX, OBJTOOL, STEP, ferrite_run, host_run


@pytest.fixture
def lxproc(machines, tmp_path):
    image = tmp_path / "lxproc.nvm"
    m = machines(image=image, size="128M")
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    r = subprocess.run([OBJTOOL, str(image), "import", "bin/busybox", BUSYBOX, "--type", "code"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(PROMPT, timeout=STEP)
    m.image = image
    return m, tmp_path


@pytest.mark.parametrize("line", ["echo a | busybox tr a b",
                                  "busybox seq 1 5 | busybox sort -rn | busybox head -n 2"])
def test_explore(lxproc, line):
    m, tmp = lxproc
    out, status = ferrite_run(m, ["trace", "busybox", "sh", "-c", line])
    print(repr(line), out, status)
