"""test_objtool_corrupt.py -- objtool on images with one flipped metadata bit.

The objstore issue's corruption campaign, as a user meets it: an image made
and filled by objtool, with a snapshot taken and changes after it, then,
trial after trial, a copy of it with one random bit flipped in a random
metadata byte (superblock, root block, page descriptors, the free-page
stack, object headers, catalogue nodes, the snapshot area's header and the
snapshot's node; the offsets are found by heapimage.metadata_ranges, which
reads the structures with the layouts of objstore/include/objstore/format.h,
as tools/heapformat/ takes them from the compiler). On each copy:

  - `objtool IMG check` must find it (exit 7 problems, 5 corrupt, 3 not a
    Ferrite image -- or 4 when the flip landed in layout_major, which is
    indistinguishable from a newer layout), never exit 0, never die of a
    signal;
  - a write command (`objtool IMG import x FILE`) must then refuse, and
    leave every byte of the image file as it was: objtool never writes to
    an image it found corrupt.

The superblock's committed_epoch is not flipped: one 8-byte
store of it is the commit, so any value is a valid epoch (test_corrupt.c).
"""

import hashlib
import os
import random
import subprocess

from ferrite import ROOT
from heapimage import SB, metadata_ranges

OBJTOOL = os.path.join(ROOT, "build", "objtool")

EXIT_OK = 0
EXIT_NOT_IMAGE = 3
EXIT_VERSION = 4
EXIT_CORRUPT = 5
EXIT_PROBLEMS = 7

TRIALS = 150
SEED = 20240611


def objtool(*args):
    proc = subprocess.run([OBJTOOL] + [str(a) for a in args],
                          capture_output=True, timeout=120)
    return proc


def ok(proc):
    assert proc.returncode == EXIT_OK, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_a_flipped_metadata_bit_is_found_and_never_written(tmp_path):
    rng = random.Random(SEED)
    image = tmp_path / "a.nvm"
    ok(objtool("create", "--size", "16M", image))
    for i in range(12):
        src = tmp_path / f"src{i}"
        src.write_bytes(rng.randbytes(rng.choice([1, 100, 3000, 5000, 20000, 70000])))
        ok(objtool(image, "import", f"dir{i % 3}/file-{i}", src))
    ok(objtool(image, "rm", "dir1/file-4"))
    # A snapshot, and changes after it: a node in use, with a list.
    ok(objtool(image, "snapshot", "take", "s1"))
    ok(objtool(image, "mv", "dir2/file-5", "renamed/file-5"))
    ok(objtool(image, "rm", "dir0/file-0"))
    ok(objtool(image, "check"))
    clean = image.read_bytes()
    kinds = metadata_ranges(clean)
    assert all(kinds.values()), {k: len(v) for k, v in kinds.items()}
    assert "snapshot node" in kinds, sorted(kinds)
    newfile = tmp_path / "x"
    newfile.write_bytes(b"new contents " * 100)

    copy = tmp_path / "copy.nvm"
    names = sorted(kinds)
    failures = []
    counts = {k: [0, 0] for k in names}    # trials, found
    for trial in range(TRIALS):
        kind = names[trial % len(names)]
        off, length = rng.choice(kinds[kind])
        off += rng.randrange(length)
        bit = rng.randrange(8)
        data = bytearray(clean)
        data[off] ^= 1 << bit
        copy.write_bytes(data)
        where = f"{kind}: offset {off:#x} bit {bit}"
        counts[kind][0] += 1

        check = objtool(copy, "check")
        if check.returncode < 0:
            failures.append(f"{where}: check died of signal {-check.returncode}")
            continue
        allowed = {EXIT_PROBLEMS, EXIT_CORRUPT, EXIT_NOT_IMAGE}
        if SB.offset("layout_major") <= off < SB.offset("layout_minor"):
            allowed.add(EXIT_VERSION)
        if check.returncode not in allowed:
            failures.append(f"{where}: check exited {check.returncode}: "
                            f"{check.stdout.decode()[-300:]!r}")
            continue
        counts[kind][1] += 1

        before = sha(copy)
        write = objtool(copy, "import", "x", newfile)
        if write.returncode < 0:
            failures.append(f"{where}: import died of signal {-write.returncode}")
        elif write.returncode == EXIT_OK:
            failures.append(f"{where}: import succeeded on an image check called "
                            f"corrupt (check exit {check.returncode}: "
                            f"{check.stdout.decode().splitlines()[:1]})")
        elif sha(copy) != before:
            failures.append(f"{where}: import refused (exit {write.returncode}) but "
                            f"wrote to the image: {write.stderr.decode().strip()[:200]!r}")

    for kind in names:
        print(f"corrupt: {kind}: {counts[kind][0]} trials, {counts[kind][1]} found by check")
    print(f"corrupt: {TRIALS} trials, {len(failures)} failures")
    for f in failures:
        print("  " + f)
    summary = {}
    for f in failures:
        kind, rest = f.split(": offset", 1)
        what = rest.split(": ", 1)[1].split(" (")[0].split(":")[0]
        summary[(kind, what)] = summary.get((kind, what), 0) + 1
    assert not failures, (f"{len(failures)} of {TRIALS} trials failed:\n" +
                          "".join(f"  {n} x {k}: {w}\n" for (k, w), n in sorted(summary.items())) +
                          "\n".join(failures))
