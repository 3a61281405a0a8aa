"""test_objtool_corrupt.py -- objtool on images with one flipped metadata bit.

The objstore issue's corruption campaign, as a user meets it: an image made
and filled by objtool, then, trial after trial, a copy of it with one random
bit flipped in a random metadata byte (superblock, root block, page
descriptors, the free-page stack, object headers, catalogue nodes; the
offsets are found by reading the structures with struct, as
objstore/include/objstore/format.h lays them out). On each copy:

  - `objtool IMG check` must find it (exit 7 problems, 5 corrupt, 3 not a
    Ferrite image -- or 4 when the flip landed in layout_major, which is
    indistinguishable from a newer layout), never exit 0, never die of a
    signal;
  - a write command (`objtool IMG import x FILE`) must then refuse, and
    leave every byte of the image file as it was: objtool never writes to
    an image it found corrupt.

The superblock's committed_epoch (offset 256) is not flipped: one 8-byte
store of it is the commit, so any value is a valid epoch (test_corrupt.c).
"""

import hashlib
import os
import random
import shutil
import struct
import subprocess

from ferrite import ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")

EXIT_OK = 0
EXIT_NOT_IMAGE = 3
EXIT_VERSION = 4
EXIT_CORRUPT = 5
EXIT_PROBLEMS = 7

PAGE = 4096
TRIALS = 150
SEED = 20240611

# struct os_superblock
SB_LAYOUT_MAJOR = 8
SB_CRC_END = 256              # [0, 256): everything the crc covers, and the crc
SB_GEOMETRY = 40              # root, log, log_size, desc, stack, data, page_count
# struct os_root
ROOT_SIZE = 256
# struct os_page_desc, struct os_obj_header, struct os_cat_node, struct os_cat_entry
DESC_SIZE = 32
HEADER_SIZE = 64
CAT_HEADER = 32
CAT_ENTRY_HDR = 13


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


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def metadata_ranges(img):
    """{kind: [(offset, length), ...]} of the meaningful metadata bytes."""
    (root_off, log_off, log_size, desc_off, stack_off, data_off,
     page_count) = struct.unpack_from("<7Q", img, SB_GEOMETRY)
    (next_id, object_count, index_root, index_depth, _r0, cat_root, cat_count,
     free_top) = struct.unpack_from("<3QII3Q", img, root_off)
    kinds = {
        "superblock": [(0, SB_CRC_END)],
        "root block": [(root_off, ROOT_SIZE)],
        "page descriptor": [(desc_off + DESC_SIZE * p, DESC_SIZE)
                            for p in range(page_count)],
        "free-page stack": [(stack_off, 4 * free_top)],
        "object header": [],
        "catalogue node": [],
    }

    def id_page(off, level):
        for i in range(512):
            e = u64(img, off + 8 * i)
            if not e:
                continue
            if level:
                id_page(e, level - 1)
            else:
                kinds["object header"].append((e, HEADER_SIZE))

    def cat_node(off):
        level = img[off + 4]
        count = struct.unpack_from("<H", img, off + 6)[0]
        first = u64(img, off + 16)
        nodes = kinds["catalogue node"]
        nodes.append((off, CAT_HEADER + 8 * count))        # header, live slots
        for i in range(count):
            at = u64(img, off + CAT_HEADER + 8 * i) & 0xfff
            length = img[off + at + 12]
            nodes.append((off + at, CAT_ENTRY_HDR + length))  # a live entry
            if level:
                cat_node(u64(img, off + at + 4))
        if level:
            cat_node(first)

    if index_root:
        id_page(index_root, index_depth - 1)
    if cat_root:
        cat_node(cat_root)
    assert len(kinds["object header"]) == object_count
    return kinds


def test_a_flipped_metadata_bit_is_found_and_never_written(tmp_path):
    rng = random.Random(SEED)
    image = tmp_path / "a.nvm"
    ok(objtool("create", "--size", "16M", image))
    for i in range(12):
        src = tmp_path / f"src{i}"
        src.write_bytes(rng.randbytes(rng.choice([1, 100, 3000, 5000, 20000, 70000])))
        ok(objtool(image, "import", f"dir{i % 3}/file-{i}", src))
    ok(objtool(image, "rm", "dir1/file-4"))
    ok(objtool(image, "mv", "dir2/file-5", "renamed/file-5"))
    ok(objtool(image, "check"))
    clean = image.read_bytes()
    kinds = metadata_ranges(clean)
    assert all(kinds.values()), {k: len(v) for k, v in kinds.items()}
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
        if SB_LAYOUT_MAJOR <= off < SB_LAYOUT_MAJOR + 2:
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
