"""test_smp.py -- every CPU: starting them, what osh and sysinfo say of
them, programs on two CPUs at once, and power-ons with another CPU count.

The kernel runs user code on every CPU and kernel code on one at a time
(docs/processes.md, "The scheduler"); a commit stops the other CPUs
first (docs/checkpoints.md, "Many CPUs"). The power-cut campaign's
two-CPU form is in test_powercut.py; FERRITE_SMP=2 runs every test on two.
"""

import re

from ferrite import BACKGROUND_LINE, PROMPT, run

# A program's whole line; osh's prompt may come first on it (a background
# program's line after the prompt).
SPIN = r"spin: (\d+) million rounds, checksum ([0-9a-f]{16}), \d+ ms\n"


def power_on(machines, image, cpus, append=None):
    """A machine with `cpus` CPUs at its osh prompt (a resumed osh shows
    its prompt again when a key comes)."""
    m = machines(image=image, size="32M", cpus=cpus, append=append)
    m.expect(r"ferrite: (genesis complete|resumed at epoch)", timeout=120)
    if "resumed at epoch" in m.output:
        m.send("\n")
    m.expect(PROMPT, timeout=120)
    return m


def cpu_figures(m):
    """`stats`' CPU lines: (cpus running, [busy % of each])."""
    match = run(m, "stats", r"cpus: (\d+) running; busy since power-on:((?: cpu\d+ \d+%)+)\n")
    busy = [int(b) for b in re.findall(r"cpu\d+ (\d+)%", match.group(2))]
    return int(match.group(1)), busy


def test_two_cpus_start_and_are_reported(machines, image):
    m = power_on(machines, image, 2)
    assert "cpus: 2 running\n" in m.output, m.output
    cpus, busy = cpu_figures(m)
    assert cpus == 2 and len(busy) == 2, m.output
    run(m, "stats", r"stopping the other cpus at a commit: last [\d.]+ us, max [\d.]+ us\n")


def test_cpus_on_the_command_line_limits_them(machines, image):
    m = power_on(machines, image, 2, append="cpus=1")
    assert "cpus: 1 running\n" in m.output, m.output
    assert cpu_figures(m)[0] == 1
    m.power_cut()
    m = power_on(machines, image, 2, append="cpus=99")
    assert "cmdline: cpus=99 is not a number from 1 to 16; using every CPU\n" in m.output
    assert "cpus: 2 running\n" in m.output, m.output


def test_two_programs_compute_on_two_cpus(machines, image):
    """Two CPU-bound programs at once: each CPU runs one (both are charged
    busy time), and each gets the checksum one alone gets."""
    m = power_on(machines, image, 2)
    alone = run(m, "spin 20", SPIN).group(2)
    start = len(m.output)
    m.send("spin 20 & spin 20\n")
    sums = []
    for _ in range(2):
        found = m.expect(SPIN, timeout=120, start=start)
        sums.append(found.group(2))
        start = found.end()
    run(m, "wait", "")  # the background one reported too
    assert sums == [alone, alone], m.output[-600:]
    cpus, busy = cpu_figures(m)
    assert cpus == 2 and all(b > 0 for b in busy), (busy, m.output[-600:])
    # Both ran kernel code (each took the lock at least to start its spin).
    held = [float(h) for h in re.findall(r" cpu\d+ ([\d.]+)/[\d.]+", run(
        m, "stats", r"kernel lock since power-on, us held/waited:((?: cpu\d+ [\d.]+/[\d.]+)+)\n"
    ).group(1))]
    assert len(held) == 2 and all(h > 0 for h in held), (held, m.output[-600:])


def test_output_is_seen_beside_a_busy_cpu(machines, image):
    """With periodic commits off (ckpt=0), a CPU that idles beside a busy
    one still commits when output waits: the shell's echo and a program's
    line appear while a spin keeps the other CPU busy (they once waited
    for ever)."""
    m = power_on(machines, image, 2, append="ckpt=0")
    run(m, "spin 1000000 &", r"\[\d+\] started\n")
    run(m, "hello", r"hello from hello, pid \d+\n")
    cpus, busy = cpu_figures(m)
    assert cpus == 2 and max(busy) > 0, busy


def test_power_off_with_two_on_with_one_and_back(machines, image):
    """A counter runs across power-ons with 2, 4, 1 and 2 CPUs: each power-on
    carries on from the last number the one before printed (output commit:
    no number is lost, and only the line in flight at the cut may come
    twice)."""
    m = power_on(machines, image, 2)
    m.send("counter 1 20 &\n")
    m.expect(BACKGROUND_LINE % 5, timeout=60)
    for cpus in (4, 1, 2):
        m.power_cut()
        last = int(re.findall(BACKGROUND_LINE % r"(\d+)", m.output, re.M)[-1])
        m = machines(image=image, size="32M", cpus=cpus)
        m.expect(r"cpus: %d running\n" % cpus, timeout=120)
        first = int(m.expect(BACKGROUND_LINE % r"(\d+)", timeout=60).group(1))
        assert last <= first <= last + 1, (last, first, m.output[-400:])
        m.expect(BACKGROUND_LINE % (first + 5), timeout=60)


def test_usertest_on_two_cpus(machines, image):
    """Every system call, the isolation faults and the thread tests (four
    threads on a mutex, futexes, a faulting thread, the thread table
    filled) with two CPUs."""
    m = power_on(machines, image, 2)
    start = len(m.output)
    m.send("usertest\n")
    match = m.expect(r"usertest: (\d+) passed, (\d+) failed\n", timeout=300, start=start)
    failures = re.findall(r"usertest: FAIL [^\n]*", m.output[start:])
    assert match.group(2) == "0", "\n".join(failures)
    assert int(match.group(1)) > 500


def test_shell_and_checkpoints_on_two_cpus(machines, image):
    """A shell session with a multi-threaded program running on the other
    CPU: objects written and read back, a commit with its stop, a cut and a
    power-on that finds everything committed."""
    m = power_on(machines, image, 2)
    m.send("mtcount 4 5 &\n")
    m.expect(r"mtcount: 20\n", timeout=60)
    run(m, "write notes/smp two cpus wrote this", r"")
    run(m, "cat notes/smp", r"two cpus wrote this\n")
    run(m, "ps", r"tid 3 +(running on cpu \d|runnable|blocked in \w+)\n")
    run(m, "sync", r"sync: epoch \d+ committed\n")
    run(m, "stats", r"stopping the other cpus at a commit: last [\d.]+ us")
    m.power_cut()
    last = int(re.findall(BACKGROUND_LINE % r"mtcount: (\d+)", m.output, re.M)[-1])
    m = machines(image=image, size="32M", cpus=2)
    first = int(m.expect(BACKGROUND_LINE % r"mtcount: (\d+)", timeout=120).group(1))
    assert last <= first <= last + 1, (last, first)
    m.send("\n")
    m.expect(PROMPT, timeout=60)
    run(m, "cat notes/smp", r"two cpus wrote this\n")
