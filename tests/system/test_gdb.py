"""test_gdb.py -- gdb on a running Ferrite: the fe-* helpers tell the truth.

A machine boots with QEMU's gdb stub on a free port (tools/run-qemu
--gdb-port, without --gdb so it runs to the prompt first). The test makes a
known catalogue and processes with osh, then runs `gdb -batch` with
tools/gdb/ferrite.py: attaching stops the machine, the helpers read it, and
`detach` lets it run on. What the helpers print must agree with what osh
says (ls -l, ps) just before, and with what objtool reads from the image
once osh has powered the machine off; fe-bt must name counter's functions.
A breakpoint on a system call's handler must stop the machine when osh
makes that call. docs/debugging.md describes the helpers.
"""

import os
import re
import shutil
import socket
import subprocess
import threading

import pytest

from ferrite import PROMPT, ROOT, command, run

GDB = shutil.which("gdb")
KERNEL = os.path.join(ROOT, "build", "ferrite.elf")
HELPERS = os.path.join(ROOT, "tools", "gdb", "ferrite.py")
OBJTOOL = os.path.join(ROOT, "build", "objtool")
HEAP = "64M"
LONG = 300   # bound for gdb and the machine on a loaded TCG host, never a criterion
MARK = "==fe-test=="

pytestmark = pytest.mark.skipif(GDB is None, reason="gdb is not installed (tools/deps.sh installs it)")


def free_port():
    """A TCP port nobody listens on now (other tests run their own stubs)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def power_on(machines, image, port):
    """A machine with the gdb stub on `port`, running, at osh's prompt."""
    m = machines(image=image, size=HEAP, boot="kernel",
                 extra=["--gdb-port", str(port)])
    m.expect(PROMPT, timeout=LONG)
    return m


def gdb_args(port, commands):
    """gdb -batch attached to the stub with the kernel's symbols and the helpers."""
    args = [GDB, "-batch", "-nx", "-ex", "set architecture i386:x86-64",
            "-ex", f"file {KERNEL}", "-ex", f"source {HELPERS}",
            "-ex", f"target remote 127.0.0.1:{port}"]
    for c in commands:
        args += ["-ex", c]
    return args + ["-ex", "detach"]


def gdb_sections(port, commands):
    """Run each command in one gdb session; the output of each, in order."""
    script = []
    for c in commands:
        script += [f"echo {MARK}\\n", c]
    p = subprocess.run(gdb_args(port, script), capture_output=True, text=True,
                       timeout=LONG)
    parts = p.stdout.split(MARK + "\n")[1:]
    assert len(parts) == len(commands), p.stdout + p.stderr
    parts[-1] = parts[-1].split("[Inferior 1", 1)[0]
    for c, out in zip(commands, parts):
        assert "Traceback" not in out and "internal error" not in out, (c, out)
    return parts


def rows(text, header):
    """The lines after a table's header line, up to the next prompt."""
    lines = text.split(header, 1)[1].split(PROMPT, 1)[0].strip("\n").split("\n")
    return [line for line in lines if line.strip()]


def typed(m, line):
    """What osh prints for a command line, up to its next prompt."""
    start = len(m.output)
    command(m, line, timeout=LONG)
    return m.output[start:]


def objtool(image, *args):
    """objtool on the image; its stdout."""
    p = subprocess.run([OBJTOOL, str(image)] + list(args), capture_output=True,
                       text=True)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p.stdout


def info_fields(text):
    """The 'key: value' lines of objtool info or fe-info, as a dict."""
    return {k.strip(): v.strip() for k, v in
            (line.split(":", 1) for line in text.splitlines() if ":" in line)}


def test_helpers_agree_with_osh_and_objtool(machines, image):
    port = free_port()
    m = power_on(machines, image, port)
    command(m, "write notes/alpha 'first note'")
    command(m, "new notes/zero 5000")
    command(m, "write scratch 'not a note'")
    run(m, "counter 7 600000 &", r"\[\d+\] started")
    m.expect(r"(^|> )7\n", timeout=LONG)
    osh_ls = rows(typed(m, "ls -l"), "EPOCH  NAME\n")
    osh_ps = rows(typed(m, "ps"), "PAGES  NAME\n")
    counter_pid = next(r.split()[0] for r in osh_ps if r.endswith("counter"))

    info, ls_all, ls_notes, ps, bt = gdb_sections(
        port, ["fe-info", "fe-ls", "fe-ls notes/", "fe-ps", f"fe-bt {counter_pid}"])

    # fe-ls prints osh's ls -l, line for line; a prefix keeps its names.
    assert rows(ls_all, "EPOCH  NAME\n") == osh_ls
    assert rows(ls_notes, "EPOCH  NAME\n") == [r for r in osh_ls if r.endswith(("notes/alpha", "notes/zero"))]
    # fe-ps: the same processes, parents and names as osh's ps, each thread described.
    gdb_ps = [r for r in rows(ps, "PAGES  NAME\n") if not r.startswith(" " * 15)]
    assert [(r.split()[0], r.split()[1], r.split()[-1]) for r in gdb_ps] == \
        [(r.split()[0], r.split()[1], r.split()[-1]) for r in osh_ps]
    assert re.search(r"blocked in SYS_SLEEP_UNTIL, sleeping until", ps), ps
    assert re.search(r"blocked in SYS_CONSOLE_READ, waiting for console input", ps), ps
    # fe-bt: counter sleeps in fe_sleep_until, called from main.
    assert re.search(r"#0 .* in fe_sleep_until \(\)", bt), bt
    assert re.search(r"#\d+ .* in main \(\) at user/bin/counter\.c:\d+", bt), bt
    assert re.search(r"in _start \(\)", bt), bt

    # The machine runs on after detach; powered off, objtool reads the same heap.
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    tool = info_fields(objtool(image, "info"))
    mine = info_fields(info)
    for key in ("layout version", "heap id", "size", "objects", "names", "app roots"):
        assert tool[key] == mine[key], (key, tool[key], mine[key])
    assert tool["data pages"].split(":")[0] == mine["data pages"].split(":")[0]
    tool_ls = [line.split() for line in objtool(image, "ls", "-l").splitlines()]
    assert [row.split() for row in osh_ls] == tool_ls


def test_breakpoint_on_a_system_call(machines, image, tmp_path):
    port = free_port()
    m = power_on(machines, image, port)
    armed = tmp_path / "armed"
    gdb = subprocess.Popen(
        gdb_args(port, ["hbreak sys_name_bind", f"shell touch {armed}", "continue",
                        "print $fe_pid()", "fe-ps", "fe-bt 1", "delete"]),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    reader = threading.Thread(target=lambda: out.append(gdb.stdout.read()), daemon=True)
    reader.start()
    try:
        while not armed.exists():
            assert gdb.poll() is None, "gdb ended before the breakpoint was set"
            reader.join(0.1)
        command(m, "new notes/from-gdb 100", timeout=LONG)  # new ends with SYS_NAME_BIND
        gdb.wait(LONG)
    finally:
        if gdb.poll() is None:
            gdb.kill()
    reader.join(10)
    text = out[0]
    assert re.search(r"(Hardware assisted )?[Bb]reakpoint 1, sys_name_bind \(", text), text
    assert "$1 = 1" in text, text  # osh, pid 1, made the call
    assert re.search(r"running now\n\s+rip 0x[0-9a-f]+ rsp 0x[0-9a-f]+ \(in the kernel's trap frame", text), text
    assert re.search(r"#0 .* in fe_name_bind \(\)", text), text
    assert re.search(r"#\d+ .* in cmd_new \(\)( \[inlined: .*\])? at user/bin/osh/cmds_catalogue\.c:\d+", text), text
    # Detached, the call completed and the machine runs on.
    run(m, "ls notes/", r"notes/from-gdb\n", timeout=LONG)
