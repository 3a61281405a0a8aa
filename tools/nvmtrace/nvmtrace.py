#!/usr/bin/python3
"""nvmtrace.py -- read an NVM trace (include/ferrite/nvmtrace.h), written by
the nvmtrace QEMU plugin (tools/run-qemu --trace-nvm TRACE).

  nvmtrace.py summary TRACE          what the trace holds, by kind
  nvmtrace.py replay TRACE OUT       the image at the end of the run,
                                     rebuilt from the trace alone
  nvmtrace.py console TRACE          what the kernel sent to the console
  nvmtrace.py stats TRACE [--log START:END]
                                     the write accounting: bytes stored,
                                     write-backs, line writes, fences,
                                     commits, undo bytes (stored into the
                                     log's NVM range START:END), the
                                     hottest lines
  nvmtrace.py crash TRACE POINT VARIANT OUT
                                     the crash image at ordering point
                                     POINT (a number a test printed): lost
                                     (every dirty line lost), kept (every
                                     one kept) or lost-0xLINE (that line
                                     lost alone); power it on with
                                     tools/run-qemu --image OUT
  nvmtrace.py host-crash TRACE POINT VARIANT OUT
                                     the image a crash of the HOST leaves
                                     on a virtio-pmem device before record
                                     POINT: base (no page written since
                                     the last completed flush kept), all
                                     (every one kept), subset-K (the K-th
                                     random subset), lost-0xPAGE or
                                     only-0xPAGE (that page lost, or kept,
                                     alone); power it on with
                                     tools/run-qemu --pmem virtio --image OUT

A replay applies the starting image and every store in order: it must
equal the image QEMU left, byte for byte (that is the tracer's own check:
tests/system/test_persistence.py). Exit status 0, 1 when the trace is
refused (unattributed kernel write-backs), 2 for bad usage or a file that
is not a trace.
"""

import collections
import ctypes
import ctypes.util
import random
import re
import struct
import sys

MAGIC = b"FENVMTR1"
HEADER = struct.Struct("<8sQQ40x")
RECORD = struct.Struct("<BBBBIQQ")
PAGE = 4096

STORE, WRITEBACK, FENCE, END, INIT, OUTPUT, EVENT, INSNS = 1, 2, 3, 4, 5, 6, 7, 8
KINDS = {STORE: "store", WRITEBACK: "write-back", FENCE: "fence",
         END: "end", INIT: "starting page", OUTPUT: "console byte",
         EVENT: "kernel event", INSNS: "instructions"}
# The windows the kernel marks (enum nvt_event): event 2w begins window w,
# 2w + 1 ends it.
WINDOWS = ("commit", "page log", "rollback", "pmem flush")
SUBS = {STORE: ("cached", "non-temporal"),
        WRITEBACK: ("clflush", "clflushopt", "clwb"),
        FENCE: ("sfence", "mfence", "locked", "serialising"),
        EVENT: tuple("%s %s" % (w, edge) for w in WINDOWS for edge in ("begins", "ends"))}

Record = collections.namedtuple("Record", "kind sub size vcpu offset pc data")


class TraceError(Exception):
    """The file is not a whole NVM trace."""


def open_trace(path):
    """(nvm_base, nvm_size, records): records is an iterator of Record."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < HEADER.size or blob[:8] != MAGIC:
        raise TraceError(f"{path}: not an NVM trace (no {MAGIC.decode()} header)")
    _, base, size = HEADER.unpack_from(blob, 0)
    return base, size, _records(path, blob, HEADER.size)


def _records(path, blob, pos):
    ended = False
    while pos < len(blob):
        if pos + RECORD.size > len(blob):
            raise TraceError(f"{path}: a record cut short at byte {pos}")
        kind, sub, size, vcpu, _, offset, pc = RECORD.unpack_from(blob, pos)
        pos += RECORD.size
        data = b""
        if kind == INIT:
            data = blob[pos:pos + PAGE]
            pos += PAGE
        elif kind in (STORE, OUTPUT):
            data = blob[pos:pos + size]
            pos += (size + 7) & ~7
        elif kind not in KINDS:
            raise TraceError(f"{path}: unknown record kind {kind} at byte {pos - RECORD.size}")
        elif kind == EVENT and sub >= len(SUBS[EVENT]):
            raise TraceError(f"{path}: unknown kernel event {sub} at byte {pos - RECORD.size}")
        yield Record(kind, sub, size, vcpu, offset, pc, data)
        if kind == END:
            ended = True
            break
    if not ended:
        raise TraceError(f"{path}: no end record (QEMU did not exit cleanly)")


def unattributed(path, end):
    """The refusal of a trace whose end record counts kernel write-backs
    the plugin could not place."""
    return TraceError(f"{path}: {end.offset} kernel write-backs whose line "
                      f"is unknown (the kernel was not built for tracing?)")


def summary(path):
    """{"nvm_size", "counts": {(kind, sub): n}, "store_bytes",
    "unattributed", "user_writebacks", "instructions" (None in a trace
    without them)}"""
    _, size, records = open_trace(path)
    counts = collections.Counter()
    out = {"nvm_size": size, "store_bytes": 0, "instructions": None}
    for r in records:
        counts[(KINDS[r.kind], SUBS[r.kind][r.sub] if r.kind in SUBS else "")] += 1
        if r.kind == STORE:
            out["store_bytes"] += r.size
        if r.kind == INSNS:
            out["instructions"] = r.offset
        if r.kind == END:
            out["unattributed"] = r.offset
            out["user_writebacks"] = r.pc
    out["counts"] = dict(counts)
    return out


def replay(path):
    """The image at the end of the run: the starting pages and every store."""
    _, size, records = open_trace(path)
    image = bytearray(size)
    for r in records:
        if r.kind in (INIT, STORE):
            image[r.offset:r.offset + len(r.data)] = r.data
        if r.kind == END and r.offset:
            raise unattributed(path, r)
    return bytes(image)


def console(path):
    """The bytes the kernel sent to the console during the run, as sent
    ("\r\n" for a new line)."""
    _, _, records = open_trace(path)
    return b"".join(r.data for r in records if r.kind == OUTPUT)


# --- write accounting --------------------------------------------------------

WEAR_BUCKETS = ((1, 1), (2, 9), (10, 99), (100, None))  # line writes per line
HOTTEST = 10


def stats(path, log=None):
    """The write accounting of a trace (docs/performance.md, "NVM write
    accounting"). log: the undo log's NVM range (start, end), or None.
    A dict:
      store_bytes, cached_bytes, nontemporal_bytes   bytes stored
      undo_bytes       of store_bytes, those stored into the log's range
      stores           store records
      writebacks       write-back records (CLFLUSH, CLFLUSHOPT, CLWB)
      line_writes      write-backs that found their line changed since it
                       was last written back (or since the start): what
                       reaches the media, the wear figure; a non-temporal
                       store is one line write of each line it touches
      fences           SFENCE and MFENCE, the kernel's explicit ones
      ordering_points  every ordering point (with locked and serialising
                       instructions, the firmware's too)
      commits          the kernel's commits (COMMIT_END events)
      instructions     guest instructions executed, None if not recorded
      lines_written    distinct lines with a line write
      wear             [((low, high or None), lines)] for WEAR_BUCKETS
      hottest          [(line offset, line writes)], most written first
                       (ties: lower offset first), at most HOTTEST
    The trace's console bytes (OUTPUT) count for nothing."""
    _, size, records = open_trace(path)
    image = bytearray(size)
    last = {}           # line -> its bytes when last written back (or at the start)
    writes = collections.Counter()
    out = {"store_bytes": 0, "cached_bytes": 0, "nontemporal_bytes": 0,
           "undo_bytes": 0, "stores": 0, "writebacks": 0, "line_writes": 0,
           "fences": 0, "ordering_points": 0, "commits": 0, "instructions": None}
    lo, hi = log if log else (0, 0)
    for r in records:
        if r.kind == STORE:
            _account_store(out, r, image, last, writes, lo, hi)
        elif r.kind == WRITEBACK:
            out["writebacks"] += 1
            line = image[r.offset:r.offset + LINE]
            if r.offset in last and last[r.offset] != line:
                last[r.offset] = bytes(line)
                writes[r.offset] += 1
        elif r.kind == INIT:
            image[r.offset:r.offset + PAGE] = r.data
        elif r.kind == FENCE:
            out["ordering_points"] += 1
            out["fences"] += r.sub in (0, 1)
        elif r.kind == EVENT:
            out["commits"] += r.sub == 1   # COMMIT_END
        elif r.kind == INSNS:
            out["instructions"] = r.offset
        elif r.kind == END and r.offset:
            raise unattributed(path, r)
    out["line_writes"] = sum(writes.values())
    out["lines_written"] = len(writes)
    out["wear"] = [((low, high), sum(1 for n in writes.values()
                                     if n >= low and (high is None or n <= high)))
                   for low, high in WEAR_BUCKETS]
    out["hottest"] = sorted(writes.items(), key=lambda lw: (-lw[1], lw[0]))[:HOTTEST]
    return out


def _account_store(out, r, image, last, writes, lo, hi):
    """Count one store; apply it to the image, remembering the old bytes
    of each line it is the first to change."""
    at, end = r.offset, r.offset + r.size
    out["stores"] += 1
    out["store_bytes"] += r.size
    out["nontemporal_bytes" if r.sub == 1 else "cached_bytes"] += r.size
    out["undo_bytes"] += max(0, min(end, hi) - max(at, lo))
    first, final = at & ~(LINE - 1), (end - 1) & ~(LINE - 1)
    for line in range(first, final + 1, LINE):
        if line not in last:
            last[line] = bytes(image[line:line + LINE])
    image[at:end] = r.data
    if r.sub == 1:  # non-temporal: to the media at once
        for line in range(first, final + 1, LINE):
            last[line] = bytes(image[line:line + LINE])
            writes[line] += 1


def parse_range(text):
    """START:END (decimal or 0x hex) -> (start, end), start <= end."""
    try:
        start, end = (int(v, 0) for v in text.split(":"))
    except ValueError:
        raise ValueError(f"--log {text!r}: give START:END, e.g. 0x2000:0x202000")
    if not 0 <= start <= end:
        raise ValueError(f"--log {text!r}: START must not be after END")
    return start, end


def print_stats(s):
    """The figures of stats(), one a line."""
    for key in ("store_bytes", "cached_bytes", "nontemporal_bytes", "undo_bytes",
                "stores", "writebacks", "line_writes", "lines_written", "fences",
                "ordering_points", "commits", "instructions"):
        value = s[key]
        print(f"{key.replace('_', ' '):18} {'-' if value is None else format(value, ','):>16}")
    for (low, high), lines in s["wear"]:
        name = f"{low}" if low == high else f"{low}+" if high is None else f"{low}-{high}"
        print(f"lines written {name + ' times':14} {lines:>9,}")
    for line, n in s["hottest"]:
        print(f"hot line {line:#12x} {n:>15,} writes")


# --- crash states -----------------------------------------------------------

LINE = 64
ORDERING = FENCE


class PointImage:
    """A crash state's image: `durable` (bytes) with what apply() stores."""

    def write(self, path, kept):
        """Write the image apply(image, kept) makes to path."""
        image = bytearray(self.durable)
        self.apply(image, kept)
        with open(path, "wb") as f:
            f.write(image)


class CrashPoint(PointImage):
    """The NVM at one ordering point, before it takes effect: what is
    surely durable (`durable`, a bytearray) and, for each dirty line, the
    stores made to it since it was last durable (`history`: line offset ->
    [(offset, bytes)], oldest first). Any prefix of a line's history may
    have reached the NVM by then (write-backs and evictions happen at any
    moment); nothing else can have. Also what a person had seen by then
    (`console`: the bytes sent so far) and the kernel's windows open
    there (`windows`: names from WINDOWS)."""

    def __init__(self, index, record, durable, history, console, windows):
        self.index = index            # the ordering point's place among them
        self.record = record          # its Record (sub: which fence; pc)
        self.durable = durable        # bytes
        self.history = history
        self.console = console
        self.windows = windows

    def apply(self, image, kept):
        """Store into `image` (durable's bytes, or of its pages those of
        dirty lines), for each dirty line, the first kept[line] of its
        stores (lines not in `kept`: none)."""
        for line, n in kept.items():
            for off, data in self.history[line][:n]:
                image[off:off + len(data)] = data

    def variants(self, rng, singles, regions=()):
        """[(name, kept)] for write(): every dirty line lost; every one
        kept; a random prefix of each; for each (name, start, end) of
        `regions`, the dirty lines there lost and the rest kept; and, for
        up to `singles` dirty lines chosen at random, that line lost alone
        with the rest kept."""
        lines = sorted(self.history)
        everything = {line: len(self.history[line]) for line in lines}
        out = [("lost", {}), ("kept", everything),
               ("random", {line: rng.randint(0, n) for line, n in everything.items()})]
        for name, start, end in regions:
            inside = [line for line in lines if start <= line < end]
            if inside and len(inside) < len(lines):
                out.append((name + "-lost", {line: n for line, n in everything.items()
                                            if not start <= line < end}))
        for line in rng.sample(lines, min(singles, len(lines))):
            one_lost = dict(everything)
            one_lost[line] = 0
            out.append(("lost-%#x" % line, one_lost))
        return out


CHUNK = 16 * PAGE     # ImageFile compares this much at a time, then its pages


class ImageFile:
    """A file that crash images are written to one after another: only
    the pages that differ from the image written before are written (a
    busy trace's images differ in a few pages of many). Whatever else
    writes the file -- a power-on -- must be followed by forget()."""

    def __init__(self, path):
        self.path = path
        self.image = None     # what the file holds, if known

    def forget(self):
        self.image = None

    def write(self, point, kept):
        """Make the file hold point's image with `kept` (CrashPoint.apply)."""
        keep_images_in_the_heap()
        new = point.durable
        if self.image is None or len(self.image) != len(new):
            self.image = bytearray(new)
            point.apply(self.image, kept)
            with open(self.path, "wb") as f:
                f.write(self.image)
            return
        pages = {at for chunk in range(0, len(new), CHUNK)
                 if self.image[chunk:chunk + CHUNK] != new[chunk:chunk + CHUNK]
                 for at in range(chunk, min(chunk + CHUNK, len(new)), PAGE)
                 if self.image[at:at + PAGE] != new[at:at + PAGE]}
        pages.update(line & ~(PAGE - 1) for line in kept)
        for at in pages:
            self.image[at:at + PAGE] = new[at:at + PAGE]
        point.apply(self.image, kept)
        with open(self.path, "r+b") as f:
            for at in sorted(pages):
                f.seek(at)
                f.write(self.image[at:at + PAGE])


def ordering_points(path):
    """The trace's ordering points, in order: for each, the kernel's windows
    open there (a frozenset of names from WINDOWS)."""
    _, _, records = open_trace(path)
    points, windows = [], frozenset()
    for r in records:
        if r.kind == ORDERING:
            points.append(windows)
        elif r.kind == EVENT:
            windows = after_event(windows, r)
    return points


def after_event(windows, r):
    """The windows open (a frozenset of names from WINDOWS) after the
    EVENT record r: event 2w begins window w, 2w + 1 ends it."""
    window = {WINDOWS[r.sub // 2]}
    return windows - window if r.sub % 2 else windows | window


def window_runs(points, window):
    """The runs of consecutive ordering points inside `window`, each a range
    of indices, in order (points: ordering_points())."""
    runs, start = [], None
    for i, open_ in enumerate(points + [frozenset()]):
        if window in open_ and start is None:
            start = i
        elif window not in open_ and start is not None:
            runs.append(range(start, i))
            start = None
    return runs


def keep_images_in_the_heap():
    """Have the C library keep blocks the size of an image in its heap
    once freed, instead of giving them back to the kernel: crash_points
    copies the whole durable image at every point it stops at, and a
    block of 32 MiB or more is otherwise mapped anew for each copy and
    every page of it faulted in -- 0.3 s a copy on the development
    machines, nine tenths of a crash campaign's own time. Once per process;
    nothing if the C library is not glibc."""
    global _heap_kept
    if _heap_kept:
        return
    _heap_kept = True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallopt(M_MMAP_THRESHOLD, 256 << 20)
        libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError, TypeError):
        pass


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc's <malloc.h>
_heap_kept = False


def crash_points(path, chosen):
    """CrashPoint at each ordering point whose index is in `chosen` (a set;
    or a function of the index, the dirty lines' offsets and the windows
    open that says whether to stop there), in trace order. The rules
    (docs/persistence-model.md): a store
    is durable once its line was written back (CLFLUSH, CLFLUSHOPT, CLWB)
    and an ordering point followed; a non-temporal store once an ordering
    point followed it; until then any prefix of a line's stores may be
    there."""
    keep_images_in_the_heap()
    _, size, records = open_trace(path)
    durable = bytearray(size)
    history = {}        # line -> [(offset, bytes)] not yet surely durable
    written_back = {}   # line -> how many of its history a write-back took
    console = bytearray()
    windows = frozenset()
    index = 0
    wanted = chosen if callable(chosen) else lambda i, _, __: i in chosen
    for r in records:
        if r.kind == INIT:
            durable[r.offset:r.offset + PAGE] = r.data
        elif r.kind == STORE:
            at, data = r.offset, r.data
            while data:
                line = at & ~(LINE - 1)
                span = min(len(data), line + LINE - at)
                history.setdefault(line, []).append((at, data[:span]))
                if r.sub == 1:  # non-temporal: as if written back at once
                    written_back[line] = len(history[line])
                at, data = at + span, data[span:]
        elif r.kind == WRITEBACK and r.offset in history:
            written_back[r.offset] = len(history[r.offset])
        elif r.kind == OUTPUT:
            console += r.data
        elif r.kind == EVENT:
            windows = after_event(windows, r)
        elif r.kind == ORDERING:
            if wanted(index, history.keys(), windows):
                yield CrashPoint(index, r, bytes(durable),
                                 {line: list(h) for line, h in history.items()},
                                 bytes(console), windows)
            index += 1
            for line, n in written_back.items():
                for off, data in history[line][:n]:
                    durable[off:off + len(data)] = data
                del history[line][:n]
                if not history[line]:
                    del history[line]
            written_back.clear()
        elif r.kind == END and r.offset:
            raise unattributed(path, r)


def write_crash_image(trace, point, variant, out):
    """The crash command: the image of one named variant at one point."""
    if not point.isdigit():
        print(f"nvmtrace: {point!r} is not an ordering point's number", file=sys.stderr)
        return 2
    found = next(crash_points(trace, {int(point)}), None)
    if found is None:
        print(f"nvmtrace: {trace} has no ordering point {point}", file=sys.stderr)
        return 2
    everything = {line: len(h) for line, h in found.history.items()}
    if variant == "lost":
        kept = {}
    elif variant == "kept":
        kept = everything
    elif re.fullmatch(r"lost-0x[0-9a-f]+", variant) and int(variant[5:], 16) in everything:
        kept = dict(everything)
        kept[int(variant[5:], 16)] = 0
    else:
        print(f"nvmtrace: no variant {variant!r} at point {point}: lost, kept, or "
              f"lost-LINE for a dirty line ({len(everything)} of them)", file=sys.stderr)
        return 2
    found.write(out, kept)
    print(f"point {point} (pc {found.record.pc:#x}, "
          f"{'/'.join(sorted(found.windows)) or 'no window'}), {variant}: {out}")
    return 0


# --- host crashes (virtio-pmem) ----------------------------------------------

# The kernel's FLUSH request on a virtio-pmem device (enum nvt_event): sent,
# and its answer taken. The commit window's end is where an epoch's output
# is let out on an NVDIMM (and, wrongly, by the mutant output-before-flush).
FLUSH_BEGIN = 2 * WINDOWS.index("pmem flush")
FLUSH_END = FLUSH_BEGIN + 1
COMMIT_END = 2 * WINDOWS.index("commit") + 1
HOST_SITES = ("flush begins", "flush ends", "flush ended", "commit ended", "output")


class HostCrashPoint(PointImage):
    """The device after a crash of the HOST at one place in the trace,
    before record `index` takes effect. Every store is in the host's page
    cache at once but on its disk only once a flush covering it completed,
    and the page cache writes pages back in any order, each page whole. So
    the device holds `durable` -- the image when the newest flush whose
    answer was taken by then began (the starting image if none) -- and,
    of the pages written since (`pages`: page offset -> its bytes at this
    point; pages back to their durable bytes left out), any subset. Also
    what a person had seen by then (`console`), the kernel's windows open
    there (`windows`) and, for each flush completed by then, how many of
    the console's bytes had been sent when its answer was taken
    (`answered`: one number a flush, oldest first)."""

    def __init__(self, index, durable, pages, console, windows, answered):
        self.index = index
        self.durable = durable
        self.pages = pages
        self.console = console
        self.windows = windows
        self.answered = answered
        self.flushes = len(answered)

    def apply(self, image, kept):
        """Store into `image` (durable's bytes, or of its pages those
        written since) the pages `kept` (an iterable of page offsets)."""
        for page in kept:
            image[page:page + PAGE] = self.pages[page]

    def variants(self, subsets, singles):
        """[(name, kept)] for write(): base (no page written since kept),
        all (every one kept: what a kill of QEMU leaves), `subsets` random
        subsets (subset-K), and for up to `singles` of the pages (all of
        them when there are that few), that page lost alone (lost-0xPAGE)
        and kept alone (only-0xPAGE). Every name rebuilds its image
        (variant())."""
        pages = sorted(self.pages)
        names = ["base", "all"] + ["subset-%d" % k for k in range(1, subsets + 1)]
        few = pages if len(pages) <= singles else \
            sorted(random.Random("%d/singles" % self.index).sample(pages, singles))
        for page in few:
            names += ["lost-%#x" % page, "only-%#x" % page]
        out = [(name, self.variant(name)) for name in names]
        # With one page written, base and all are its only states; with
        # none, base.
        return out if len(pages) > 1 else out[:1 + len(pages)]

    def variant(self, name):
        """The pages kept of the named variant, or None if there is no
        such variant at this point."""
        pages = sorted(self.pages)
        if name == "base":
            return []
        if name == "all":
            return pages
        m = re.fullmatch(r"subset-([1-9]\d*)", name)
        if m:
            rng = random.Random("%d/%s" % (self.index, name))
            return [page for page in pages if rng.random() < 0.5]
        m = re.fullmatch(r"(lost|only)-(0x[0-9a-f]+)", name)
        if m and int(m.group(2), 16) in self.pages:
            page = int(m.group(2), 16)
            return [p for p in pages if p != page] if m.group(1) == "lost" else [page]
        return None

    def describe(self):
        """Where the point is, for a test's message or the CLI."""
        return "record %d (%s, after %d flushes, %d pages written since)" % (
            self.index, "/".join(sorted(self.windows)) or "no window", self.flushes,
            len(self.pages))


def host_crash_sites(path):
    """(sites, places): the places a host-crash campaign stops at, by kind
    ({name of HOST_SITES: [record index]}), and every place a crash may
    come (a range of record indices: after the starting image, up to the
    end record). A place is the index of the record before which the
    crash comes: right after a flush request is sent (flush begins), right
    before and right after its answer is taken (flush ends, flush ended:
    the newest durable state moves there), right after a commit (commit
    ended: on an NVDIMM its output goes out inside it) and right after
    each run of console bytes (output)."""
    _, _, records = open_trace(path)
    sites = {name: [] for name in HOST_SITES}
    index, last, first = 0, None, 0
    for index, r in enumerate(records):
        if r.kind == INIT:
            first = index + 1
        if last == OUTPUT and r.kind != OUTPUT:
            sites["output"].append(index)
        if r.kind == EVENT and r.sub == FLUSH_BEGIN:
            sites["flush begins"].append(index + 1)
        elif r.kind == EVENT and r.sub == FLUSH_END:
            sites["flush ends"].append(index)
            sites["flush ended"].append(index + 1)
        elif r.kind == EVENT and r.sub == COMMIT_END:
            sites["commit ended"].append(index + 1)
        last = r.kind
    return sites, range(first, index + 1)


def host_crash_points(path, chosen):
    """HostCrashPoint before each record whose index is in `chosen` (a
    set), in trace order. The rules (docs/persistence-model.md, "A host
    crash"): a store is durable once a flush request sent after it was
    answered; until then its page may or may not have reached the disk,
    whole, at its latest bytes. One flush is in flight at a time (the
    driver's rule)."""
    keep_images_in_the_heap()
    _, size, records = open_trace(path)
    image = bytearray(size)      # the device as the guest sees it
    durable = bytearray(size)    # as of the last completed flush's request
    since = set()                # pages written since durable's moment
    at_begin = None              # a flush in flight: {page: bytes when it began}
    answered = []                # the console's length at each flush's answer
    console, windows = bytearray(), frozenset()
    for index, r in enumerate(records):
        if index in chosen:
            pages = {p: bytes(image[p:p + PAGE]) for p in sorted(since)
                     if image[p:p + PAGE] != durable[p:p + PAGE]}
            yield HostCrashPoint(index, bytes(durable), pages, bytes(console),
                                 windows, list(answered))
        if r.kind == INIT:
            image[r.offset:r.offset + PAGE] = durable[r.offset:r.offset + PAGE] = r.data
        elif r.kind == STORE:
            for page in range(r.offset & ~(PAGE - 1), r.offset + r.size, PAGE):
                since.add(page)
                if at_begin is not None and page not in at_begin:
                    at_begin[page] = bytes(image[page:page + PAGE])
            image[r.offset:r.offset + r.size] = r.data
        elif r.kind == OUTPUT:
            console += r.data
        elif r.kind == EVENT:
            if r.sub == FLUSH_BEGIN:
                if at_begin is not None:
                    raise TraceError(f"{path}: a flush request sent at record {index} "
                                     f"while one is in flight")
                at_begin = {}
            elif r.sub == FLUSH_END:
                if at_begin is None:
                    raise TraceError(f"{path}: a flush answered at record {index} "
                                     f"that was never sent")
                for page in since:
                    durable[page:page + PAGE] = at_begin.get(page, image[page:page + PAGE])
                since, at_begin = set(at_begin), None
                answered.append(len(console))
            windows = after_event(windows, r)
        elif r.kind == END and r.offset:
            raise unattributed(path, r)


def write_host_crash_image(trace, point, variant, out):
    """The host-crash command: the image of one named variant at one place."""
    if not point.isdigit():
        print(f"nvmtrace: {point!r} is not a record's number", file=sys.stderr)
        return 2
    if int(point) not in host_crash_sites(trace)[1]:
        print(f"nvmtrace: {trace} has no place {point} (a record after the "
              f"starting image)", file=sys.stderr)
        return 2
    found = next(host_crash_points(trace, {int(point)}))
    kept = found.variant(variant)
    if kept is None:
        print(f"nvmtrace: no variant {variant!r} at record {point}: base, all, "
              f"subset-K, or lost-PAGE or only-PAGE for a page written since the "
              f"last flush ({len(found.pages)} of them)", file=sys.stderr)
        return 2
    found.write(out, kept)
    print(f"{found.describe()}, {variant}: {out}")
    return 0


def main(argv):
    if len(argv) == 2 and argv[0] == "summary":
        s = summary(argv[1])
        for (kind, sub), n in sorted(s["counts"].items()):
            print(f"{kind:14} {sub:12} {n:>12,}")
        print(f"bytes stored   {s['store_bytes']:>25,}")
        if s["instructions"] is not None:
            print(f"instructions   {s['instructions']:>25,}")
        print(f"kernel write-backs not attributed {s['unattributed']:,}; "
              f"user write-backs ignored {s['user_writebacks']:,}")
        return 1 if s["unattributed"] else 0
    if len(argv) == 2 and argv[0] == "console":
        sys.stdout.buffer.write(console(argv[1]))
        return 0
    if argv[:1] == ["stats"] and len(argv) in (2, 4) and argv[2:3] in ([], ["--log"]):
        try:
            log = parse_range(argv[3]) if len(argv) == 4 else None
        except ValueError as e:
            print(f"nvmtrace: {e}", file=sys.stderr)
            return 2
        print_stats(stats(argv[1], log))
        return 0
    if len(argv) == 5 and argv[0] == "crash":
        return write_crash_image(*argv[1:])
    if len(argv) == 5 and argv[0] == "host-crash":
        return write_host_crash_image(*argv[1:])
    if len(argv) == 3 and argv[0] == "replay":
        with open(argv[2], "wb") as f:
            f.write(replay(argv[1]))
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except TraceError as e:
        print(f"nvmtrace: {e}", file=sys.stderr)
        sys.exit(1 if "write-backs" in str(e) else 2)
    except OSError as e:
        print(f"nvmtrace: {e}", file=sys.stderr)
        sys.exit(2)
