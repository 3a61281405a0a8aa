"""test_virtio_journal.py -- what keeps a heap on virtio-pmem whole when
the host crashes (objstore/journal.h, kernel/epoch/durable.c): the
journal and base copy power-on rebuilds the heap from, sync that waits
for a flush, objtool's writes made as journal records, an image made
larger, a heap made for an NVDIMM, a damaged journal refused.

The host-crash states themselves (the last flushed state plus any subset
of the pages written since) are test_persistence's campaign on virtio.
"""

import os
import re
import subprocess

from ferrite import EXIT_PANIC, PROMPT, ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
TIMEOUT = 120
VIRTIO = ("--pmem", "virtio")
FLUSHES = (r"flushes: (\d+) completed, mean [\d.]+ us, max [\d.]+ us; (\d+) groups for "
           r"(\d+) commits, (\d+) commits waiting now \(at most \d+\); (\d+) syncs waited\n")


def objtool(image, *args, rc=0):
    p = subprocess.run([OBJTOOL, str(image), *args], capture_output=True, text=True)
    assert p.returncode == rc, (args, p.returncode, p.stdout + p.stderr)
    return p.stdout + p.stderr


def osh(m, line, answer=PROMPT):
    """Type `line` at osh's prompt; what it printed up to the next prompt.
    The answer is looked for after the line's echo: a resumed osh draws
    its prompt again when the first key comes, which is no answer."""
    start = len(m.output)
    m.send(line + "\n")
    echo = m.expect(re.escape(line) + r"\n", timeout=TIMEOUT, start=start).end()
    end = m.expect(answer, timeout=TIMEOUT, start=echo).end()
    if answer != PROMPT:
        m.expect(PROMPT, timeout=TIMEOUT, start=end)
    return m.output[start:]


def power_on(machines, image, size=None, append=None):
    m = machines(image=image, size=size, append=append, extra=VIRTIO)
    m.expect(PROMPT, timeout=TIMEOUT)
    return m


def test_sync_waits_for_a_flush_and_stats_count_them(machines, image):
    m = power_on(machines, image, size="32M")
    assert "journal: new: heap 13 MiB, base copy 13 MiB" in m.output
    osh(m, "write notes/a kept")
    before = re.findall(FLUSHES, osh(m, "stats"))
    osh(m, "sync", r"sync: epoch \d+ committed\n")
    after = re.findall(FLUSHES, osh(m, "stats"))
    assert before and after, m.output
    flushes0, _, _, _, syncs0 = map(int, before[0])
    flushes1, groups, commits, _, syncs1 = map(int, after[0])
    assert syncs1 == syncs0 + 1         # sync blocked until a flush covered it
    assert flushes1 > flushes0 and groups <= commits
    assert "journal: " in m.output and "page images written" in m.output
    m.power_cut()
    objtool(image, "check")


def test_a_power_on_rebuilds_the_heap_from_the_journal(machines, image):
    m = power_on(machines, image, size="32M")
    osh(m, "write notes/b before the cut")
    osh(m, "sync", r"sync: epoch \d+ committed\n")
    m.power_cut()
    m = power_on(machines, image)
    assert re.search(r"journal: replayed records \d+ to \d+ \(\d+ pages; 0 torn records "
                     r"ignored\); heap restored from its base copy \(\d+ pages\)\n",
                     m.output), m.output
    osh(m, "cat notes/b", r"^before the cut\n")
    m.power_cut()
    objtool(image, "check")


def test_objtool_writes_a_record_the_next_power_on_replays(machines, image, tmp_path):
    m = power_on(machines, image, size="32M")
    osh(m, "write notes/c from the kernel")
    osh(m, "sync", r"sync: epoch \d+ committed\n")
    m.power_cut()
    data = tmp_path / "d.txt"
    data.write_text("from objtool\n")
    objtool(image, "import", "notes/d", str(data))
    objtool(image, "rm", "notes/c")
    assert "notes/d" in objtool(image, "ls") and "notes/c" not in objtool(image, "ls")
    out = objtool(image, "grow", "--size", "64M", rc=1)
    assert "a virtio-pmem image: its base copy and journal follow the heap" in out
    m = power_on(machines, image)
    osh(m, "cat notes/d", r"^from objtool\n")
    osh(m, "cat notes/c", r"cat: no object named 'notes/c'\n")
    m.power_cut()
    objtool(image, "check")


def test_an_image_made_larger_keeps_its_layout(machines, image):
    m = power_on(machines, image, size="32M")
    osh(m, "write notes/e kept")
    osh(m, "sync", r"sync: epoch \d+ committed\n")
    m.power_cut()
    m = power_on(machines, image, size="48M")
    assert ("warning: journal: the device has 48 MiB, its journal's layout 32 MiB: "
            "the rest is not used") in m.output, m.output
    assert "heap: grew" not in m.output
    osh(m, "cat notes/e", r"^kept\n")
    m.power_cut()
    objtool(image, "check")


def test_a_heap_made_for_an_nvdimm_runs_without_a_journal(machines, image):
    m = machines(image=image, size="16M")
    m.expect(PROMPT, timeout=TIMEOUT)
    m.power_cut()
    m = power_on(machines, image)
    assert ("journal: the heap fills the whole device (made for an NVDIMM?): no room for "
            "a journal") in m.output
    assert ("journal: none (the heap fills the device): a host crash may damage the heap"
            in osh(m, "stats"))
    m.power_cut()


def test_a_damaged_journal_header_is_refused(machines, image):
    m = power_on(machines, image, size="32M")
    m.power_cut()
    size = os.path.getsize(image)
    with open(image, "r+b") as f:          # a byte of the header's heap size
        f.seek(size - 4096 + 24)
        b = f.read(1)
        f.seek(size - 4096 + 24)
        f.write(bytes([b[0] ^ 0x40]))
    out = objtool(image, "check", rc=5)
    assert "journal header: checksum mismatch" in out, out
    m = machines(image=image, append="panic=exit", extra=VIRTIO)
    m.expect(r"error: heap: journal header: checksum mismatch\n"
             r"  not touching the device\n", timeout=TIMEOUT)
    assert m.wait_exit(timeout=TIMEOUT) == EXIT_PANIC
