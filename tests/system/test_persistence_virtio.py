"""test_persistence_virtio.py -- the crash of the HOST on a virtio-pmem
device (docs/persistence-model.md, "A host crash (virtio-pmem)").

A run on `--pmem virtio` is traced; at places of the trace (the flush
requests' edges, the ends of commits, right after console output, random
ones) nvmtrace.host_crash_points builds what a power loss of the host may
leave on the device: the state of the last completed flush plus any
subset of the pages written since, each whole. Every image must check
clean with objtool (which recovers the heap from the base copy and the
journal, as power-on does), and what a person had seen by then must not
be undone: the session's catalogue holds the names of every command
reported done, the workload's programs carry on from what they printed
(test_persistence.py's checkers). Some are powered on on `--pmem virtio`.
A kernel that lets a commit's output out before its flush completed
(the mutant output-before-flush) is caught.

The quick form runs in `make test`; PERSIST_CHECK=long (make
persist-check) the long one.
"""

import os
import random
import re
import subprocess
import sys

import pytest

from powercut import FAILURES, program_text
from ferrite import ROOT
from test_persistence import (LONG, SESSION, TIMEOUT, WORKLOAD, assert_clean,
                              check_states, make_heap, mutant, nvmtrace, progress,
                              reported_names, spread, started, text, traced_session,
                              traced_workload)

VIRTIO = ("--pmem", "virtio")


def host_crash_campaign(machines, tmp_path, trace, kinds, random_places, boot, seed,
                        subsets, singles, check=None, power_on=None, only=None,
                        until_caught=False):
    """Build and check (test_persistence.check_states) the host-crash
    states of the trace at the places of the site kinds `kinds` (a name of
    nvmtrace.HOST_SITES -> how many of its places, None for all) and
    `random_places` random ones: for each, the variants
    HostCrashPoint.variants(subsets, singles) (only those named in `only`,
    if given). `boot` of the places are powered on with --pmem virtio: the
    variant subset-1, or base where fewer than two pages were written
    since the last flush. Prints what was covered (the places chosen and,
    first, how many were reached: fewer when stopped at the first state
    caught); [(objtool status, text, where)], the problems, the
    power-ons' consoles."""
    rng = random.Random(seed)
    sites, places = nvmtrace.host_crash_sites(trace)
    chosen = {}
    for kind, n in kinds.items():
        of_kind = sites[kind] if n is None or n >= len(sites[kind]) else \
            sorted(rng.sample(sites[kind], n))
        for index in of_kind:
            chosen.setdefault(index, kind)
    for index in rng.sample(places, random_places):
        chosen.setdefault(index, "random")
    booted = spread(chosen, boot)
    variants, pages = {}, []

    def states():
        for point in nvmtrace.host_crash_points(trace, set(chosen)):
            pages.append(len(point.pages))
            for name, kept in point.variants(subsets, singles):
                if only is None or name in only:
                    kind = name.split("-")[0]
                    variants[kind] = variants.get(kind, 0) + 1
                    yield point, name, kept, "%s, %s: %s" % (
                        chosen[point.index], point.describe(), name)

    def boot_it(point, name):
        return point.index in booted and \
            name == ("subset-1" if len(point.pages) > 1 else "base")

    checked, problems, powered = check_states(
        machines, tmp_path, states(), boot_it, check=check, power_on=power_on,
        until_caught=until_caught, extra=VIRTIO)
    covered = ", ".join("%s %d of %d" % (kind, list(chosen.values()).count(kind),
                                         len(sites[kind])) for kind in nvmtrace.HOST_SITES)
    print("host crash states: %d of %d places (%s, random %d of %d), %d images (%s), "
          "up to %d pages written since the last flush, %d powered on, %d problems%s" % (
              len(pages), len(chosen), covered, list(chosen.values()).count("random"),
              len(places),
              len(checked), ", ".join("%s %d" % kv for kv in sorted(variants.items())),
              max(pages, default=0), len(powered), len(problems),
              ", stopped at the first caught" if until_caught else ""))
    assert until_caught or len(powered) == len(booted)
    return checked, problems, powered


@pytest.mark.slow(25)
def test_host_crash_states_of_a_session(machines, tmp_path):
    # A heap made on virtio-pmem by an untraced power-on, then the osh
    # session of test_persistence traced from it: at the flush requests'
    # edges, the ends of commits, after each run of console output and at
    # random places, every image checks clean and its catalogue holds the
    # names of every command reported done by then.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image, extra=VIRTIO)
    traced_session(machines, image, trace, SESSION, extra=list(VIRTIO))
    if LONG:
        checked, problems, powered = host_crash_campaign(
            machines, tmp_path, trace, dict.fromkeys(nvmtrace.HOST_SITES), 200, 30,
            seed=31, subsets=4, singles=6, check=reported_names)
    else:
        # A flush is sent right after the commit it covers: "flush begins"
        # is the state of "commit ended".
        checked, problems, powered = host_crash_campaign(
            machines, tmp_path, trace, {"flush ends": 10, "flush ended": 5,
                                        "commit ended": 5, "output": 10},
            4, 4, seed=31, subsets=1, singles=1, check=reported_names)
    assert_clean(checked, problems)
    # Every place gave at least its base image; the flushes of the
    # session's commits wrote pages (the journal's records, the base copy).
    assert len([w for _, _, w in checked if w.endswith(": base")]) >= 25
    assert len([w for _, _, w in checked if ": only-0x" in w]) >= 10
    for _, console, where in powered:
        assert re.search(r"journal: (replayed records \d+ to \d+|no record to replay)",
                         console), where + ":\n" + console
        assert "ferrite: resumed at epoch" in console, where + ":\n" + console


def may_repeat_from(point):
    """Where the console output that a power-on may send again begins: an
    index into point.console. The console moves its durable `sent` cursor
    (console.c) as it sends a group's output, once the group's flush
    completed; that store reaches the journal with the NEXT group's
    record, and its copy outside the heap (the journal header's page) is
    one more page a host crash may lose. So the cursor recovered may be
    as of the answer to the flush before the newest completed one, and
    the output sent since may go out again (at least once, never lost).
    After a kill of QEMU, as on an NVDIMM, only the line in flight may
    repeat."""
    return point.answered[-2] if len(point.answered) >= 2 else 0


def numbered(console, program):
    """[(end, number)] of the program's whole lines in console text."""
    out, at = [], 0
    for line in console.split("\n")[:-1]:
        at += len(line) + 1
        n = program.number(program_text(line))
        if n is not None:
            out.append((at, n))
    return out


def carry_on(point, m):
    """power_on for host_crash_campaign: every program of the workload
    that had printed a line by the crash goes on from there after the
    power-on: its first line after it is the next one or a repeat of one
    sent since may_repeat_from (none older), and its lines then follow
    one another; no line says a failure. (powercut.LineChecker's rules,
    but for the repeats a host crash allows.)"""
    seen = text(point.console)
    stopped = progress(m, m.expect(r"ferrite: resumed at epoch .*\n", timeout=TIMEOUT).end(),
                       started([seen]))
    if stopped:
        return stopped
    problems = [line for line in m.output.split("\n") if FAILURES.match(program_text(line))]
    repeatable = len(text(point.console[:may_repeat_from(point)]))
    for p in WORKLOAD:
        before, after = numbered(seen, p), [n for _, n in numbered(m.output, p)]
        if not after:
            continue
        if before:
            last = before[-1][1]
            lowest = min([n for end, n in before if end > repeatable] + [last + 1])
        else:
            last, lowest = p.first - 1, p.first
        if not lowest <= after[0] <= last + 1:
            problems.append("%s: %d after a power-on, %d printed before (none before %d "
                            "may repeat)" % (p.name, after[0], last, lowest))
        gaps = [(a, b) for a, b in zip(after, after[1:]) if b != a + 1]
        if gaps:
            problems.append("%s: %d follows %d after the power-on" % (p.name, gaps[0][1],
                                                                      gaps[0][0]))
    return "; ".join(problems) or None


@pytest.mark.slow(20)
def test_host_crash_states_of_the_workload(machines, tmp_path):
    # counter, churn, spawner and memtest started in a traced power-on of a
    # heap on virtio-pmem: at places of the trace every image checks
    # clean, and those powered on resume with every program carrying on
    # from what it had printed by then.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image, extra=VIRTIO)
    traced_workload(machines, image, trace, start_it=True, device=VIRTIO)
    if LONG:
        kinds, places, boot, subsets, singles = dict.fromkeys(nvmtrace.HOST_SITES), 200, \
            40, 3, 4
    else:
        kinds, places, boot, subsets, singles = {
            "flush ends": 6, "flush ended": 6, "commit ended": 4, "output": 6}, 4, 4, 1, 1
    checked, problems, powered = host_crash_campaign(
        machines, tmp_path, trace, kinds, places, boot, seed=32, subsets=subsets,
        singles=singles, power_on=carry_on)
    assert_clean(checked, problems)
    assert len(checked) >= 60 and len(powered) == boot
    # The programs were seen carrying on (the checks were not vacuous).
    assert any(started([c]) for _, c, _ in powered)


@pytest.mark.parametrize("kernel", ["trace", "output-before-flush"])
def test_output_let_out_before_its_flush_is_caught(machines, tmp_path, kernel):
    # The mutant (make mutants: FERRITE_MUTANT_OUTPUT_BEFORE_FLUSH) lets a
    # commit's output out at once, before the flush that makes it durable
    # on the host completed: right after a commit (or after the output),
    # the state of the last completed flush alone (base) lacks what the
    # prompt reported done, and the catalogue check says so. The real
    # kernel passes the same states; the mutant's campaign stops at the
    # first state caught.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image, extra=VIRTIO)
    traced_session(machines, image, trace, SESSION, extra=list(VIRTIO),
                   kernel=None if kernel == "trace" else mutant(kernel))
    checked, problems, _ = host_crash_campaign(
        machines, tmp_path, trace, {"commit ended": None, "output": None}, 0, 0, seed=33,
        subsets=0, singles=0, check=reported_names, only={"base"},
        until_caught=kernel != "trace")
    caught = problems + ["%s: %s" % (where, text) for status, text, where in checked
                         if status != 0]
    print("%s: %d states, %d caught, first: %s" % (kernel, len(checked), len(caught),
                                                    caught[:1]))
    if kernel == "trace":
        assert len(checked) >= 30 and not caught, caught[:3]
    else:
        assert caught


def test_one_host_crash_image_is_rebuilt_from_its_name(machines, tmp_path):
    # What a failing test names -- a place and a variant -- the CLI
    # builds, to power on or to look at: the same bytes as the campaign's.
    image, trace, out = tmp_path / "t.nvm", tmp_path / "t.trace", tmp_path / "c.nvm"
    make_heap(machines, image, extra=VIRTIO)
    traced_session(machines, image, trace, SESSION[:2], extra=list(VIRTIO))
    sites, places = nvmtrace.host_crash_sites(trace)
    point = next(p for p in nvmtrace.host_crash_points(trace, set(sites["flush ends"]))
                 if len(p.pages) >= 2)
    cli = [sys.executable, os.path.join(ROOT, "tools", "nvmtrace", "nvmtrace.py"),
           "host-crash", str(trace), str(point.index)]
    for name, kept in point.variants(2, 1):
        p = subprocess.run(cli + [name, str(out)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout == "%s, %s: %s\n" % (point.describe(), name, out)
        expected = bytearray(point.durable)
        point.apply(expected, kept)
        assert out.read_bytes() == bytes(expected), name
    for args, why in (([str(point.index), "half"], "no variant 'half'"),
                      ([str(places.stop), "base"], "has no place %d" % places.stop),
                      (["x", "base"], "not a record's number")):
        p = subprocess.run(cli[:-1] + args + [str(out)], capture_output=True, text=True)
        assert p.returncode == 2 and why in p.stderr, p.stderr
