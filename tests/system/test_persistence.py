"""test_persistence.py -- the NVM tracer (tools/nvmtrace,
docs/persistence-model.md) on the real kernel in real QEMU.

The tracer's own proof: a run traced from its first instruction, replayed
from the trace alone (the starting image, then every store in order),
gives the image QEMU left, byte for byte -- so every store to the NVM was
seen, placed and given its bytes. Its write-backs are the kernel's: every
one attributed to its line (the kernel built for tracing marks them), and
a kernel not built for tracing is refused.
"""

import os
import subprocess
import sys

import pytest

from ferrite import PROMPT, ROOT, run, run_launcher

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace  # noqa: E402

TIMEOUT = 300
NORMAL_KERNEL = os.path.join(ROOT, "build", "ferrite.elf")
OBJTOOL = os.path.join(ROOT, "build", "objtool")


def traced_session(machines, image, trace, commands, kernel=None):
    """Power on with the tracer, run osh commands, power off; the console."""
    extra = ["--trace-nvm", str(trace)]
    if kernel:
        extra += ["--kernel", kernel]
    m = machines(image=image, size="32M", extra=extra, accel_name="tcg")
    m.expect(PROMPT, timeout=TIMEOUT)
    for line, pattern in commands:
        run(m, line, pattern, timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    return m.output


def assert_replays(trace, image):
    with open(image, "rb") as f:
        final = f.read()
    rebuilt = nvmtrace.replay(trace)
    assert len(rebuilt) == len(final)
    if rebuilt != final:
        lines = [at for at in range(0, len(final), 64)
                 if rebuilt[at:at + 64] != final[at:at + 64]]
        pytest.fail("the replay differs from the image in %d lines, first at %#x"
                    % (len(lines), lines[0]))


SESSION = [
    ("write notes/a hello persistent world", r""),
    ("cp notes/a notes/b", r""),
    ("mv notes/b notes/c", r""),
    ("append notes/c more", r""),
    ("rm notes/a", r""),
    ("new big 64K", r""),
    ("hello", r"hello"),
    ("sync", r"sync: epoch \d+ committed\n"),
]


def test_genesis_and_a_session_replay_to_the_final_image(machines, tmp_path):
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    out = traced_session(machines, image, trace, SESSION)
    assert "nvm: 32 MiB at 0x100000000" in out     # where the plugin was told
    s = nvmtrace.summary(trace)
    assert s["unattributed"] == 0
    assert s["counts"][("write-back", "clflushopt")] > 1000
    assert s["counts"][("fence", "sfence")] > 100
    assert s["counts"][("store", "cached")] > 10000
    assert ("starting page", "") not in s["counts"]  # genesis: a blank image
    assert_replays(trace, image)
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_resumed_image_replays_from_its_starting_pages(machines, tmp_path):
    image, first, second = tmp_path / "t.nvm", tmp_path / "1.trace", tmp_path / "2.trace"
    traced_session(machines, image, first, [("write x one", r"")])
    out = traced_session(machines, image, second,
                         [("cat x", r"one\n"), ("write x two", r"")])
    assert "power-on 2" in out
    s = nvmtrace.summary(second)
    assert s["counts"][("starting page", "")] > 100
    assert_replays(second, image)


def test_a_kernel_not_built_for_tracing_is_refused(machines, tmp_path):
    # Its write-backs carry no mark: the plugin counts them, and the trace's
    # readers refuse it rather than model a run whose flushes they cannot see.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    traced_session(machines, image, trace, [], kernel=NORMAL_KERNEL)
    assert nvmtrace.summary(trace)["unattributed"] > 1000
    with pytest.raises(nvmtrace.TraceError, match="write-backs whose line is unknown"):
        nvmtrace.replay(trace)


@pytest.mark.parametrize("args, why", [
    (["--accel", "kvm"], "--trace-nvm needs --accel tcg"),
    (["--boot", "iso"], "--trace-nvm needs --boot kernel"),
    (["--boot", "kernel", "--ram", "3G"], "--trace-nvm needs --ram 2G or less"),
    (["--boot", "kernel", "--no-nvm"], "--trace-nvm traces the NVM; drop --no-nvm"),
])
def test_the_launcher_refuses_what_cannot_be_traced(tmp_path, args, why):
    status, out = run_launcher("--trace-nvm", str(tmp_path / "t.trace"), "--dry-run", *args)
    assert status == 2
    assert why in out
