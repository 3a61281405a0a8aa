"""test_persistence_stats.py -- the NVM write accounting (nvmtrace.stats,
`nvmtrace.py stats`, docs/performance.md "NVM write accounting").

A trace written by hand, record by record with the struct formats of
include/ferrite/nvmtrace.h, gives exact counts; a real traced genesis
gives counts that agree with each other and with the heap's own layout;
the CLI verb says what went wrong by its exit status.
"""

import os
import struct
import subprocess
import sys

import pytest

from ferrite import PROMPT, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace as N  # noqa: E402

import heapimage as H  # noqa: E402

NVMTRACE = os.path.join(ROOT, "tools", "nvmtrace", "nvmtrace.py")
TIMEOUT = 300
SFENCE, MFENCE, LOCKED, SERIAL = 0, 1, 2, 3
COMMIT_BEGIN, COMMIT_END, PAGE_LOG_BEGIN, PAGE_LOG_END = 0, 1, 2, 3


class TraceWriter:
    """A trace built record by record (include/ferrite/nvmtrace.h)."""

    def __init__(self, size=1 << 20):
        self.blob = bytearray(N.HEADER.pack(N.MAGIC, 1 << 32, size))

    def record(self, kind, sub=0, offset=0, data=b"", size=None):
        size = len(data) if size is None else size
        self.blob += N.RECORD.pack(kind, sub, size, 0, 0, offset, 0xffffffff80001000)
        self.blob += data + b"\0" * (-len(data) % 8)
        return self

    def store(self, offset, data, nontemporal=False):
        return self.record(N.STORE, 1 if nontemporal else 0, offset, data)

    def writeback(self, line):
        return self.record(N.WRITEBACK, 1, line)

    def init(self, offset, page):
        self.blob += N.RECORD.pack(N.INIT, 0, 0, 0, 0, offset, 0) + page
        return self

    def end(self, path, instructions=None, unattributed=0):
        if instructions is not None:
            self.record(N.INSNS, offset=instructions)
        self.record(N.END, offset=unattributed)
        with open(path, "wb") as f:
            f.write(self.blob)
        return path


LOG = (0x2000, 0x3000)


def handmade(path, unattributed=0):
    t = TraceWriter()
    t.init(0x4000, b"\x01" * N.PAGE)
    t.store(0x40, b"ABCDEFGH").writeback(0x40)     # a line write
    t.writeback(0x40)                               # unchanged: none
    t.store(0x40, b"ABCDEFGH").writeback(0x40)     # the same bytes again: none
    t.store(0x78, b"0123456789abcdef")             # across lines 0x40 and 0x80
    t.writeback(0x40).writeback(0x80)              # two line writes
    t.store(0x100, b"nontempo", nontemporal=True)  # a line write of its own
    t.store(0x1ffc, b"logstart")                   # 4 of its bytes in the log
    t.writeback(0x3000)                            # never stored: none
    t.store(0x4000, b"\x01" * 8).writeback(0x4000)  # the starting bytes: none
    for fence in (SFENCE, MFENCE, LOCKED, SERIAL):
        t.record(N.FENCE, fence)
    for event in (COMMIT_BEGIN, COMMIT_END, PAGE_LOG_BEGIN, PAGE_LOG_END,
                  COMMIT_BEGIN, COMMIT_END):
        t.record(N.EVENT, event)
    t.record(N.OUTPUT, data=b"x")                  # a console byte: counts for nothing
    return t.end(path, instructions=12345, unattributed=unattributed)


def test_a_handmade_trace_gives_exact_counts(tmp_path):
    s = N.stats(handmade(tmp_path / "h.trace"), LOG)
    assert (s["store_bytes"], s["cached_bytes"], s["nontemporal_bytes"]) == (56, 48, 8)
    assert s["stores"] == 6
    assert s["undo_bytes"] == 4
    assert s["writebacks"] == 7
    assert s["line_writes"] == 4 and s["lines_written"] == 3
    assert (s["fences"], s["ordering_points"]) == (2, 4)
    assert s["commits"] == 2
    assert s["instructions"] == 12345
    assert s["wear"] == [((1, 1), 2), ((2, 9), 1), ((10, 99), 0), ((100, None), 0)]
    assert s["hottest"] == [(0x40, 2), (0x80, 1), (0x100, 1)]
    assert N.stats(tmp_path / "h.trace")["undo_bytes"] == 0   # no log given


def test_a_trace_without_instructions_or_with_unplaced_write_backs(tmp_path):
    path = TraceWriter().store(0, b"12345678").end(tmp_path / "t.trace")
    assert N.stats(path)["instructions"] is None
    with pytest.raises(N.TraceError, match="write-backs whose line is unknown"):
        N.stats(handmade(tmp_path / "u.trace", unattributed=3))


@pytest.fixture(scope="module")
def genesis(module_machines, tmp_path_factory):
    """A traced genesis under --icount 0: (trace, image)."""
    d = tmp_path_factory.mktemp("genesis")
    image, trace = d / "g.nvm", d / "g.trace"
    m = module_machines(image=image, size="32M", accel_name="tcg",
                        extra=["--trace-nvm", str(trace), "--icount", "0"])
    m.expect(PROMPT, timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    return trace, image


def test_the_stats_of_a_real_genesis_agree(genesis):
    trace, image = genesis
    with open(image, "rb") as f:
        img = f.read()
    g = H.geometry(img)
    log = (g["log_offset"], g["log_offset"] + g["log_size"])
    s = N.stats(trace, log)
    assert s["store_bytes"] > 1 << 20
    assert s["store_bytes"] == s["cached_bytes"] + s["nontemporal_bytes"]
    assert s["store_bytes"] == N.summary(trace)["store_bytes"]
    assert 0 < s["line_writes"] <= s["writebacks"]
    assert s["lines_written"] <= s["line_writes"]
    assert sum(lines for _, lines in s["wear"]) == s["lines_written"]
    assert s["commits"] >= 1 and s["fences"] >= s["commits"]
    assert s["instructions"] > 10 ** 6
    # Genesis writes undo records: some bytes in the log, not all of them.
    assert 0 < s["undo_bytes"] < s["store_bytes"]
    assert N.stats(trace, (0, len(img)))["undo_bytes"] == s["store_bytes"]
    line, writes = s["hottest"][0]
    assert writes == max(n for _, n in s["hottest"]) and writes >= 2
    assert H.Owners(img).owner(line)


def test_the_owner_of_a_byte(genesis):
    _, image = genesis
    with open(image, "rb") as f:
        img = f.read()
    g, o = H.geometry(img), H.Owners(img)
    assert o.owner(0) == "superblock"
    assert o.owner(H.SB.offset("committed_epoch")) == "superblock (committed epoch)"
    assert o.owner(g["log_offset"] + 64) == "undo log"
    assert o.owner(g["desc_offset"]) == "page descriptors"
    heads = H.object_headers(img)
    osh = next(oid for oid, names in H.object_names(img).items() if "bin/osh" in names)
    assert o.owner(heads[osh]) == "#%d code bin/osh (header)" % osh
    first_page = H.header(img, heads[osh])["data"]
    assert o.owner(first_page).startswith("#%d code bin/osh" % osh)


def cli(*args):
    p = subprocess.run([sys.executable, NVMTRACE] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_the_cli_verb_and_its_exit_statuses(tmp_path):
    trace = handmade(tmp_path / "h.trace")
    status, out, _ = cli("stats", trace, "--log", "%#x:%#x" % LOG)
    assert status == 0
    assert "undo bytes" in out and " 4\n" in out.split("undo bytes")[1].split("\n")[0] + "\n"
    assert "hot line         0x40               2 writes" in out
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a trace at all")
    status, _, err = cli("stats", junk)
    assert status == 2 and "not an NVM trace" in err
    assert cli("stats", trace, "--log", "9:1")[0] == 2
    assert cli("stats", trace, "--log")[0] == 2
    assert cli("stats")[0] == 2
    assert cli("stats", tmp_path / "missing")[0] == 2
    assert cli("stats", handmade(tmp_path / "u.trace", unattributed=1))[0] == 1
