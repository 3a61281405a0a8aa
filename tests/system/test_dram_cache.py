"""test_dram_cache.py -- DRAM in front of the NVM (docs/dram-cache.md).

User stores land in DRAM frames and each commit writes the changed pages
back: a hostile store loop cannot wear a line out (the NVM tracer counts
every line write), what osh and sysinfo say of the cache adds up, a cache
too small for a program's pages evicts and keeps it right, and the system
without a cache (cache=0) still runs and survives a power cut. The
guarantees with the cache on are the other tests' (the cache is the
default): the power-cut campaign, the crash states, the log checker, the
fuzzers.
"""

import os
import re
import sys

import pytest

from ferrite import PROMPT, ROOT, run, traced_session

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace  # noqa: E402

import heapimage  # noqa: E402

STORES = 20000
GENESIS_WRITES = 4      # a line's writes by genesis outside its commits
TIMEOUT = 300
CACHE_LINES = (r"dram cache: (\d+) of (\d+) pages, (\d+) written since the last commit; "
               r"(\d+) fills, (\d+) hits, (\d+) evictions, (\d+) commits asked when full\n"
               r"dram cache written back: last commit (\d+) pages; (\d+) since power-on, "
               r"(\d+) to new heap pages\n")


def wear_stats(machines, tmp_path, mode, append=None):
    """Trace `wear STORES mode` from genesis: nvmtrace.stats of the run."""
    name = "wear-%s-%s" % (mode, append or "cache")
    image, trace = tmp_path / (name + ".nvm"), tmp_path / (name + ".trace")
    extra = ["--append", append] if append else []
    traced_session(machines, image, trace,
                   [("wear %d %s" % (STORES, mode),
                     r"wear: %d stores \(%s\) to one line of wear/\d+, read back %d ok\n"
                     % (STORES, mode, STORES))],
                   extra=extra + ["--icount", "0"])
    with open(image, "rb") as f:
        g = heapimage.geometry(f.read())
    return nvmtrace.stats(trace, (g["log_offset"], g["log_offset"] + g["log_size"]))


@pytest.mark.parametrize("mode", ["flush", "nt"])
def test_a_store_loop_writes_no_nvm_line_more_than_once_a_commit(machines, tmp_path, mode):
    """CLFLUSH after every store, or non-temporal stores: with the cache
    no NVM line is written more often than once a commit (the hottest are
    the superblock's epoch word and the root block, which genesis also
    writes a few times before its first commit)."""
    cached = wear_stats(machines, tmp_path, mode)
    line, writes = cached["hottest"][0]
    assert writes <= cached["commits"] + GENESIS_WRITES, cached
    assert cached["commits"] < STORES // 10, cached


def test_without_the_cache_every_store_writes_the_line(machines, tmp_path):
    """cache=0: the page is mapped onto the NVM and each non-temporal store
    goes to the media -- the wear the cache prevents. (The tracer cannot
    tell which line a user program's CLFLUSH writes back: only the
    non-temporal form is counted, docs/persistence-model.md.)"""
    cached = wear_stats(machines, tmp_path, "nt")
    uncached = wear_stats(machines, tmp_path, "nt", append="cache=0")
    line, writes = uncached["hottest"][0]
    assert writes >= STORES, uncached
    assert uncached["line_writes"] > cached["line_writes"] + STORES - 1000, (cached, uncached)


def cache_figures(m):
    """The dram cache figures of osh's `stats`, as ints in the order of CACHE_LINES."""
    return [int(n) for n in run(m, "stats", CACHE_LINES).groups()]


def power_on(machines, image, append=None):
    m = machines(image=image, size="64M", append=append)
    m.expect(r"ferrite: (genesis complete|resumed at epoch)", timeout=TIMEOUT)
    if "resumed at epoch" in m.output:
        m.send("\n")
    m.expect(PROMPT, timeout=TIMEOUT)
    return m


def test_stats_add_up_and_the_heap_holds_what_was_written(machines, image):
    """memtest writes and reads back through a shared mapping and
    SYS_OBJ_READ (the kernel's read sees the frames); its pages come from
    the cache, and sync writes them back."""
    m = power_on(machines, image)
    assert re.search(r"cache: \d+ KiB of DRAM in front of the NVM \((\d+) pages\)\n", m.output)
    before = cache_figures(m)
    run(m, "memtest 32 0 3", r"memtest: pass 3 ok\n", timeout=TIMEOUT)
    run(m, "sync", r"sync: epoch \d+ committed\n")
    cached, size, dirty, fills, hits, evictions, full, last, back, moved = cache_figures(m)
    assert size == before[1] and 0 < cached <= size
    assert fills >= before[3] + 32          # memtest's 32 pages, and its own
    assert back >= before[8] + 32 and moved <= back
    assert evictions == 0 and full == 0


def test_a_cache_smaller_than_the_pages_evicts_and_stays_right(machines, image):
    """cache=64K: 16 frames for memtest's 64 pages. Every pass still
    checks out, pages are evicted, and fills wait for commits."""
    m = power_on(machines, image, append="cache=64K")
    assert "cache: 64 KiB of DRAM in front of the NVM (16 pages)\n" in m.output
    run(m, "memtest 64 0 4", r"memtest: pass 4 ok\n", timeout=TIMEOUT)
    cached, size, dirty, fills, hits, evictions, full, last, back, moved = cache_figures(m)
    assert size == 16 and cached <= 16
    assert evictions > 64 and full > 0
    assert "FAIL" not in m.output


def test_without_a_cache_pages_are_logged_and_survive_a_cut(machines, image):
    """cache=0: user pages are mapped onto the NVM and logged by their
    first write fault, as before the cache (a page that fault allocates
    needs no undo record: the log checker proves the allocation's record
    covers it); a counter carries on after a power cut."""
    m = power_on(machines, image, append="cache=0 logcheck panic=exit")
    assert "cache: off; user pages are mapped onto the NVM\n" in m.output
    run(m, "stats", r"dram cache: off; user pages are mapped onto the nvm\n")
    run(m, "memtest 8 0 2", r"memtest: pass 2 ok\n", timeout=TIMEOUT)
    run(m, "ckptbench malloc 2000", r"ckptbench: malloc \d+ cycles/op", timeout=TIMEOUT)
    m.send("counter 1 20 &\n")
    m.expect(r"(?m)^(?:osh> )*5\n", timeout=TIMEOUT)
    m.power_cut()
    m = power_on(machines, image, append="cache=0")
    m.expect(r"(?m)^(?:osh> )*%d\n" % 30, timeout=TIMEOUT)


def test_a_bad_cache_size_is_refused_with_the_default(machines, image):
    m = power_on(machines, image, append="cache=lots")
    assert "cmdline: cache=lots is not a size (like 32M, or 0 for none); using the default\n" in m.output
    assert re.search(r"cache: \d+ KiB of DRAM in front of the NVM", m.output)


def test_nopersist_is_the_measurement_baseline_and_says_so(machines, image):
    """nopersist (for measurement only): no cache, no periodic commits,
    user pages never logged -- and the console says what that costs."""
    m = power_on(machines, image, append="nopersist")
    assert ("nopersist: for measurement only: user pages are mapped onto the NVM and "
            "never logged, no periodic commits") in m.output
    assert "cache: off; user pages are mapped onto the NVM\n" in m.output
    run(m, "memtest 8 0 2", r"memtest: pass 2 ok\n", timeout=TIMEOUT)
    text = run(m, "stats", r"user pages to the heap: last epoch (\d+), mean (\d+) per epoch\n")
    assert text.group(2) == "0", m.output          # no page was ever logged
    assert "periodic checkpoints off" in m.output
