"""test_heap_grow.py -- heaps that grow (docs/heap.md, "Growing a heap").

A counter keeps running while its image grows twice across power cuts:
once by powering on with a larger --size (the kernel grows the heap at
power-on), once by objtool grow on the host; the heap says its new size,
the program carries on, and objtool check finds the image clean after
each step. Then what may not be done: growth past the room the heap was
made with, growth of a heap made before layout 2.3 (by objtool, and at
power-on, which runs at the old size), a smaller --size, and shrinks over
pages handed out or under a snapshot -- each refused, saying why, writing
nothing; and the shrink that is allowed, of a never-used tail, with its
--dry-run.

A power cut inside the growth itself: a power-on that grows the heap is
traced (tools/nvmtrace, docs/persistence-model.md), and at every ordering
point of the growth the images the x86 persistency rules allow each
check clean and hold the old size or the new one; one of each kind
powered on grows again or opens grown. (The same commit, os_resize, is
cut at every fence by the crash simulator too: tests/objstore/
test_resize.c; objtool grow runs it on the host.)
"""

import collections
import hashlib
import os
import random
import re
import subprocess
import sys

import pytest

from ferrite import BACKGROUND_LINE, PROMPT, ROOT, run_launcher, traced_session
import heapimage as H

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace  # noqa: E402

OBJTOOL = os.path.join(ROOT, "build", "objtool")
MIB = 1 << 20
TIMEOUT = 120


def objtool(image, *args, rc=0):
    """Run objtool on `image`; its output, after checking its status."""
    p = subprocess.run([OBJTOOL, str(image)] + list(args), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == rc, p.stdout + p.stderr
    return p.stdout + p.stderr


def assert_clean(image):
    out = objtool(image, "check")
    assert "clean" in out or "no problems" in out or out.strip(), out


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def mem_line(m):
    """`mem` in osh: the heap's size in MiB (background output may interleave)."""
    start = len(m.output)
    m.send("mem\n")
    return int(m.expect(r"heap (\d+) MiB: ", timeout=TIMEOUT, start=start).group(1))


def carries_on(m):
    """Wait for the counter's next line after power-on, then ten more."""
    seen = int(m.expect(BACKGROUND_LINE % r"(\d{4,})", timeout=TIMEOUT).group(1))
    m.expect(BACKGROUND_LINE % (seen + 10), timeout=TIMEOUT)


def test_a_heap_grows_at_power_on_and_by_objtool_while_a_program_runs(machines, image):
    m = machines(image=image, size="32M")
    m.expect(r"osh> ", timeout=TIMEOUT)
    m.send("counter 1000 20 &\n")
    m.expect(BACKGROUND_LINE % 1010, timeout=TIMEOUT)
    m.power_cut()
    assert_clean(image)

    # A larger --size: run-qemu makes the file larger, the kernel grows the heap.
    m = machines(image=image, size="64M")
    m.expect(r"heap: grew from 32 MiB to 64 MiB\n", timeout=TIMEOUT)
    m.expect(r"osh> ", timeout=TIMEOUT)
    carries_on(m)
    assert mem_line(m) == 64
    m.power_cut()
    assert os.path.getsize(image) == 64 * MIB
    assert_clean(image)

    # objtool grow on the host; the next power-on finds nothing to grow.
    out = objtool(image, "grow", "--size", "96M")
    assert re.search(r"grow: .*: from 64 MiB to 96 MiB, \d+ data pages more", out), out
    assert os.path.getsize(image) == 96 * MIB
    assert_clean(image)
    m = machines(image=image)
    m.expect(r"osh> ", timeout=TIMEOUT)
    assert "heap: grew" not in m.output
    carries_on(m)
    assert mem_line(m) == 96
    m.power_cut()
    assert_clean(image)


def test_growth_past_the_room_or_of_an_old_layout_is_refused(machines, tmp_path):
    grown = tmp_path / "room.nvm"
    objtool(grown, "create", "--size", "32M", "--max-size", "64M")
    assert "can grow to:      64 MiB" in objtool(grown, "info")
    before = digest(grown)
    out = objtool(grown, "grow", "--size", "128M", rc=1)
    assert "cannot grow to 128 MiB: this heap can grow to 64 MiB at most" in out, out
    assert digest(grown) == before and os.path.getsize(grown) == 32 * MIB

    old = tmp_path / "old.nvm"
    objtool(old, "create", "--size", "32M", "--layout", "2.2")
    out = objtool(old, "grow", "--size", "64M", rc=1)
    assert "made with layout 2.2, before heaps could grow" in out, out
    assert os.path.getsize(old) == 32 * MIB
    # At power-on: a warning, and the heap runs at its size.
    m = machines(image=old, size="64M")
    m.expect(r"heap: not growing to the NVM's 64 MiB: the heap was made with "
             r"layout 2.2, before heaps could grow; running at its 32 MiB\n",
             timeout=TIMEOUT)
    m.expect(r"osh> ", timeout=TIMEOUT)
    assert mem_line(m) == 32
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    assert_clean(old)


def test_run_qemu_refuses_a_smaller_size(tmp_path):
    img = tmp_path / "t.nvm"
    objtool(img, "create", "--size", "32M")
    status, out = run_launcher("--image", str(img), "--size", "16M", "--dry-run")
    assert status != 0
    assert "is 32M" in out and "asks for 16M: an image never shrinks here" in out, out
    assert os.path.getsize(img) == 32 * MIB


def test_shrink_takes_a_never_used_tail_and_refuses_pages_in_use(tmp_path):
    img = tmp_path / "s.nvm"
    objtool(img, "create", "--size", "32M", "--log-size", "8M")  # room to import 40 MiB
    objtool(img, "grow", "--size", "64M")
    before = digest(img)
    out = objtool(img, "shrink", "--size", "32M", "--dry-run")
    assert "would shrink from 64 MiB to 32 MiB" in out and "nothing written" in out, out
    assert digest(img) == before

    # Pages past 32 MiB handed out: refused, naming the first, writing nothing.
    big = tmp_path / "big"
    big.write_bytes(os.urandom(40 * MIB))
    objtool(img, "import", "big", str(big))
    before = digest(img)
    for extra in ((), ("--dry-run",)):
        out = objtool(img, "shrink", "--size", "32M", *extra, rc=1)
        assert re.search(r"cannot shrink to 32 MiB: data page \d+ \(heap offset 0x[0-9a-f]+\), "
                         r"past the new end, is in use; the smallest this heap can "
                         r"shrink to is [\d.]+ MiB", out), out
    assert digest(img) == before
    objtool(img, "rm", "big")

    # A snapshot's state may use the tail: refused while one exists.
    fresh = tmp_path / "f.nvm"
    objtool(fresh, "create", "--size", "32M")
    objtool(fresh, "grow", "--size", "64M")
    objtool(fresh, "snapshot", "take", "s1")
    out = objtool(fresh, "shrink", "--size", "32M", rc=1)
    assert "keeps 1 snapshot" in out and "snapshot rm" in out, out
    objtool(fresh, "snapshot", "rm", "s1")

    out = objtool(fresh, "shrink", "--size", "32M")
    assert "from 64 MiB to 32 MiB" in out, out
    assert os.path.getsize(fresh) == 32 * MIB
    assert_clean(fresh)


# --- a power cut inside the growth --------------------------------------------

GROWN = 48 * MIB
GREW = "heap: grew from 32 MiB to 48 MiB\n"
# The kernel stopped: a panic, or a heap it will not run on.
STOPPED = r"^(?:%s)*(?:panic: |error: ).*\n" % PROMPT
SB_COVERED = H.SB.offset("crc") + 4         # the superblock's bytes under its CRC
SPARE = H.F.OS_SB_SPARE_OFFSET              # the spare superblock of a resize, in page 0


def check(image):
    """(status, text) of `objtool IMAGE check`."""
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout + p.stderr


def heap_size(image):
    """The heap's size in bytes, as `objtool IMAGE info` reads it."""
    out = objtool(image, "info")
    return int(re.search(r"^size: +\d+ MiB \((\d+) bytes\)$", out, re.M).group(1))


def page0(image):
    """(the superblock's bytes under its CRC, whether a spare superblock
    is there): what a resize writes (objstore/resize.c)."""
    with open(image, "rb") as f:
        page = f.read(H.PAGE)
    return page[:SB_COVERED], page[SPARE:SPARE + 8] == H.F.OS_MAGIC


def growth_window(trace):
    """The ordering points of the power-on's growth: from the end of the
    open's rollback window (kernel/core/heap.c grows right after the open)
    to the first point by which `heap: grew` had gone out -- with the
    power-on's first commits, which release it (output commit). A range."""
    rollback_ends = nvmtrace.SUBS[nvmtrace.EVENT].index("rollback ends")
    _, _, records = nvmtrace.open_trace(trace)
    point, first, console = 0, None, bytearray()
    for r in records:
        if r.kind == nvmtrace.ORDERING:
            point += 1
        elif r.kind == nvmtrace.EVENT and r.sub == rollback_ends:
            first = point
        elif r.kind == nvmtrace.OUTPUT and first is not None:
            console += r.data
            if GREW.strip().encode() in console:
                return range(first, point + 1)
    raise AssertionError("no `%s` after the open in %s" % (GREW.strip(), trace))


def grown_or_grows(machines, image, grows):
    """Power the crash image on: it must grow at this power-on (grows) or
    open at the grown size without growing; the heap the kernel runs on
    is the grown one, and cut there, the image checks clean, grown, its
    resize settled (no spare left). A problem, or None."""
    m = machines(image=image)
    found = m.expect(r"%s|%s" % (PROMPT, STOPPED), timeout=TIMEOUT)
    if found.group(0) != PROMPT:
        return "stopped: " + found.group(0).strip()
    problem = None
    if (GREW in m.output) != grows:
        problem = "%s at power-on" % ("did not grow" if grows else "grew again")
    elif mem_line(m) != GROWN // MIB:
        problem = "the kernel runs a heap of %d MiB" % mem_line(m)
    m.power_cut()
    status, text = check(image)
    if status:
        return "after its power-on: " + text
    if heap_size(image) != GROWN or page0(image)[1]:
        return "after its power-on: %d bytes, spare %s" % (heap_size(image), page0(image)[1])
    return problem


@pytest.mark.slow(25)
def test_a_cut_anywhere_in_a_growth_at_power_on_leaves_the_old_size_or_the_new(
        machines, tmp_path):
    # A heap made at 32 MiB, then powered on traced at 48 MiB: it grows.
    # At every ordering point from the open to the `heap: grew` line
    # going out, with every dirty line lost, all kept, a random prefix of
    # each, and each line lost alone, the image checks clean and is the
    # 32 MiB heap or the 48 MiB one -- never the old again once the new
    # was durable. The first image of each kind (its size, its page-0
    # superblock old, new or torn, a spare or none) is powered on.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    m = machines(image=image, size="32M", accel_name="tcg")
    m.expect(PROMPT, timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    old, (old_sb, _) = heap_size(image), page0(image)
    out = traced_session(machines, image, trace, [], size="48M", timeout=TIMEOUT)
    assert GREW in out and "nvm: 48 MiB" in out, out
    new, (new_sb, _) = heap_size(image), page0(image)
    assert (old, new) == (32 * MIB, GROWN)
    assert nvmtrace.replay(trace) == image.read_bytes()   # the tracer saw all 48 MiB

    window = growth_window(trace)
    crash, rng = tmp_path / "crash.nvm", random.Random(48)
    image_file = nvmtrace.ImageFile(crash)
    kinds, problems, powered, durable_new = collections.Counter(), [], 0, None
    for point in nvmtrace.crash_points(trace, set(window)):
        tried = set()
        for name, kept in point.variants(rng, len(point.history)):
            if frozenset(kept.items()) in tried:
                continue      # no dirty line: lost, kept and random are one image
            tried.add(frozenset(kept.items()))
            where = "ordering point %d (pc %#x), %s" % (point.index, point.record.pc, name)
            image_file.write(point, kept)
            status, text = check(crash)
            size = heap_size(crash) if status == 0 else None
            if status or size not in (old, new):
                problems.append("%s: %s" % (where, text if status else "%d bytes" % size))
                continue
            if size == old and durable_new is not None:
                problems.append("%s: the old size, after the new was durable at point %d"
                                % (where, durable_new))
            if name == "lost" and size == new and durable_new is None:
                durable_new = point.index
            sb, spare = page0(crash)
            kind = ("old" if size == old else "new",
                    {old_sb: "old", new_sb: "new"}.get(sb, "torn") + " superblock",
                    "spare" if spare else "no spare")
            kinds[kind] += 1
            if kinds[kind] == 1:
                powered += 1
                problem = grown_or_grows(machines, crash, grows=size == old)
                image_file.forget()
                if problem:
                    problems.append("%s, %s, powered on: %s" % (where, kind, problem))
    print("growth crash states: ordering points %d to %d of %d, %d images (%s), "
          "%d powered on, %d problems" % (
              window.start, window.stop - 1, len(nvmtrace.ordering_points(trace)),
              sum(kinds.values()), ", ".join("%s: %d" % (" / ".join(k), n)
                                             for k, n in sorted(kinds.items())),
              powered, len(problems)))
    assert not problems, "\n".join(problems[:10])
    # The window held the commit: cuts before the epoch store with the
    # spare written, and after it with the copy not yet made.
    assert kinds[("old", "old superblock", "spare")] and \
        kinds[("new", "old superblock", "spare")], kinds
    assert durable_new is not None
