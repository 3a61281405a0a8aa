"""test_powercut.py -- power cuts at random instants under a mixed workload.

The quick form of the campaign in powercut.py (`make torture` runs the long
one): QUICK_CUTS cuts, each followed by objtool check, every program's
numbered lines consecutive across the run. Its seed is printed in the
failure message; FERRITE_POWERCUT_SEED replays a run, and
FERRITE_POWERCUT_CUTS changes the number of cuts.

Two more tests keep the campaign honest: the line checker refuses every
kind of gap and repeat a cut must not cause (on made-up console output, no
QEMU), and the workload's self-checks do fail when the objects they watch
are changed behind their backs.
"""

import os
import re

import pytest

from powercut import Campaign, LineChecker, default_seed

QUICK_CUTS = int(os.environ.get("FERRITE_POWERCUT_CUTS", "20"))
STEP_TIMEOUT = 120
PROMPT = r"osh> "


def problems(*outputs):
    """The line checker's problems with these power-ons' outputs, in order."""
    checker = LineChecker()
    found = []
    for poweron, output in enumerate(outputs, 1):
        found += checker.feed(poweron, output)
    return found


@pytest.mark.parametrize("outputs", [
    ("100000\n100001\n", "100002\n"),
    ("100000\nosh> 100001\n", "osh> osh> 100002\n"),
    # The line in flight at the cut printed again ...
    ("100000\n200000\n100001\n", "100001\n100002\n200001\n"),
    # ... or cut short and never printed whole.
    ("100000\n100001\n1000", "100003\n"),
    ("100000\nchurn: round 1 ok\nchurn: rou", "churn: round 3 ok\n100001\n"),
    # A power-on cut before the programs ran carries nothing over.
    ("100000\n", "Ferrite 0.1-dev", "", "100001\n"),
    ("memtest: 16 pages of memtest/8 at 0x100000000000\nmemtest: pass 1 ok\n",),
    # sysfuzz's start note, and the faults of the processes it started.
    ("sysfuzz 7: 0 calls in 3 processes, names under fuzz/\n"
     "sysfuzz: round 1 ok\n[12 sysfuzz-w] killed: page fault at 0x0 (read, "
     "not mapped), rip 0x4003dc\n[13 sysfuzz-x] killed: page fault at 0x8 "
     "(write, not mapped), rip 0x4001b0\nsysfuzz: round 2 ok\n",),
])
def test_checker_accepts(outputs):
    assert problems(*outputs) == []


@pytest.mark.parametrize("outputs,problem", [
    (("100001\n",), r"counter 100000: starts at 100001"),
    (("100000\n100002\n",), r"100002 follows 100000"),
    (("100000\n100000\n",), r"100000 follows 100000"),
    (("100000\n", "100002\n"), r"100002 follows 100000"),
    # Only the last program line of a power-on may be repeated ...
    (("100000\n200000\n", "100000\n"), r"100000 follows 100000"),
    (("100000\n200000\n", "100000\n200000\n"), r"100000 follows 100000"),
    # ... and only once.
    (("100000\n", "100000\n100000\n"), r"100000 follows 100000 \(power-on 2"),
    # A line cut short excuses only the line it began.
    (("100000\n2000", "100002\n"), r"100002 follows 100000"),
    (("100000\n100001\n", "100003\n"), r"100003 follows 100001"),
    (("churn: round 1 ok\nchurn: FAIL round 2: stray name churn/5/x\n",),
     r"line 2: churn: FAIL round 2"),
    (("100000\n[9 memtest] killed: page fault\n",), r"killed: page fault"),
    (("100000\n[5] done, status 1\n",), r"done, status 1"),
    (("panic: heap corrupt\n",), r"panic: heap corrupt"),
    (("100000\n12\n",), r"no program of the workload prints: '12'"),
    (("spawner: round one\n",), r"no program of the workload prints"),
    # sysfuzz itself must not die, nor find a broken promise.
    (("[5 sysfuzz] killed: page fault at 0x0\n",), r"\[5 sysfuzz\] killed"),
    (("sysfuzz: FAIL pid 5 (seed 1, call 9): SYS_NULL returned 1\n",),
     r"sysfuzz: FAIL pid 5"),
    (("sysfuzz 1: 9 calls\n",), r"no program of the workload prints"),
])
def test_checker_refuses(outputs, problem):
    found = problems(*outputs)
    assert found and re.search(problem, found[0]), found


def run(m, line, pattern=None):
    """Type a command line; wait for pattern (if any), then for the prompt."""
    start = len(m.output)
    m.send(line + "\n")
    match = m.expect(pattern, timeout=STEP_TIMEOUT, start=start) \
        if pattern else None
    m.expect(PROMPT, timeout=STEP_TIMEOUT,
             start=match.end() if match else start)
    return match


def test_self_checks_catch_tampering(machines, image):
    m = machines(image=image, boot="kernel")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    # churn finds a name under its prefix that it did not make.
    churn = run(m, "churn 3 200 &", r"\[(\d+)\] started\n").group(1)
    m.expect(r"churn: round 1 ok\n", timeout=STEP_TIMEOUT)
    run(m, "write churn/%s/intruder x" % churn)
    m.expect(r"churn: FAIL round \d+: stray name churn/%s/intruder \(size 2\)\n"
             % churn, timeout=STEP_TIMEOUT)
    # memtest finds its blob changed while it slept between passes.
    memtest = run(m, "memtest 2 1000 &", r"\[(\d+)\] started\n").group(1)
    m.expect(r"memtest: pass 1 ok\n", timeout=STEP_TIMEOUT)
    run(m, "write memtest/%s x" % memtest)
    # (The write lands between two passes; on a slow machine not
    # necessarily the first two.)
    found = m.expect(r"memtest: FAIL pass (\d+): page 0 word 0 \(mapping\) is "
                     r"0xa78, expected 0x[0-9a-f]+ \(pattern of pass (\d+)\)\n",
                     timeout=STEP_TIMEOUT)
    assert int(found.group(1)) == int(found.group(2)) + 1, found.group(0)
    # osh reports ended jobs at a prompt; they may still be exiting.
    start = len(m.output)
    for pid in (churn, memtest):
        for _ in range(50):
            if re.search(r"\[%s\] done, status 1\n" % pid, m.output[start:]):
                break
            run(m, "")
        assert re.search(r"\[%s\] done, status 1\n" % pid, m.output), m.output


@pytest.mark.slow(29)
def test_power_cuts(tmp_path):
    seed = default_seed()
    said = []
    campaign = Campaign(str(tmp_path), QUICK_CUTS, seed, log=said.append)
    failures = campaign.run()
    assert not failures, "\n".join(said)


@pytest.mark.slow(30)
def test_power_cuts_changing_cpus_on_virtio_pmem(tmp_path):
    """The quick campaign on a virtio-pmem device (every power-on rebuilds
    the heap from its base copy and journal: docs/virtio-pmem.md), with
    two CPUs and one in turn: every power-on resumes on a CPU count the
    last one did not have."""
    seed = default_seed()
    said = []
    campaign = Campaign(str(tmp_path), QUICK_CUTS // 2, seed, log=said.append,
                        cpus=(2, 1), pmem="virtio")
    failures = campaign.run()
    assert not failures, "\n".join(said)
