"""test_objtool.py -- objtool, the offline image tool, as a person uses it.

Every test runs build/objtool in a subprocess on images in a temporary
directory and looks only at what a user sees: exit statuses, stdout and
stderr, the files it writes, and (for the refusals) whether the image file
was touched at all. docs/objtool.md is the specification.

There is no test with the real kernel yet: the kernel does not use objstore
until the next issue, so no image written by Ferrite exists to read.
"""

import fcntl
import hashlib
import json
import os
import random
import re
import signal
import struct
import subprocess
import time

import pytest

import heapimage

from ferrite import ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
HELLO = os.path.join(ROOT, "build", "user", "bin", "hello")   # a program the kernel runs

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_IMAGE = 3
EXIT_VERSION = 4
EXIT_CORRUPT = 5
EXIT_IN_USE = 6
EXIT_PROBLEMS = 7

MIB = 1 << 20
SB_LAYOUT_MAJOR = heapimage.SB.offset("layout_major")
SB_HEAP_ID = heapimage.SB.offset("heap_id")


class Run:
    """What one objtool run did."""

    def __init__(self, args, proc):
        self.args = args
        self.rc = proc.returncode
        self.raw = proc.stdout
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")

    def __repr__(self):
        return (f"objtool {' '.join(self.args)} -> {self.rc}\n"
                f"stdout: {self.out[:2000]!r}\nstderr: {self.err!r}")


def objtool(*args, rc=EXIT_OK):
    """Run objtool; assert its exit status is rc (None: any)."""
    args = [str(a) for a in args]
    proc = subprocess.run([OBJTOOL] + args, capture_output=True, timeout=120)
    r = Run(args, proc)
    if rc is not None:
        assert r.rc == rc, r
    return r


def create(path, size="8M", *extra):
    """A fresh empty image."""
    objtool("create", "--size", size, *extra, path)
    return path


def write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def names(image, *args):
    """ls output as a list of names."""
    return objtool(image, "ls", *args).out.splitlines()


def info(image):
    """info as a dict of its lines."""
    out = objtool(image, "info").out
    return dict(line.split(":", 1) for line in out.splitlines())


def counts(image):
    """(objects, names, used pages) from info."""
    i = info(image)
    used = int(re.search(r"(\d+) used", i["data pages"]).group(1))
    return int(i["objects"]), int(i["names"]), used


def snapshot(path):
    """The file's bytes (hashed), size and modification time."""
    st = os.stat(path)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return digest, st.st_size, st.st_mtime_ns


def assert_clean(image):
    r = objtool(image, "check")
    assert r.out.splitlines()[-1].startswith("check: clean"), r
    return r


def elf_header(e_class=2, e_data=1, e_type=2, e_machine=62):
    """An ELF file header (and a little more) without program headers, for --type code."""
    ident = b"\x7fELF" + bytes([e_class, e_data, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", e_type, e_machine, 1,
                                 0x401000, 64, 0, 0, 64, 56, 0, 64, 0, 0)
    return header + bytes(200)


@pytest.fixture(autouse=True)
def built():
    if not os.access(OBJTOOL, os.X_OK):
        pytest.fail(f"{OBJTOOL} is missing: run make")


# --- the command line --------------------------------------------------------

def test_help_for_objtool_and_every_command(tmp_path):
    r = objtool("--help")
    for command in ("info", "ls", "stat", "cat", "import", "export", "rm",
                    "mv", "fill", "snapshots", "snapshot", "check", "create", "du", "dump"):
        assert f"  {command}" in r.out, r
        sub = objtool(command, "--help")
        assert sub.out.startswith("usage: objtool "), sub
        assert command in sub.out.splitlines()[0]
        # The image need not exist for help.
        assert objtool(tmp_path / "none.nvm", command, "--help").out == sub.out
    for status in range(9):
        assert re.search(rf"^  {status}  ", r.out, re.M), r
    assert objtool("help", "ls").out == objtool("ls", "--help").out


def test_usage_errors_exit_2(tmp_path):
    image = create(tmp_path / "a.nvm")
    for args in ([], [image], [image, "frob"], [image, "stat"],
                 [image, "ls", "--frob"], [image, "ls", "a", "b"],
                 [image, "mv", "a"], [image, "import", "x"],
                 [image, "import", "x", "y", "--type", "elf"],
                 [image, "create"], ["ls"]):
        r = objtool(*args, rc=EXIT_USAGE)
        assert r.err.startswith("objtool: ") and r.err.count("\n") == 1, r


# --- create and info --------------------------------------------------------

def test_create_then_info(tmp_path):
    image = tmp_path / "a.nvm"
    r = objtool("create", "--size", "64M", image)
    assert "64 MiB" in r.out and "log 4 MiB" in r.out, r
    st = os.stat(image)
    assert st.st_size == 64 * MIB
    assert st.st_blocks * 512 < 8 * MIB, "the image should be sparse"
    i = info(image)
    assert i["layout version"].strip() == "2.3"
    assert re.fullmatch(r" +[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                        i["heap id"])
    assert "67108864 bytes" in i["size"]
    assert re.search(r"\d+ of 4096 bytes: 0 used, \d+ free", i["data pages"])
    assert i["objects"].strip() == "0" and i["names"].strip() == "0"
    assert i["app roots"].strip() == "none"
    assert i["committed epoch"].strip() == "1"
    assert i["log"].strip() == "4 MiB, empty (no unfinished transaction)"
    assert_clean(image)


def test_create_refuses_an_existing_file_unless_force(tmp_path):
    image = create(tmp_path / "a.nvm")
    heap_id = info(image)["heap id"]
    before = snapshot(image)
    r = objtool("create", "--size", "8M", image, rc=EXIT_FAILED)
    assert "exists" in r.err and "--force" in r.err
    assert snapshot(image) == before
    objtool("create", "--size", "16M", "--force", image)
    assert os.stat(image).st_size == 16 * MIB
    assert info(image)["heap id"] != heap_id


def test_create_takes_image_first_like_every_command(tmp_path):
    """objtool IMAGE create --size SIZE: what a user tries after objtool IMAGE info."""
    image = tmp_path / "-odd.nvm"
    r = objtool(image, "create", "--size", "16M", "--log-size", "64K")
    assert "16 MiB" in r.out and "log 64 KiB" in r.out, r
    assert os.stat(image).st_size == 16 * MIB
    assert info(image)["log"].strip().startswith("64 KiB")
    assert_clean(image)
    # the same refusals as the other form, the image untouched
    before = snapshot(image)
    r = objtool(image, "create", "--size", "8M", rc=EXIT_FAILED)
    assert "exists" in r.err and "--force" in r.err, r
    objtool(image, "create", "--size", "3M", "--force", rc=EXIT_USAGE)
    objtool(image, "create", "--size", "8M", "other.nvm", rc=EXIT_USAGE)
    assert snapshot(image) == before
    objtool(image, "create", "--force", "--size", "8M")
    assert os.stat(image).st_size == 8 * MIB


def test_du_sums_each_prefix_largest_first(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    sizes = {"bin/a": 10000, "bin/b": 4096, "notes/x": 100, "notes/old/y": 5000, "top": 50}
    for name, size in sizes.items():
        f = tmp_path / "file"
        f.write_bytes(b"x" * size)
        objtool(image, "import", name, f)
    before = snapshot(image)
    r = objtool(image, "du")
    assert r.out.splitlines() == [
        "         BYTES       SIZE  OBJECTS  NAMES",
        "         16384     16 KiB        2  bin/",
        "         12288     12 KiB        2  notes/",
        "          4096      4 KiB        1  top",
        "         32768     32 KiB        5  total"], r.out
    r = objtool(image, "du", "notes/")
    assert r.out.splitlines()[1:] == [
        "          8192      8 KiB        1  notes/old/",
        "          4096      4 KiB        1  notes/x",
        "         12288     12 KiB        2  total under notes/"], r.out
    assert objtool(image, "du", "nothing/").out.splitlines()[1:] == [
        "             0        0 B        0  total under nothing/"]
    objtool(image, "du", "x" * 300, rc=EXIT_USAGE)
    objtool(image, "du", "a", "b", rc=EXIT_USAGE)
    objtool(image, "du", "--snapshot", "none", rc=8)
    assert snapshot(image) == before   # read-only


def test_dump_shows_the_file_bytes(tmp_path):
    image = create(tmp_path / "a.nvm", "8M")
    raw = open(image, "rb").read()
    before = snapshot(image)
    r = objtool(image, "dump", "--range", "0:32")
    assert r.out.splitlines() == [
        "0000000000000000  " + "  ".join(" ".join("%02x" % b for b in raw[i:i + 8])
                                         for i in (0, 8))
        + "  |" + "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in raw[:16]) + "|",
        "0000000000000010  " + "  ".join(" ".join("%02x" % b for b in raw[i:i + 8])
                                         for i in (16, 24))
        + "  |" + "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in raw[16:32]) + "|",
        "0000000000000020"], r.out
    assert r.out.startswith("0000000000000000  46 45 52 52 48 45 41 50")  # FERRHEAP
    # a run of equal lines is one '*'; a short last line; the end offset
    zero = next(o for o in range(MIB, 8 * MIB, 4096) if raw[o:o + 40] == bytes(40))
    out = objtool(image, "dump", "--range", "%d:40" % zero).out.splitlines()
    assert out == ["%016x  " % zero + "00 " * 8 + " " + "00 " * 8 + " |" + "." * 16 + "|",
                   "*",
                   "%016x  " % (zero + 32) + "00 " * 8 + " " + "   " * 8 + " |" + "." * 8 + "|",
                   "%016x" % (zero + 40)], out
    # --binary: the bytes themselves, hex offsets
    p = subprocess.run([OBJTOOL, str(image), "dump", "--range", "0x100:4K", "--binary"],
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == raw[0x100:0x1100]
    for bad in ("0:9M", "8M:1", "x:1", "1", "0x:4", "1:2:3"):
        objtool(image, "dump", "--range", bad, rc=EXIT_USAGE)
    objtool(image, "dump", rc=EXIT_USAGE)
    assert snapshot(image) == before   # read-only
    not_image = tmp_path / "zero.nvm"
    not_image.write_bytes(bytes(8 * MIB))
    objtool(not_image, "dump", "--range", "0:16", rc=3)


def test_info_stats_counts_types_slabs_free_runs_and_the_log(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    f = tmp_path / "file"
    for name, size in (("a", 10000), ("b", 100), ("c", 5000)):
        f.write_bytes(b"x" * size)
        objtool(image, "import", name, f)
    f.write_bytes(b"\x7fELF" + b"x" * 4092)
    before = snapshot(image)
    plain = objtool(image, "info").out
    out = objtool(image, "info", "--stats").out
    assert out.startswith(plain), out            # info, then the figures
    lines = out[len(plain):].splitlines()
    assert lines[1].split() == ["objects", "by", "type:", "TYPE", "OBJECTS", "BYTES", "HELD"]
    # three blobs: 15,100 bytes in 3 + 1 + 2 data pages
    assert lines[2].split() == ["blob", "3", "15100", str(6 * 4096)], out
    assert re.search(r"^slabs: +BLOCK +PAGES +BLOCKS USED +OCCUPANCY$", out, re.M), out
    free = int(re.search(r"(\d+) free \(", plain).group(1))
    m = re.search(r"^free pages: +(\d+) \(.*\) in (\d+) runs?, the largest (\d+) pages", out, re.M)
    assert m and int(m.group(1)) == free and 1 <= int(m.group(2)), out
    assert int(m.group(3)) <= free
    frag = int(re.search(r"^fragmentation: +(\d+)%", out, re.M).group(1))
    assert frag == (free - int(m.group(3))) * 100 // free
    hw = re.search(r"^log high water: +(.*) of 1 MiB", out, re.M)
    assert hw and hw.group(1) not in ("0 B",), out   # the imports were logged
    assert re.search(r"^age: +epoch \d+ \(no kernel has run on this heap\)$", out, re.M), out
    assert snapshot(image) == before   # read-only


def test_create_refuses_bad_sizes(tmp_path):
    image = tmp_path / "a.nvm"
    for size in ("3M", "5M", "64Q", "", "-8M"):
        objtool("create", "--size", size, image, rc=EXIT_USAGE)
    objtool("create", image, rc=EXIT_USAGE)
    objtool("create", "--size", "8M", "--log-size", "1000", image, rc=EXIT_USAGE)
    assert not image.exists()
    objtool("create", "--size", "8M", "--log-size", "64K", image)
    assert info(image)["log"].strip().startswith("64 KiB")


# --- import, export, cat ---------------------------------------------------

def test_import_export_round_trip_10_mib(tmp_path):
    image = create(tmp_path / "a.nvm", "64M")
    data = os.urandom(10 * MIB)
    src = write_file(tmp_path / "in.bin", data)
    r = objtool(image, "import", "big/file", src)
    assert re.match(r"import: 'big/file' is #\d+, blob, 10485760 bytes", r.out), r
    objtool(image, "export", "big/file", tmp_path / "out.bin")
    assert (tmp_path / "out.bin").read_bytes() == data
    assert objtool(image, "cat", "big/file").raw == data
    assert counts(image)[:2] == (1, 1)
    assert_clean(image)


def test_import_edge_sizes(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    for size in (0, 1, 4095, 4096, 4097, 3 * 4096 + 7, 512 * 4096 + 1):
        data = os.urandom(size)
        src = write_file(tmp_path / f"in{size}", data)
        objtool(image, "import", f"f{size}", src)
        assert objtool(image, "cat", f"f{size}").raw == data, size
        assert f"size:      {size} bytes" in objtool(image, "stat", f"f{size}").out
    assert_clean(image)


def test_import_refuses_a_bound_name_unless_replace(tmp_path):
    image = create(tmp_path / "a.nvm")
    objtool(image, "import", "x", write_file(tmp_path / "one", b"one" * 3000))
    _, _, used = counts(image)
    r = objtool(image, "import", "x", write_file(tmp_path / "two", b"two"),
                rc=EXIT_FAILED)
    assert r.err == "objtool: import: 'x' already exists (--replace replaces it)\n"
    assert objtool(image, "cat", "x").raw == b"one" * 3000
    objtool(image, "import", "x", tmp_path / "two", "--replace")
    assert objtool(image, "cat", "x").raw == b"two"
    objects, nnames, used_after = counts(image)
    assert (objects, nnames) == (1, 1), "the replaced object is deleted"
    assert used_after < used
    assert_clean(image)


def ferrite_pie():
    """bin/hello with e_type ET_DYN: a position-independent Ferrite program"""
    with open(HELLO, "rb") as f:
        data = bytearray(f.read())
    data[16:18] = (3).to_bytes(2, "little")
    return bytes(data)


def test_import_code_checks_the_program_as_a_spawn_does(tmp_path):
    # objtool runs the kernel's own checker (kernel/task/elf.c): the
    # reasons are the kernel's, and it looks past the file header.
    image = create(tmp_path / "a.nvm")
    cases = {
        "random": (os.urandom(4096), "not an ELF file"),
        "short": (b"\x7fELF", "file too short for an ELF header"),
        "elf32": (elf_header(e_class=1), "not a 64-bit ELF file"),
        "bigendian": (elf_header(e_data=2), "not a little-endian ELF file"),
        "arm": (elf_header(e_machine=183), "not x86_64"),
        # a Ferrite program (it carries Ferrite's note) made position-independent
        "pie": (ferrite_pie(), "position-independent executables and shared "
                "objects are not supported"),
        "object": (elf_header(e_type=1), "relocatable object files are not supported"),
        "nosegments": (elf_header(), "no program headers"),
    }
    for name, (data, why) in cases.items():
        src = write_file(tmp_path / name, data)
        r = objtool(image, "import", f"bin/{name}", src, "--type", "code",
                    rc=EXIT_FAILED)
        assert f"import: {src}: {why}" in r.err and "ELF64 x86_64 executable" in r.err, r
        # The same bytes are a fine blob.
        objtool(image, "import", f"blob/{name}", src)
    objtool(image, "import", "bin/hello", HELLO, "--type", "code")
    assert "type:      code" in objtool(image, "stat", "bin/hello").out
    assert names(image, "bin/") == ["bin/hello"]
    assert_clean(image)


def test_import_refuses_missing_or_odd_files(tmp_path):
    image = create(tmp_path / "a.nvm")
    r = objtool(image, "import", "x", tmp_path / "nope", rc=EXIT_FAILED)
    assert "cannot open" in r.err
    objtool(image, "import", "x", tmp_path, rc=EXIT_FAILED)
    objtool(image, "import", "x", image, rc=EXIT_USAGE)
    objtool(image, "import", "", write_file(tmp_path / "f", b"f"), rc=EXIT_USAGE)
    objtool(image, "import", "n" * 256, tmp_path / "f", rc=EXIT_USAGE)
    objtool(image, "import", "n" * 255, tmp_path / "f")
    assert names(image) == ["n" * 255]


def test_import_larger_than_the_heap_is_refused_before_writing(tmp_path):
    image = create(tmp_path / "a.nvm", "8M")
    before = snapshot(image)
    src = write_file(tmp_path / "big", os.urandom(9 * MIB))
    r = objtool(image, "import", "big", src, rc=EXIT_FAILED)
    assert "data pages" in r.err and "free" in r.err, r
    assert snapshot(image) == before


# --- ls ----------------------------------------------------------------------

def test_ls_lists_names_in_byte_order_with_prefix_and_long_form(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    rng = random.Random(7)
    wanted = ["bin", "bin/", "bin/osh", "bin/counter", "bin/osh2", "etc/motd",
              "a", "aa", "a/b", "B", "zz", "~tilde", "name with spaces"]
    wanted += [f"dir{rng.randrange(100)}/file{i}" for i in range(30)]
    order = wanted[:]
    rng.shuffle(order)
    for i, name in enumerate(order):
        src = write_file(tmp_path / "data", b"x" * (i * 1000))
        objtool(image, "import", name, src)
    expected = sorted(wanted, key=lambda s: s.encode())
    assert names(image) == expected
    assert names(image, "bin") == [n for n in expected if n.startswith("bin")]
    assert names(image, "bin/") == ["bin/", "bin/counter", "bin/osh", "bin/osh2"]
    assert names(image, "nothing") == []

    lines = objtool(image, "ls", "-l").out.splitlines()
    assert len(lines) == len(expected)
    starts = set()
    for line, name in zip(lines, expected):
        assert line.endswith(" " + name)
        fields = line[:-len(name)].split()
        assert len(fields) == 5, line
        ident, kind, size, refs, epoch = fields
        assert re.fullmatch(r"#\d+", ident) and kind == "blob"
        assert int(size) == order.index(name) * 1000
        assert int(refs) == 1 and int(epoch) >= 2
        starts.add(len(line) - len(name))
    assert len(starts) == 1, "the columns are aligned: every name starts at one column"
    assert objtool(image, "ls", "--long", "bin/").out.splitlines() == \
        [line for line in lines if re.search(r" bin/", line)]


def test_ls_escapes_control_bytes(tmp_path):
    image = create(tmp_path / "a.nvm")
    src = write_file(tmp_path / "f", b"f")
    objtool(image, "import", "two\nlines", src)
    objtool(image, "import", "back\\slash", src)
    objtool(image, "import", "--", "-dash", src)
    assert names(image) == ["-dash", "back\\\\slash", "two\\x0alines"]
    objtool(image, "rm", "--", "-dash")


# --- stat, cat, rm, mv -------------------------------------------------------

def test_stat_cat_rm_mv_and_their_errors(tmp_path):
    image = create(tmp_path / "a.nvm")
    data = os.urandom(20000)
    objtool(image, "import", "doc", write_file(tmp_path / "f", data))
    st = objtool(image, "stat", "doc").out
    ident = re.search(r"^id: +#(\d+)$", st, re.M).group(1)
    assert "type:      blob\n" in st
    assert "size:      20000 bytes (19.5 KiB)\n" in st
    assert "placement: paged, 5 data pages\n" in st
    assert "refcount:  1\n" in st
    assert re.search(r"^modified:  epoch \d+$", st, re.M)
    assert "mode:      unset (shown as 0644)\n" in st
    assert re.search(r"^mtime:     20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} UTC$", st, re.M)
    assert "names:     'doc'\n" in st
    assert objtool(image, "stat", f"#{ident}").out == st
    assert objtool(image, "cat", f"#{ident}").raw == data

    r = objtool(image, "stat", "nope", rc=EXIT_FAILED)
    assert r.err == "objtool: stat: no object named 'nope'\n"
    r = objtool(image, "stat", "#999", rc=EXIT_FAILED)
    assert r.err == "objtool: stat: no object #999\n"
    r = objtool(image, "cat", "nope", rc=EXIT_FAILED)
    assert r.err == "objtool: cat: no object named 'nope'\n" and r.raw == b""
    objtool(image, "export", "nope", tmp_path / "out", rc=EXIT_FAILED)

    objtool(image, "mv", "doc", "docs/readme")
    assert names(image) == ["docs/readme"]
    assert objtool(image, "stat", "docs/readme").out == st.replace("'doc'", "'docs/readme'")
    r = objtool(image, "mv", "doc", "x", rc=EXIT_FAILED)
    assert r.err == "objtool: mv: no object named 'doc'\n"
    objtool(image, "import", "other", write_file(tmp_path / "g", b"g"))
    r = objtool(image, "mv", "other", "docs/readme", rc=EXIT_FAILED)
    assert r.err == "objtool: mv: 'docs/readme' already exists\n"
    objtool(image, "mv", "other", "", rc=EXIT_USAGE)

    r = objtool(image, "rm", "other", "nope", rc=EXIT_FAILED)
    assert r.err == "objtool: rm: no object named 'nope'\n"
    assert names(image) == ["docs/readme", "other"], "a failed rm removes nothing"
    objtool(image, "rm", "other", "other", rc=EXIT_USAGE)
    objtool(image, "rm", "other", "docs/readme")
    assert names(image) == []
    assert counts(image) == (0, 0, 0), "the objects and their pages are freed"
    objtool(image, "stat", f"#{ident}", rc=EXIT_FAILED)
    assert_clean(image)


def test_fill_makes_many_names_in_order_in_batches(tmp_path):
    image = create(tmp_path / "a.nvm", "8M", "--log-size", "64K")
    r = objtool(image, "fill", "f/", "2000", "--size", "8K")
    assert r.out == "fill: 2000 blobs of 8192 bytes, f/0000 to f/1999\n", r
    names = objtool(image, "ls", "f/").out.split()
    assert names == ["f/%04d" % i for i in range(2000)]
    assert "size:      8192 bytes" in objtool(image, "stat", "f/1234").out
    info = objtool(image, "info").out
    assert re.search(r"committed epoch:\s+(\d+)", info).group(1) != "2"  # batches
    objtool(image, "check")
    # Any name already bound: nothing is written.
    before = open(image, "rb").read()
    r = objtool(image, "fill", "f/", "3000", rc=EXIT_FAILED)
    assert r.err == "objtool: fill: 'f/0000' already exists\n", r
    assert open(image, "rb").read() == before
    for args in (["fill", "g/", "0"], ["fill", "g/", "many"],
                 ["fill", "g/", "1", "--size", "big"], ["fill", "x" * 255, "10"]):
        objtool(image, *args, rc=EXIT_USAGE)


def test_each_write_is_one_epoch(tmp_path):
    image = create(tmp_path / "a.nvm")
    epoch = lambda: int(info(image)["committed epoch"])
    src = write_file(tmp_path / "f", b"f" * 10000)
    objtool(image, "import", "a", src)
    assert epoch() == 2
    objtool(image, "mv", "a", "b")
    assert epoch() == 3
    objtool(image, "rm", "b")
    assert epoch() == 4
    objtool(image, "rm", "b", rc=EXIT_FAILED)
    assert epoch() == 4, "a refused command writes nothing"


def test_log_too_small_for_an_import_is_refused(tmp_path):
    image = create(tmp_path / "a.nvm", "64M", "--log-size", "64K")
    src = write_file(tmp_path / "big", os.urandom(20 * MIB))
    r = objtool(image, "import", "big", src, rc=EXIT_FAILED)
    assert "does not fit the image's 64 KiB undo log" in r.err, r
    assert "nothing was changed" in r.err
    assert names(image) == [] and counts(image) == (0, 0, 0)
    assert_clean(image)
    # docs/objtool.md: a log of L bytes takes an import of 15.8 * (L - 28 KiB),
    # and whatever import took, rm can delete again.
    fits = int(15.8 * (64 - 28) * 1024)
    objtool(image, "import", "fits", write_file(tmp_path / "fits", os.urandom(fits)))
    assert_clean(image)
    objtool(image, "rm", "fits")
    r = objtool(image, "import", "big", write_file(tmp_path / "big", os.urandom(MIB)),
                rc=EXIT_FAILED)
    assert "undo log" in r.err
    assert counts(image) == (0, 0, 0)
    assert_clean(image)


# --- refusals: nothing written ----------------------------------------------

def every_command(image, tmp_path):
    """One run of each kind of command: read-only and writing."""
    src = write_file(tmp_path / "src", b"data")
    return [["info"], ["ls"], ["ls", "-l"], ["stat", "x"], ["cat", "x"],
            ["export", "x", tmp_path / "out"], ["import", "y", src],
            ["rm", "x"], ["mv", "x", "z"]]


def refused_everywhere(image, tmp_path, rc, message, check_rc=None):
    """Every command refuses `image` with rc and message, and writes nothing."""
    before = snapshot(image)
    for args in every_command(image, tmp_path):
        r = objtool(image, *args, rc=rc)
        assert message in r.err and r.err.count("\n") == 1, r
    r = objtool(image, "check", rc=check_rc if check_rc is not None else rc)
    assert snapshot(image) == before, "objtool wrote to an image it refused"
    return r


def test_refuses_a_file_that_is_not_an_image(tmp_path):
    junk = write_file(tmp_path / "junk.nvm", os.urandom(8 * MIB))
    refused_everywhere(junk, tmp_path, EXIT_NOT_IMAGE,
                       f"objtool: {junk} is not a Ferrite image")
    empty = write_file(tmp_path / "empty.nvm", b"")
    refused_everywhere(empty, tmp_path, EXIT_NOT_IMAGE, "is not a Ferrite image")


def test_refuses_a_newer_layout_version(tmp_path):
    image = create(tmp_path / "a.nvm")
    objtool(image, "import", "x", write_file(tmp_path / "f", b"f"))
    with open(image, "r+b") as f:
        # Only the version: no checksum recomputed. os_probe looks at the
        # version before the checksum, so this must read as a version.
        f.seek(SB_LAYOUT_MAJOR)
        f.write(struct.pack("<HH", 3, 1))
    refused_everywhere(image, tmp_path, EXIT_VERSION,
                       f"objtool: {image}: layout version 3.1, this objtool reads 1.x to 2.x")


def test_refuses_a_corrupt_superblock(tmp_path):
    image = create(tmp_path / "a.nvm")
    objtool(image, "import", "x", write_file(tmp_path / "f", b"f"))
    with open(image, "r+b") as f:
        f.seek(SB_HEAP_ID + 5)
        byte = f.read(1)[0]
        f.seek(SB_HEAP_ID + 5)
        f.write(bytes([byte ^ 0x40]))
    r = refused_everywhere(image, tmp_path, EXIT_CORRUPT,
                           "corrupt superblock, undo log or root block: superblock: checksum mismatch", check_rc=EXIT_PROBLEMS)
    lines = r.out.splitlines()
    assert "superblock" in lines[0] and lines[-1] == "check: 1 problem", r


def test_refuses_a_locked_image(tmp_path):
    image = create(tmp_path / "a.nvm")
    objtool(image, "import", "x", write_file(tmp_path / "f", b"f"))
    message = f"objtool: {image} is in use by a running QEMU (or another objtool)\n"
    fd = os.open(image, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as tools/run-qemu does
        refused_everywhere(image, tmp_path, EXIT_IN_USE, message)
        # A reader's shared lock lets other readers in, never a writer.
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        before = snapshot(image)
        assert objtool(image, "cat", "x").raw == b"f"
        assert_clean(image)
        r = objtool(image, "rm", "x", rc=EXIT_IN_USE)
        assert r.err == message
        objtool("create", "--force", "--size", "8M", image, rc=EXIT_IN_USE)
        assert snapshot(image) == before
    finally:
        os.close(fd)
    objtool(image, "rm", "x")


def geometry(path):
    """The superblock's offsets and the root block's free-stack top."""
    b = open(path, "rb").read()
    g = heapimage.geometry(b)
    free_top = heapimage.ROOT.get(b, g["root_offset"], "free_top")
    return g["desc_offset"], g["stack_offset"], free_top


def test_corruption_no_lookup_reads_is_found_before_writing(tmp_path):
    """A descriptor no lookup reads: the full check before a write finds it."""
    image = create(tmp_path / "a.nvm")
    objtool(image, "import", "keep", write_file(tmp_path / "k", b"keep"))
    # pages freed go on the free-page stack, and the next import takes them
    objtool(image, "import", "gone", write_file(tmp_path / "g", b"g" * 50000))
    objtool(image, "rm", "gone")
    desc_offset, stack_offset, free_top = geometry(image)
    assert free_top > 0
    b = bytearray(open(image, "rb").read())
    page = heapimage.u32(b, stack_offset + heapimage.STACK_ENTRY * (free_top - 1))
    # the next free page now says "allocated"
    heapimage.DESC.put(b, desc_offset + heapimage.DESC.size * page, "kind",
                       heapimage.F.OS_PAGE_WHOLE)
    open(image, "wb").write(b)
    epoch = info(image)["committed epoch"]
    with open(image, "rb") as f:
        before = f.read()
    r = objtool(image, "import", "x", write_file(tmp_path / "x", b"x" * 50000),
                rc=EXIT_CORRUPT)
    assert "corrupt" in r.err and "nothing was written" in r.err, r
    with open(image, "rb") as f:
        assert f.read() == before
    i = info(image)
    assert i["committed epoch"] == epoch
    assert names(image) == ["keep"]
    r = objtool(image, "check", rc=EXIT_PROBLEMS)
    assert f"page {page}" in r.out, r
    # --json says the same problems, in order, the document whole
    j = json.loads(objtool(image, "check", "--json", rc=EXIT_PROBLEMS).out)
    assert [p["problem"] for p in j["problems"]] == r.out.splitlines()[:-1], (j, r.out)
    assert j["clean"] is False and j["count"] == len(j["problems"]) >= 1
    assert all(p["snapshot"] is None for p in j["problems"])


# --- check --repair ----------------------------------------------------------

def unlink_from_index(image, oid):
    """Damage: object oid's entry in the id index zeroed (a one-level index,
    the index page's entry count and checksum made good), so its header
    block and pages leak, its names dangle and the root's object count is
    one too many -- each a problem check --repair repairs."""
    b = bytearray(open(image, "rb").read())
    g = heapimage.geometry(b)
    root = g["root_offset"]
    top = heapimage.ROOT.get(b, root, "index_root")
    depth = heapimage.ROOT.get(b, root, "index_depth")
    assert depth == 1, "a test heap small enough for a one-level id index"
    assert heapimage.u64(b, top + 8 * oid), "the object is in the index"
    heapimage.put(b, top + 8 * oid, "Q", 0)
    desc = g["desc_offset"] + heapimage.DESC.size * ((top - g["data_offset"]) // heapimage.PAGE)
    heapimage.DESC.put(b, desc, "used", heapimage.DESC.get(b, desc, "used") - 1)
    heapimage.fix_desc(b, desc)
    open(image, "wb").write(b)


def test_check_repair_frees_leaks_removes_dangling_names_and_recounts(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    objtool(image, "import", "keep", write_file(tmp_path / "k", b"k" * 3000))
    free_before = json.loads(objtool(image, "info", "--json").out)["pages_free"]
    objtool(image, "import", "victim", write_file(tmp_path / "v", b"v" * 9000))
    victim = json.loads(objtool(image, "stat", "victim", "--json").out)["id"]
    unlink_from_index(image, victim)
    r = objtool(image, "check", rc=EXIT_PROBLEMS)
    assert "refers to object %d, which does not exist" % victim in r.out, r.out
    assert "allocated but unreachable (leak)" in r.out, r.out
    damaged = snapshot(image)

    # --dry-run says each repair and changes nothing
    r = objtool(image, "check", "--repair", "--dry-run", rc=EXIT_PROBLEMS)
    assert "would: remove the name 'victim', bound to object #%d" % victim in r.out, r.out
    assert "would: free the leaked page at 0x" in r.out
    assert "would: free the leaked block at 0x" in r.out
    assert "would: set the root block's object count to 1" in r.out
    assert re.search(r"all repairable; nothing was changed\n$", r.out), r.out
    assert snapshot(image) == damaged

    # --backup first (a new file), then one transaction, then a clean check
    backup = tmp_path / "before.nvm"
    epoch = info(image)["committed epoch"]
    r = objtool(image, "check", "--repair", "--backup", backup)
    assert hashlib.sha256(open(backup, "rb").read()).hexdigest() == damaged[0]
    assert re.search(r"check --repair: \d+ repairs committed in one transaction; checking "
                     r"again\ncheck: clean, 1 objects, 1 names\n$", r.out), r.out
    assert int(info(image)["committed epoch"]) == int(epoch) + 1
    assert names(image) == ["keep"]
    assert objtool(image, "cat", "keep").out == "k" * 3000
    # every page the victim held is free again
    assert json.loads(objtool(image, "info", "--json").out)["pages_free"] == free_before
    assert_clean(image)
    # the repaired image opens and runs: a later write works and checks clean
    objtool(image, "import", "after", write_file(tmp_path / "a", b"a" * 5000))
    assert_clean(image)
    r = objtool(image, "check", "--repair")
    assert r.out.endswith("check --repair: nothing to repair\n"), r.out
    # a backup that cannot be made (the file exists): nothing is repaired
    unlink_from_index(image, json.loads(objtool(image, "stat", "after", "--json").out)["id"])
    damaged = snapshot(image)
    r = objtool(image, "check", "--repair", "--backup", backup, rc=EXIT_FAILED)
    assert "cannot create the backup" in r.err and "nothing was changed" in r.err, r
    assert snapshot(image) == damaged


def test_check_repair_refuses_what_needs_guessing(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    objtool(image, "import", "keep", write_file(tmp_path / "k", b"k" * 3000))
    objtool(image, "import", "victim", write_file(tmp_path / "v", b"v"))
    victim = json.loads(objtool(image, "stat", "victim", "--json").out)["id"]
    keep = json.loads(objtool(image, "stat", "keep", "--json").out)["id"]
    unlink_from_index(image, victim)
    # and a header whose checksum fails: no repair can know its bytes
    b = bytearray(open(image, "rb").read())
    b[heapimage.object_headers(b)[keep] + heapimage.HEADER.offset("size") + 4] ^= 0xff
    open(image, "wb").write(b)
    damaged = snapshot(image)
    r = objtool(image, "check", "--repair", rc=EXIT_PROBLEMS)
    assert "cannot be repaired without guessing" in r.err and "not changed" in r.err, r
    r = objtool(image, "check", "--repair", "--dry-run", rc=EXIT_PROBLEMS)
    assert "cannot be repaired without guessing" in r.err, r
    assert snapshot(image) == damaged
    objtool(image, "check", "--dry-run", rc=EXIT_USAGE)
    objtool(image, "check", "--repair", "--json", rc=EXIT_USAGE)


def test_json_forms_say_what_the_text_says(tmp_path):
    image = create(tmp_path / "a.nvm", "16M")
    objtool(image, "import", "notes/a", write_file(tmp_path / "a", b"a" * 5000))
    objtool(image, "import", "notes/b\x01q\"", write_file(tmp_path / "b", b"b" * 10))
    objtool(image, "import", "top", write_file(tmp_path / "t", b"t"))
    text = info(image)
    j = json.loads(objtool(image, "info", "--json").out)
    assert j["heap_id"] == text["heap id"].strip()
    assert j["layout_version"] == text["layout version"].strip()
    assert (j["objects"], j["names"]) == (3, 3)
    assert str(j["committed_epoch"]) == text["committed epoch"].strip()
    assert j["pages_free"] + j["pages_used"] == j["data_pages"] and "stats" not in j
    assert j["unfinished_transaction"] is False and j["app_roots"] == []
    js = json.loads(objtool(image, "info", "--stats", "--json").out)["stats"]
    assert js["types"] == [{"type": "blob", "objects": 3, "bytes": 5011, "held": 4 * 4096}]
    assert js["free_pages"] == j["pages_free"] and js["log_high_water"] > 0
    # ls: the -l fields; names with any byte survive (as \u00XX)
    rows = json.loads(objtool(image, "ls", "--json").out)
    assert [r["name"] for r in rows] == ["notes/a", "notes/b\x01q\"", "top"]
    longs = [line.split() for line in objtool(image, "ls", "-l").out.splitlines()]
    for r, row in zip(rows, longs):
        assert ["#%d" % r["id"], r["type"], str(r["size"]), str(r["refcount"]),
                str(r["modified_epoch"])] == row[:5]
    assert json.loads(objtool(image, "ls", "notes/", "--json").out) == rows[:2]
    st = json.loads(objtool(image, "stat", "notes/a", "--json").out)
    assert abs(st.pop("mtime_ns") / 1e9 - time.time()) < 600  # the host's clock at the import
    assert st == {"id": rows[0]["id"], "type": "blob", "size": 5000, "placement": "paged",
                  "pages": 2, "refcount": 1, "modified_epoch": rows[0]["modified_epoch"],
                  "mode": None, "names": ["notes/a"]}
    du = json.loads(objtool(image, "du", "--json").out)
    assert du == {"groups": [{"names": "notes/", "bytes": 12288, "objects": 2},
                             {"names": "top", "bytes": 4096, "objects": 1}],
                  "total": {"bytes": 16384, "objects": 3}}
    c = json.loads(objtool(image, "check", "--json").out)
    assert c == {"problems": [], "clean": True, "count": 0, "in_snapshots": 0,
                 "snapshots_checked": 0, "objects": 3, "names": 3,
                 "unfinished_transaction": False}


# --- crash safety ------------------------------------------------------------

def start_import(image, name, src):
    return subprocess.Popen([OBJTOOL, str(image), "import", name, str(src)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_import_killed_at_any_instant_leaves_a_consistent_image(tmp_path):
    data = os.urandom(40 * MIB)
    src = write_file(tmp_path / "big", data)
    write_file(tmp_path / "s", b"small")
    clean = tmp_path / "clean.nvm"

    # How long a whole import takes here, on a copy.
    timing = create(tmp_path / "timing.nvm", "64M")
    t0 = time.monotonic()
    objtool(timing, "import", "big", src)
    whole = time.monotonic() - t0

    inside_transaction = 0
    for fraction in (0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.98):
        create(clean, "64M", "--force")
        objtool(clean, "import", "small", tmp_path / "s")
        p = start_import(clean, "big", src)
        time.sleep(whole * fraction)
        p.send_signal(signal.SIGKILL)
        p.communicate()
        r = assert_clean(clean)
        present = names(clean)
        assert present in (["small"], ["big", "small"]), (fraction, present)
        if present == ["big", "small"]:
            assert objtool(clean, "cat", "big").raw == data
        else:
            objtool(clean, "stat", "big", rc=EXIT_FAILED)
            assert counts(clean)[:2] == (1, 1)
        assert objtool(clean, "cat", "small").raw == b"small"
        if "holds an unfinished" not in info(clean)["log"]:
            continue
        # Killed inside the transaction: the next writer rolls it back for good.
        inside_transaction += 1
        assert present == ["small"]
        assert "after rolling back an unfinished transaction" in r.out
        w = objtool(clean, "mv", "small", "small2")
        assert "rolled back an unfinished transaction" in w.err
        assert "empty" in info(clean)["log"]
        assert names(clean) == ["small2"]
        assert_clean(clean)
    assert inside_transaction > 0, f"no kill landed inside an import of {whole:.3f} s"


def test_read_only_commands_never_write(tmp_path):
    """Even an image holding an unfinished transaction is only read."""
    data = os.urandom(40 * MIB)
    src = write_file(tmp_path / "big", data)
    image = tmp_path / "a.nvm"
    for attempt in range(20):
        create(image, "64M", "--force")
        objtool(image, "import", "keep", write_file(tmp_path / "k", b"keep"))
        p = start_import(image, "big", src)
        time.sleep(0.02 + 0.02 * attempt)
        p.send_signal(signal.SIGKILL)
        p.communicate()
        if "holds an unfinished" in info(image)["log"]:
            break
    else:
        pytest.fail("could not kill an import before its commit")
    before = snapshot(image)
    assert names(image) == ["keep"]
    objtool(image, "ls", "-l")
    objtool(image, "stat", "keep")
    objtool(image, "cat", "keep")
    objtool(image, "export", "keep", tmp_path / "out")
    objtool(image, "info", "--stats", "--json")
    objtool(image, "ls", "--json")
    objtool(image, "stat", "keep", "--json")
    objtool(image, "du")
    objtool(image, "du", "--json")
    objtool(image, "check", "--json")
    # dump reads the file as it is, the unfinished transaction not rolled back
    log = objtool(image, "dump", "--range", "4K:64").out
    assert log.startswith("0000000000001000  "), log
    assert_clean(image)
    assert snapshot(image) == before


def test_check_is_clean_after_many_operations(tmp_path):
    image = create(tmp_path / "a.nvm", "32M")
    rng = random.Random(2026)
    model = {}
    sizes = [0, 1, 63, 64, 2048, 2049, 4095, 4096, 4097, 65536, 300000, 2 * MIB + 5]
    for step in range(60):
        op = rng.choice(["import", "import", "replace", "mv", "rm"])
        if op == "import" or not model:
            name = f"d{rng.randrange(5)}/n{step}"
            data = os.urandom(rng.choice(sizes))
            objtool(image, "import", name, write_file(tmp_path / "f", data))
            model[name] = data
        elif op == "replace":
            name = rng.choice(sorted(model))
            data = os.urandom(rng.choice(sizes))
            objtool(image, "import", name, write_file(tmp_path / "f", data),
                    "--replace")
            model[name] = data
        elif op == "mv":
            old = rng.choice(sorted(model))
            new = f"moved/{step}"
            objtool(image, "mv", old, new)
            model[new] = model.pop(old)
        else:
            gone = rng.sample(sorted(model), min(len(model), rng.randrange(1, 4)))
            objtool(image, "rm", *gone)
            for name in gone:
                del model[name]
    r = assert_clean(image)
    assert r.out == f"check: clean, {len(model)} objects, {len(model)} names\n"
    assert names(image) == sorted(model, key=lambda s: s.encode())
    for name, data in model.items():
        assert objtool(image, "cat", name).raw == data, name
    objtool(image, "rm", *model)
    assert counts(image) == (0, 0, 0)
    assert_clean(image)
