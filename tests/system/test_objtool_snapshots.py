"""test_objtool_snapshots.py -- objtool and the snapshots of an image.

`snapshots` lists them, `ls|stat|cat|export --snapshot NAME` read a
snapshot's objects without powering on, `snapshot take|rm NAME` change
them, and `check` verifies every snapshot as a whole heap besides the live
state (docs/objtool.md). The first test reads an image the real kernel
wrote, snapshots taken with osh; the others use images objtool makes,
forged where a test needs damage (heapimage.py knows the snapshot area's
layout, format.h's "the snapshot area"). Every refusal leaves the image
file's bytes as they were, and read-only commands never change them.
"""

import fcntl
import hashlib
import os
import re
import subprocess

import pytest

import heapimage
from ferrite import PROMPT, ROOT, command, run

OBJTOOL = os.path.join(ROOT, "build", "objtool")
TIMEOUT = 120

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CORRUPT = 5
EXIT_IN_USE = 6
EXIT_PROBLEMS = 7
EXIT_NO_SNAPSHOT = 8

ROW = re.compile(r"^(\S+) +(\d+)  (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|-) +(\d+(?:\.\d)? \w?i?B)(?:  (\w+(?: \w+)*))?$")


class Run:
    """What one objtool run did."""

    def __init__(self, args, proc):
        self.args, self.rc, self.raw = args, proc.returncode, proc.stdout
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")

    def __repr__(self):
        return (f"objtool {' '.join(self.args)} -> {self.rc}\n"
                f"stdout: {self.out[-3000:]!r}\nstderr: {self.err!r}")


def objtool(*args, rc=EXIT_OK):
    """Run objtool; assert its exit status is rc (None: any)."""
    args = [str(a) for a in args]
    r = Run(args, subprocess.run([OBJTOOL] + args, capture_output=True, timeout=300))
    if rc is not None:
        assert r.rc == rc, r
    return r


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def listed(image):
    """`snapshots` as {name: (epoch, taken, flags)}, and the lines after the table."""
    out = objtool(image, "snapshots").out.splitlines()
    rows, rest = {}, []
    if out[0].startswith("NAME "):
        out = out[1:]
    for line in out:
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), m.group(3), (m.group(5) or "").split())
        else:
            rest.append(line)
    return rows, rest


def last_line(r):
    return r.out.splitlines()[-1]


@pytest.fixture(autouse=True)
def built():
    if not os.access(OBJTOOL, os.X_OK):
        pytest.fail(f"{OBJTOOL} is missing: run make")


# --- an image the kernel wrote ---------------------------------------------------------------

def osh_snapshots(m):
    """osh's `snapshots` as {name: (epoch, taken, flags)}."""
    start = len(m.output)
    m.send("snapshots\n")
    end = m.expect(r"area: .*\n" + PROMPT, timeout=TIMEOUT, start=start).start()
    rows = {}
    for line in m.output[start:end].split("\n")[2:]:
        line = line.rstrip()
        if not line:
            continue
        f = line.split()
        taken = "-" if f[2] == "-" else f[2] + " " + f[3]
        flags = f[6:] if taken != "-" else f[5:]
        rows[f[0]] = (int(f[1]), taken, flags)
    return rows


def test_a_kernel_images_snapshots_read_checked_removed_and_resumed(machines, image, tmp_path):
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=TIMEOUT)
    command(m, "write notes/a first")
    command(m, "write notes/gone old words")
    run(m, "snapshot s1", r"snapshot s1 taken\n")
    command(m, "write notes/a second")
    command(m, "rm notes/gone")
    command(m, "write notes/new fresh")
    osh = osh_snapshots(m)
    assert set(osh) == {"power-on-1", "s1"}, osh
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0

    before = sha(image)
    # snapshots: what osh listed, the same epochs, times and flags.
    rows, rest = listed(image)
    assert rows == osh, (rows, osh)
    assert rows["s1"][2] == ["newest"] and rows["power-on-1"][2] == ["auto"], rows
    assert re.match(r"area: \S+ \w+ free of \S+ \w+ \(\d+ of \d+ pages\); power-on snapshots kept: 2$",
                    rest[-1]), rest

    # The live state has the new contents, s1 the old, power-on-1 none of them.
    assert objtool(image, "cat", "notes/a").out == "second\n"
    assert objtool(image, "cat", "notes/a", "--snapshot", "s1").out == "first\n"
    assert objtool(image, "cat", "--snapshot=s1", "notes/gone").out == "old words\n"
    assert objtool(image, "ls", "notes/").out.split() == ["notes/a", "notes/new"]
    assert objtool(image, "ls", "notes/", "--snapshot", "s1").out.split() == ["notes/a", "notes/gone"]
    assert objtool(image, "ls", "notes/", "--snapshot", "power-on-1").out == ""
    live_ls = objtool(image, "ls", "-l").out
    s1_ls = objtool(image, "ls", "-l", "--snapshot", "s1").out
    assert live_ls != s1_ls and "notes/gone" in s1_ls and "notes/gone" not in live_ls
    stat = objtool(image, "stat", "notes/gone", "--snapshot", "s1").out
    assert "names:     'notes/gone'" in stat and "size:      10 bytes" in stat, stat
    objtool(image, "export", "notes/gone", tmp_path / "gone", "--snapshot", "s1")
    assert (tmp_path / "gone").read_bytes() == b"old words\n"

    # What a snapshot does not hold, and a snapshot that does not exist.
    r = objtool(image, "cat", "notes/new", "--snapshot", "s1", rc=EXIT_FAILED)
    assert r.err == "objtool: cat: no object named 'notes/new'\n", r
    r = objtool(image, "cat", "notes/a", "--snapshot", "s2", rc=EXIT_NO_SNAPSHOT)
    assert r.err == (f"objtool: cat: no snapshot named 's2' ('objtool {image} snapshots' "
                     f"lists them)\n"), r
    objtool(image, "ls", "--snapshot", "bad name", rc=EXIT_USAGE)

    # check: the live state, then each snapshot as a whole heap.
    r = objtool(image, "check")
    assert re.fullmatch(r"check: clean, \d+ objects, \d+ names; snapshots: 2 checked, all clean\n",
                        r.out), r
    assert sha(image) == before   # nothing above wrote

    # snapshot rm: s1, the newest, is merged into power-on-1, the one
    # before (stored relative to it): the copies both held go back, the
    # rest become power-on-1's own; no removed snapshot is left over.
    r = objtool(image, "snapshot", "rm", "s1")
    assert re.fullmatch(r"snapshot rm: 's1' removed; \S+ \w+ given back to the area\n",
                        r.out), r
    rows, rest = listed(image)
    assert list(rows) == ["power-on-1"], rows
    assert not any(line.startswith("removed:") for line in rest), rest
    objtool(image, "ls", "--snapshot", "s1", rc=EXIT_NO_SNAPSHOT)
    objtool(image, "snapshot", "rm", "s1", rc=EXIT_NO_SNAPSHOT)
    r = objtool(image, "check")
    assert r.out.endswith("; snapshots: 1 checked, clean\n"), r

    # A snapshot objtool takes is one the kernel powers on into.
    r = objtool(image, "snapshot", "take", "t1")
    assert re.fullmatch(r"snapshot take: 't1' holds epoch \d+\n", r.out), r
    objtool(image, "rm", "notes/new")
    m = machines(image=image, size="32M", append="resume=t1")
    m.expect(r"heap: powered on into snapshot t1", timeout=TIMEOUT)
    m.expect(PROMPT, timeout=TIMEOUT)
    run(m, "cat notes/new", r"fresh")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    rows, _ = listed(image)
    assert "t1" in rows and "before-t1-1" in rows, rows
    objtool(image, "cat", "notes/new", "--snapshot", "before-t1-1", rc=EXIT_FAILED)
    assert objtool(image, "cat", "notes/new", "--snapshot", "t1").out == "fresh\n"
    assert objtool(image, "check").rc == EXIT_OK


# --- images objtool makes ----------------------------------------------------------------

def made(tmp_path, size="32M", *extra):
    """An image with a, b and c (c after snapshot s1, a rewritten after it)."""
    image = tmp_path / "a.nvm"
    objtool("create", "--size", size, *extra, image)
    for name, data in (("a", b"a, before\n"), ("b", b"b, the same\n")):
        (tmp_path / name).write_bytes(data)
        objtool(image, "import", name, tmp_path / name)
    objtool(image, "snapshot", "take", "s1")
    (tmp_path / "a2").write_bytes(b"a, after\n")
    objtool(image, "import", "a", tmp_path / "a2", "--replace")
    objtool(image, "import", "c", tmp_path / "b")
    return image


def info_epoch(image):
    out = objtool(image, "info").out
    return int(re.search(r"^committed epoch: +(\d+)$", out, re.M).group(1))


def test_take_list_read_and_remove(tmp_path):
    image = made(tmp_path)
    r = objtool(image, "snapshot", "take", "s2")
    assert r.out == f"snapshot take: 's2' holds epoch {info_epoch(image)}\n", r
    before = sha(image)
    rows, rest = listed(image)
    assert list(rows) == ["s1", "s2"] and rows["s2"][2] == ["newest"] and rows["s1"][2] == [], rows
    assert rows["s1"][0] < rows["s2"][0] == info_epoch(image)
    assert rest[-1].startswith("area: ") and len(rest) == 1, rest
    assert objtool(image, "ls", "--snapshot", "s1").out == "a\nb\n"
    assert objtool(image, "ls", "--snapshot", "s2").out == "a\nb\nc\n"
    assert objtool(image, "cat", "a", "--snapshot", "s1").out == "a, before\n"
    assert objtool(image, "cat", "a", "--snapshot", "s2").out == "a, after\n"
    assert objtool(image, "cat", "a").out == "a, after\n"
    assert "id:        #1\n" in objtool(image, "stat", "a", "--snapshot", "s1").out
    assert "id:        #3\n" in objtool(image, "stat", "a").out
    r = objtool(image, "check")
    assert r.out.endswith("; snapshots: 2 checked, all clean\n"), r
    assert sha(image) == before

    # Errors: each its own status, the image untouched.
    r = objtool(image, "snapshot", "take", "s1", rc=EXIT_FAILED)
    assert "there is a snapshot named 's1' already" in r.err, r
    r = objtool(image, "snapshot", "frob", "s1", rc=EXIT_USAGE)
    assert r.err == "objtool: snapshot: 'frob' is neither take nor rm (see objtool snapshot --help)\n"
    r = objtool(image, "snapshot", "take", "a" * 40, rc=EXIT_USAGE)
    assert "is not a snapshot name (1 to 39 printable bytes, no spaces)" in r.err, r
    objtool(image, "snapshot", "take", rc=EXIT_USAGE)
    objtool(image, "snapshots", "extra", rc=EXIT_USAGE)
    r = objtool(image, "snapshot", "rm", "s9", rc=EXIT_NO_SNAPSHOT)
    assert r.err == f"objtool: snapshot rm: no snapshot named 's9' ('objtool {image} snapshots' lists them)\n"
    objtool(image, "stat", "a", "--snapshot", "s9", rc=EXIT_NO_SNAPSHOT)
    objtool(image, "export", "a", tmp_path / "x", "--snapshot", "s9", rc=EXIT_NO_SNAPSHOT)
    assert not (tmp_path / "x").exists()
    objtool(image, "cat", "#1", "--snapshot", "s2", rc=EXIT_FAILED)   # deleted after s1
    assert objtool(image, "cat", "#1", "--snapshot", "s1").out == "a, before\n"
    assert sha(image) == before

    # Removing both gives every page back, and the image stays clean.
    objtool(image, "snapshot", "rm", "s2")
    objtool(image, "snapshot", "rm", "s1")
    rows, rest = listed(image)
    assert rows == {} and rest[0] == "no snapshots", rest
    free, total = re.match(r"area: .*\((\d+) of (\d+) pages\)", rest[-1]).groups()
    assert free == total, rest
    assert_clean_without_snapshots(image)


def assert_clean_without_snapshots(image):
    r = objtool(image, "check")
    assert re.fullmatch(r"check: clean, \d+ objects, \d+ names\n", r.out), r


def test_rm_gives_pages_back_in_transactions_the_log_bounds(tmp_path):
    # Each page given back logs a slot of the area's free stack (64 bytes):
    # 1,500 of them do not fit a 64 KiB log, so rm commits more than once.
    image = tmp_path / "a.nvm"
    objtool("create", "--size", "64M", "--log-size", "64K", image)
    files = 12
    for i in range(files):
        (tmp_path / f"f{i}").write_bytes(os.urandom(512 << 10))
        objtool(image, "import", f"f{i}", tmp_path / f"f{i}")
    objtool(image, "snapshot", "take", "s1")
    for i in range(files):
        objtool(image, "rm", f"f{i}")
    for i in range(files):   # into the pages f0..f11 had: each copied for s1 first
        objtool(image, "import", f"g{i}", tmp_path / f"f{(i + 1) % files}")
    _, rest = listed(image)
    free, total = map(int, re.match(r"area: .*\((\d+) of (\d+) pages\)", rest[-1]).groups())
    assert total - free > files * 128, rest
    for i in range(files):
        assert objtool(image, "cat", f"f{i}", "--snapshot", "s1").raw == (tmp_path / f"f{i}").read_bytes()
    assert objtool(image, "check").out.endswith("; snapshots: 1 checked, clean\n")
    epoch = info_epoch(image)
    r = objtool(image, "snapshot", "rm", "s1")
    given = (total - free) * 4
    assert r.out == f"snapshot rm: 's1' removed; {given / 1024:.1f} MiB given back to the area\n", r
    assert info_epoch(image) - epoch >= 2, "one transaction gave back what a 64 KiB log cannot hold"
    _, rest = listed(image)
    assert re.search(r"\((\d+) of \1 pages\)", rest[-1]), rest
    assert_clean_without_snapshots(image)


def test_the_area_filling_up_drops_every_snapshot_and_says_so(tmp_path):
    image = tmp_path / "a.nvm"
    objtool("create", "--size", "8M", image)       # a 1000 KiB area
    objtool(image, "snapshot", "take", "s1")
    (tmp_path / "big").write_bytes(os.urandom(2 << 20))
    r = objtool(image, "import", "big", tmp_path / "big")
    assert r.err == ("objtool: import: the snapshot area filled up: every snapshot was dropped "
                     "(the changes since the oldest needed more room than the area has)\n"), r
    rows, rest = listed(image)
    assert rows == {} and rest[0] == "no snapshots", rest
    assert rest[-1] == "dropped: the area filled up once, and every snapshot was dropped", rest
    objtool(image, "ls", "--snapshot", "s1", rc=EXIT_NO_SNAPSHOT)
    assert_clean_without_snapshots(image)


def test_an_image_without_a_snapshot_area(tmp_path):
    image = tmp_path / "old.nvm"
    objtool("create", "--size", "8M", "--layout", "2.2", image)  # the area ends the heap
    objtool(image, "import", "a", OBJTOOL)
    # As a layout 1.1 heap is: no area, its fields zero.
    b = bytearray(image.read_bytes())
    for field, value in (("layout_major", 1), ("layout_minor", 1), ("snap_offset", 0),
                         ("snap_size", 0)):
        heapimage.SB.put(b, 0, field, value)
    heapimage.fix_superblock(b)
    image.write_bytes(b)
    before = sha(image)
    r = objtool(image, "snapshots")
    assert r.out == (f"{image} has no snapshot area: it is a layout 1.1 heap, and "
                     f"snapshots came with layout 2.0\n"), r
    for args in (["ls", "--snapshot", "s1"], ["cat", "a", "--snapshot", "s1"],
                 ["snapshot", "take", "s1"], ["snapshot", "rm", "s1"]):
        r = objtool(image, *args, rc=EXIT_NO_SNAPSHOT)
        assert r.err == (f"objtool: {' '.join(args[:2]) if args[0] == 'snapshot' else args[0]}: "
                         f"{image} has no snapshot area (layout 1.1: snapshots came with "
                         f"layout 2.0)\n"), r
    assert_clean_without_snapshots(image)
    assert sha(image) == before


def test_a_locked_image_is_refused(tmp_path):
    image = made(tmp_path, "8M")
    before = sha(image)
    with open(image, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)   # as tools/run-qemu holds it
        for args in (["snapshots"], ["ls", "--snapshot", "s1"], ["snapshot", "take", "s2"],
                     ["snapshot", "rm", "s1"]):
            r = objtool(image, *args, rc=EXIT_IN_USE)
            assert "is in use by a running QEMU" in r.err, r
    assert sha(image) == before


def corrupt_copy(image, name, heap_page, at, xor=0xFF):
    """Flip bits in snapshot `name`'s copy of heap page `heap_page`."""
    b = bytearray(image.read_bytes())
    node = next(n for n in heapimage.snapshot_nodes(b) if n["name"] == name)
    copy = dict(heapimage.snapshot_entries(b, node))[heap_page]
    b[copy + at] ^= xor
    image.write_bytes(b)


def test_check_finds_a_damaged_snapshot_and_rm_removes_it(tmp_path):
    image = made(tmp_path)
    objtool(image, "snapshot", "take", "s2")
    (tmp_path / "d").write_bytes(b"d\n")
    objtool(image, "import", "d", tmp_path / "d")
    root_page = heapimage.geometry(image.read_bytes())["root_offset"] // heapimage.PAGE
    # s1's bytes of the root block, a byte of its object count: only s1 is hit.
    corrupt_copy(image, "s1", root_page, 8)
    before = sha(image)
    r = objtool(image, "check", rc=EXIT_PROBLEMS)
    lines = r.out.splitlines()
    assert lines[-1] == f"check: {len(lines) - 1} problem{'s' if len(lines) > 2 else ''}, " \
                        f"{len(lines) - 1} of them in snapshots", r
    assert all(line.startswith("snapshot s1: ") for line in lines[:-1]), r
    assert any("root block" in line for line in lines[:-1]), r
    r = objtool(image, "cat", "a", "--snapshot", "s1", rc=EXIT_CORRUPT)
    assert r.err.startswith("objtool: cat: snapshot 's1' is corrupt: "), r
    assert objtool(image, "cat", "a", "--snapshot", "s2").out == "a, after\n"
    assert objtool(image, "cat", "a").out == "a, after\n"
    assert sha(image) == before
    # The live state is sound: writes go on, and the way out is to remove s1.
    objtool(image, "snapshot", "rm", "s1")
    r = objtool(image, "check")
    assert r.out.endswith("; snapshots: 1 checked, clean\n"), r


def test_a_damaged_snapshot_node_is_reported_and_never_written(tmp_path):
    image = made(tmp_path)
    clean = image.read_bytes()
    node = heapimage.snapshot_nodes(clean)[0]
    (tmp_path / "x").write_bytes(b"x\n")

    def refused(data, words, why):
        image.write_bytes(data)
        before = sha(image)
        r = objtool(image, "check", rc=EXIT_PROBLEMS)
        assert any(words in line for line in r.out.splitlines()[:-1]), r
        for args in (["snapshot", "rm", "s1"], ["snapshot", "take", "s2"],
                     ["import", "x", tmp_path / "x"], ["rm", "a"]):
            r = objtool(image, *args, rc=EXIT_CORRUPT)
            assert why in r.err, r
        for args in (["cat", "a", "--snapshot", "s1"], ["cat", "a"], ["snapshots"]):
            r = objtool(image, *args, rc=None)
            assert r.rc in (EXIT_OK, EXIT_CORRUPT), r
        assert sha(image) == before

    # A byte of its name: its checksum no longer matches. Every open refuses.
    b = bytearray(clean)
    b[node["off"] + heapimage.SNAP_NODE.offset("name") + 1] ^= 0x20
    refused(b, f"snapshot node {node['index']}: checksum",
            f"corrupt snapshot area: snapshot node {node['index']}: checksum")
    # A parent that is no node in use, the checksum made good: what only the
    # checker's walk sees, which every write runs first.
    b = bytearray(clean)
    heapimage.SNAP_NODE.put(b, node["off"], "parent", 40)
    heapimage.fix_snap_node(b, node["off"])
    refused(b, f"snapshot node {node['index']}: its parent 39 is not in use", "nothing was written")


def killed_inside_an_import(image, name, src):
    """Start an import and SIGKILL it once its transaction has written its
    first undo record (read from the file as it changes); whether the image
    then holds the unfinished transaction (the import may commit first)."""
    with open(image, "rb") as f:
        g = heapimage.geometry(f.read(heapimage.PAGE))
    p = subprocess.Popen([OBJTOOL, str(image), "import", name, str(src)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with open(image, "rb") as f:
            while p.poll() is None:
                f.seek(0)
                epoch = heapimage.SB.get(f.read(heapimage.PAGE), 0, "committed_epoch")
                f.seek(g["log_offset"])
                header = f.read(heapimage.LOG.size)
                if heapimage.LOG.get(header, 0, "epoch") == epoch + 1:
                    break
    finally:
        p.kill()
        p.wait()
    return "holds an unfinished transaction" in objtool(image, "info").out


def test_snapshots_read_as_the_next_open_sees_an_unfinished_transaction(tmp_path):
    image = tmp_path / "a.nvm"
    (tmp_path / "keep").write_bytes(b"kept\n")
    (tmp_path / "big").write_bytes(os.urandom(20 << 20))
    for _ in range(10):
        objtool("create", "--size", "256M", "--force", image)
        objtool(image, "import", "keep", tmp_path / "keep")
        objtool(image, "snapshot", "take", "s1")
        objtool(image, "rm", "keep")
        if killed_inside_an_import(image, "big", tmp_path / "big"):
            break
    else:
        pytest.fail("every import committed before it was killed")
    before = sha(image)
    # Each copy a snapshot is read from rolls the transaction back as
    # objtool's own view does, so the snapshot reads whole.
    assert objtool(image, "ls").out == ""
    assert objtool(image, "ls", "--snapshot", "s1").out == "keep\n"
    assert objtool(image, "cat", "keep", "--snapshot", "s1").out == "kept\n"
    r = objtool(image, "check")
    assert r.out == ("check: clean, 0 objects, 0 names; snapshots: 1 checked, clean (after "
                     "rolling back an unfinished transaction, in objtool's view only)\n"), r
    assert sha(image) == before
