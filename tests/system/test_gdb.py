"""test_gdb.py -- gdb on a running Ferrite: the fe-* helpers tell the truth.

A machine boots with QEMU's gdb stub on a free port (tools/run-qemu
--gdb-port, without --gdb so it runs to the prompt first). The test makes a
known catalogue and processes with osh, then runs `gdb -batch` with
tools/gdb/ferrite.py: attaching stops the machine, the helpers read it, and
`detach` lets it run on. What the helpers print must agree with what osh
says (ls -l, ps) just before, and with what objtool reads from the image
once osh has powered the machine off; fe-bt must name counter's functions;
fe-snapshots must list the snapshots osh's `snapshots` lists, with the
same epochs, times, flags and sizes.
A breakpoint on a system call's handler must stop the machine when osh
makes that call. After a safe power-on fe-ps shows the held processes.
docs/debugging.md describes the helpers.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import threading

import pytest

from ferrite import PROMPT, ROOT, command, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from numtext import size_text  # noqa: E402  (as osh writes sizes: libc's rule)

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


def snapshot_rows(text, header):
    """{name: (epoch, taken, size or pages, [flags])} of a snapshots table
    (osh's or fe-snapshots'), and its first 'area:' line."""
    body = text.split(header, 1)[1]
    table, area = body.split("\narea: ", 1)
    out = {}
    for line in table.strip("\n").split("\n"):
        m = re.match(r"(\S+) +(\d+)  (\S+ \S+|-) +(\d+(?:\.\d)? \w+|\d+ +\d+  +\d+ +\S+)"
                     r"(?:  (.*))?$", line.rstrip())
        assert m, line
        out[m.group(1)] = (int(m.group(2)), m.group(3), m.group(4), (m.group(5) or "").split())
    return out, "area: " + area.split("\n", 1)[0]


def test_helpers_agree_with_osh_and_objtool(machines, image):
    port = free_port()
    m = power_on(machines, image, port)
    command(m, "write notes/alpha 'first note'")
    command(m, "new notes/zero 5000")
    run(m, "snapshot s1", r"snapshot s1 taken\n")
    command(m, "write scratch 'not a note'")
    run(m, "snapshot boot s1", r"every power-on starts from s1\n")
    run(m, "counter 7 600000 &", r"\[\d+\] started")
    m.expect(r"(^|> )7\n", timeout=LONG)
    osh_ls = rows(typed(m, "ls -l"), "EPOCH  NAME\n")
    osh_ps = rows(typed(m, "ps"), "PAGES  NAME\n")
    counter_pid = next(r.split()[0] for r in osh_ps if r.endswith("counter"))
    osh_snaps, osh_area = snapshot_rows(typed(m, "snapshots"), "ONLY IT  \n")

    info, ls_all, ls_notes, ps, bt, snaps, dmesg, dmesg2, dmesg_bad, pt, pt_none, pt_bad = \
        gdb_sections(port, ["fe-info", "fe-ls", "fe-ls notes/", "fe-ps", f"fe-bt {counter_pid}",
                            "fe-snapshots", "fe-dmesg", "fe-dmesg 2", "fe-dmesg x",
                            f"fe-pt 0x400000 {counter_pid}", f"fe-pt 0x10 {counter_pid}",
                            "fe-pt 0x400000 99999"])

    # fe-pt: counter's first code page is a page of bin/counter, executed
    # in place: the address space says which, and the page tables (if the
    # page is in them) end at that very heap page.
    code_id = next(r.split()[0].lstrip("#") for r in osh_ls if r.endswith("bin/counter"))
    assert pt.startswith(f"pid {counter_pid} (counter), address 0x400000\n"), pt
    assert re.search(rf"^address space: mapping 0x400000-0x[0-9a-f]+ (shared|private), object "
                     rf"#{code_id} \(bin/counter\) offset 0x[0-9a-f]*000 \(page \d+\)$",
                     pt, re.M), pt
    page = re.search(r"^  the object's page: heap offset (0x[0-9a-f]+)$", pt, re.M)
    assert page, pt
    frame = re.search(r"^  frame 0x[0-9a-f]+, byte 0x[0-9a-f]+: NVM, heap offset (0x[0-9a-f]+) "
                      r"\(data page \d+\)$", pt, re.M)
    assert frame or "not present" in pt or "page tables: none yet" in pt, pt
    if frame:
        assert frame.group(1) == page.group(1), pt
        assert re.search(r"^  PT   table 0x[0-9a-f]+ \[  0\] = 0x[0-9a-f]+  P .*U", pt, re.M), pt
    assert "address space: no mapping holds it" in pt_none, pt_none
    assert pt_bad == "fe-pt: no live process with pid 99999 (fe-ps lists them)\n", pt_bad

    # The convenience functions: a process's and an object's structures,
    # for expressions and breakpoint conditions; errors in one line.
    kroot_id = int(re.search(r"^app roots: +\[0\] #(\d+) kernel", info, re.M).group(1))
    alpha_id = next(r.split()[0].lstrip("#") for r in osh_ls if r.endswith("notes/alpha"))
    p = subprocess.run(gdb_args(port, [
        f"print $fe_proc({counter_pid}).pid", f"print $fe_obj({kroot_id}).power_ons",
        f"print $fe_obj({kroot_id}).magic == 0x544f4f52", "print $fe_proc(99999)",
        "print $fe_obj(99999999)", f"print $fe_obj({alpha_id}).size",
        "print $fe_current().pid == $fe_pid()"]),
        capture_output=True, text=True, timeout=LONG)
    values = re.findall(r"^\$\d+ = (.*)$", p.stdout, re.M)
    # a blob is its header: notes/alpha holds "first note\n"
    assert values[:4] == [counter_pid, "1", "1", "11"], (p.stdout, p.stderr)
    assert "$fe_proc: no live process with pid 99999 (fe-ps lists them)" in p.stderr, p.stderr
    assert "$fe_obj: no object #99999999" in p.stderr, p.stderr
    # attached, the CPU is in a process (the pids agree) or idles (said so)
    assert values[4:] == ["1"] or "runs no process now" in p.stderr, (p.stdout, p.stderr)

    # fe-dmesg: the kernel's lines, as the console printed them, in order.
    kernel_lines = dmesg.splitlines()
    assert any(line.startswith("ferrite: genesis complete") for line in kernel_lines), dmesg
    console_lines = m.output.splitlines()
    at = 0
    for line in kernel_lines:
        assert line in console_lines[at:], (line, dmesg)
        at = console_lines.index(line, at) + 1
    assert dmesg2.splitlines() == kernel_lines[-2:]
    assert dmesg_bad == "fe-dmesg: 'x' is not a line count (usage: fe-dmesg [LINES])\n"

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
    # fe-snapshots: osh's snapshots, the same epochs, times and flags, the
    # space only each holds in pages. Only the newest's list grows (the
    # live state's first changes since it), so only its figures may move.
    fe_snaps, fe_area = snapshot_rows(snaps, "FLAGS\n")
    assert set(osh_snaps) == {"power-on-1", "s1"}, osh_snaps
    assert {k: v for k, v in fe_snaps.items() if "removed" not in v[3]}.keys() == osh_snaps.keys()
    for name, (epoch, taken, size, flags) in osh_snaps.items():
        f_epoch, f_taken, f_pages, f_flags = fe_snaps[name]
        assert (f_epoch, f_taken, f_flags) == (epoch, taken, flags), (name, snaps)
        pages, held = map(int, f_pages.split()[:2])
        if "newest" not in flags:
            assert size_text(held * 4096) == size, (name, snaps, osh_snaps)
    assert osh_snaps["s1"][3] == ["newest", "boot"] and osh_snaps["power-on-1"][3] == ["auto"]
    free, total, keep = map(int, re.match(
        r"area: (\d+) of (\d+) pages free \(.*\); power-on snapshots kept: (\d+)$", fe_area).groups())
    osh_free, osh_total, osh_keep = re.match(
        r"area: (.*) free of (.*); table: \d+ of 64 places .*; power-on snapshots kept: (\d+)$",
        osh_area).groups()
    assert size_text(total * 4096) == osh_total and str(keep) == osh_keep, (fe_area, osh_area)
    # osh's figure is rounded to a tenth; the area only fills up since.
    whole, tenths, unit = re.match(r"(\d+)(?:\.(\d))? (\w+)$", osh_free).groups()
    scale = 1024 ** ["B", "KiB", "MiB", "GiB"].index(unit)
    assert free * 4096 < (int(whole) * 10 + int(tenths or 0) + 1) * scale / 10, (fe_area, osh_area)

    # The machine runs on after detach; powered off, objtool reads the same heap.
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    tool = info_fields(objtool(image, "info"))
    mine = info_fields(info)
    # info --stats on the image a kernel ran on: its age, its processes
    stats = objtool(image, "info", "--stats")
    assert re.search(r"^age: +epoch \d+, 1 power-on, \d+ kernel commits, \d+ s of running "
                     r"time$", stats, re.M), stats
    processes = re.search(r"^ +process +(\d+) ", stats, re.M)
    assert processes and int(processes.group(1)) == len(osh_ps), (stats, osh_ps)
    for key in ("layout version", "heap id", "size", "objects", "names", "app roots"):
        assert tool[key] == mine[key], (key, tool[key], mine[key])
    assert tool["data pages"].split(":")[0] == mine["data pages"].split(":")[0]
    tool_ls = [line.split() for line in objtool(image, "ls", "-l").splitlines()]
    assert [row.split() for row in osh_ls] == tool_ls
    tool_snaps = {line.split()[0]: line for line in objtool(image, "snapshots").splitlines()[1:-1]}
    for name, (epoch, taken, _, flags) in fe_snaps.items():
        if "removed" in flags:
            continue
        assert re.match(rf"{re.escape(name)} +{epoch}  {taken} +\S+ \S+(  {' '.join(flags)})?$",
                        tool_snaps[name]), (tool_snaps, snaps)


@pytest.mark.slow(15)
def test_fe_heap_agrees_with_objtool_info_stats(machines, image, tmp_path):
    """fe-heap on the live heap, objtool info --stats on the image after
    poweroff: the same figures where nothing ran in between (osh's
    poweroff only commits: no object is made or deleted)."""
    port = free_port()
    m = power_on(machines, image, port)
    stale = tmp_path / "stale.nvm"
    shutil.copyfile(image, stale)
    command(m, "write notes/alpha 'first note'")
    run(m, "sync", r"sync: epoch \d+ committed\n")
    live, check_live, check_committed = gdb_sections(
        port, ["fe-heap", "fe-check", "fe-check --committed"])
    # fe-heap and fe-check copy the image file QEMU maps; a file that is
    # not the heap in memory (here an older copy put in its place) is
    # refused and the heap read through gdb instead: the same figures.
    moved = tmp_path / "moved.nvm"
    from_file, check_file, _, _, from_memory, check_memory, _ = gdb_sections(port, [
        "fe-heap", "fe-check --committed", f"shell mv {image} {moved}",
        f"shell cp {stale} {image}", "fe-heap", "fe-check --committed",
        f"shell mv {moved} {image}"])
    assert stale.read_bytes()[:4096] != image.read_bytes()[:4096]
    assert from_file.startswith("objects by type:") and \
        check_file.splitlines()[-1].startswith("check: clean, "), (from_file, check_file)
    assert (from_memory, check_memory) == (from_file, check_file)
    # a descriptor damaged in memory is found; put back, the heap is clean
    sb = "((struct os_superblock *)kheap.base)"
    _, _, _, damaged, _, repaired = gdb_sections(port, [
        f"set $d = (unsigned char *)(kheap.base + {sb}->desc_offset)",
        "set $old = *$d", "set var *$d = $old ^ 0x40", "fe-check", "set var *$d = $old",
        "fe-check"])
    assert re.search(r"^check: \d+ problems?", damaged, re.M), damaged
    assert "page " in damaged, damaged
    assert repaired.splitlines()[-1].startswith("check: clean, "), repaired
    m.send("poweroff\n")
    m.wait_exit(timeout=LONG)
    # fe-check is objtool check, in its words, on the heap in memory
    tool_check = objtool(image, "check")
    for out in (check_live, check_committed):
        assert out.splitlines()[-1].startswith("check: clean, "), out
    assert check_committed.startswith("fe-check: the heap as committed (epoch "), check_committed
    assert tool_check.startswith("check: clean, ")
    tool = objtool(image, "info", "--stats")
    tool = tool[tool.index("objects by type:"):]

    def types(text):
        return {r.split()[-4]: r.split()[-3:] for r in
                text.split("slabs:")[0].splitlines()[1:] if r.strip()}

    assert types(live).keys() == types(tool).keys(), (live, tool)
    for t in ("blob", "code", "catalogue", "process", "thread"):
        if t in types(tool):
            assert types(live)[t] == types(tool)[t], (t, live, tool)
    assert re.search(r"^age: +epoch \d+, 1 power-on, \d+ kernel commits", live, re.M), live
    for heading in ("slabs:            BLOCK", "whole pages:", "free pages:", "fragmentation:",
                    "log high water:"):
        assert heading in live and heading in tool, (heading, live, tool)


def test_fe_ps_shows_held_processes(machines, image):
    # A safe power-on holds the saved processes (volatile, in sched.c): fe-ps
    # shows them held as osh's ps does, and the rescue shell not.
    m = machines(image=image, size=HEAP, boot="kernel")
    m.expect(PROMPT, timeout=LONG)
    run(m, "counter 1 600000 &", r"\[\d+\] started")
    m.expect(r"(^|> )1\n", timeout=LONG)
    m.power_cut()
    port = free_port()
    m = machines(image=image, size=HEAP, boot="kernel", append="safe",
                 extra=["--gdb-port", str(port)])
    # the rescue shell's own prompt, not the held osh's, which the power-on
    # may release from before the cut (committed, not yet sent)
    start = m.expect(r"ferrite: safe power-on", timeout=LONG).end()
    m.expect(r"the object shell; 'help' lists the commands\n" + PROMPT, timeout=LONG,
             start=start)
    osh_ps = [r.split() for r in rows(typed(m, "ps"), "PAGES  NAME\n")]

    ps, = gdb_sections(port, ["fe-ps"])
    gdb_ps = [r.split() for r in rows(ps, "PAGES  NAME\n") if not r.startswith(" " * 15)]
    held = [(r[0], r[2], r[-1]) for r in osh_ps if r[2].startswith("held,")]
    assert [(pid, name) for pid, _, name in held] == [("1", "osh"), ("2", "counter")], osh_ps
    assert [(r[0], r[2], r[-1]) for r in gdb_ps if r[2].startswith("held,")] == held, ps
    assert [r[0] for r in gdb_ps] == [r[0] for r in osh_ps] == ["1", "2", "3"], ps


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
    assert re.search(r"running now on cpu (\d+)\n\s+rip 0x[0-9a-f]+ rsp 0x[0-9a-f]+ \(in cpu \1's trap frame", text), text
    assert re.search(r"#0 .* in fe_name_bind \(\)", text), text
    assert re.search(r"#\d+ .* in cmd_new \(\)( \[inlined: .*\])? at user/bin/osh/cmds_catalogue\.c:\d+", text), text
    # Detached, the call completed and the machine runs on.
    run(m, "ls notes/", r"notes/from-gdb\n", timeout=LONG)


def test_cpus_and_threads_on_two_cpus(machines, image):
    """fe-cpus names both CPUs and what each does; fe-ps lists every thread
    of a multi-threaded program, each as osh's ps shows it, and fe-bt
    unwinds one of them by tid."""
    port = free_port()
    m = machines(image=image, size=HEAP, boot="kernel", cpus=2,
                 extra=["--gdb-port", str(port)])
    m.expect(PROMPT, timeout=LONG)
    run(m, "mtcount 4 20 &", r"\[(\d+)\] started\n")
    m.expect(r"mtcount: 10\n", timeout=LONG)
    pid = re.search(r"\[(\d+)\] started\n", m.output).group(1)
    osh_threads = re.findall(r"^ +tid (\d+) ", typed(m, "ps"), re.M)
    cpus, ps, bt = gdb_sections(port, ["fe-cpus", "fe-ps", f"fe-bt {pid} 2"])
    assert re.findall(r"^cpu (\d) \(APIC id \d+\): ", cpus, re.M) == ["0", "1"], cpus
    assert len(re.findall(r"holds the kernel lock", cpus)) <= 1, cpus
    tids = re.findall(r"thread #\d+ \(tid (\d+)\): ", ps)
    assert sorted(tids) == ["0", "0", "1", "2", "3"], ps  # osh, and mtcount's four
    assert osh_threads == ["0", "1", "2", "3"], osh_threads
    assert re.search(r"\(tid \d\): (running now on cpu \d|blocked in SYS_FUTEX_WAIT, waiting on "
                     r"the futex at 0x[0-9a-f]+|blocked in SYS_SLEEP_UNTIL, sleeping until)", ps), ps
    assert re.search(rf"pid {pid} \(mtcount\), thread #\d+ \(tid 2\)", bt), bt
    assert re.search(r"in work \(\) at user/bin/mtcount\.c:\d+", bt), bt
