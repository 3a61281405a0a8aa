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
--dry-run. A power cut inside the growth itself is the crash simulator's
(tests/objstore/test_resize.c: a cut at every fence, every torn line).
"""

import hashlib
import os
import re
import subprocess

from ferrite import BACKGROUND_LINE, ROOT, run_launcher

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
