#!/usr/bin/python3
"""nvmtrace.py -- read an NVM trace (tools/nvmtrace/trace.h), written by
the nvmtrace QEMU plugin (tools/run-qemu --trace-nvm TRACE).

  nvmtrace.py summary TRACE          what the trace holds, by kind
  nvmtrace.py replay TRACE OUT       the image at the end of the run,
                                     rebuilt from the trace alone

A replay applies the starting image and every store in order: it must
equal the image QEMU left, byte for byte (that is the tracer's own check:
tests/system/test_persistence.py). Exit status 0, 1 when the trace is
refused (unattributed kernel write-backs), 2 for bad usage or a file that
is not a trace.
"""

import collections
import struct
import sys

MAGIC = b"FENVMTR1"
HEADER = struct.Struct("<8sQQ40x")
RECORD = struct.Struct("<BBBBIQQ")
PAGE = 4096

STORE, WRITEBACK, FENCE, END, INIT = 1, 2, 3, 4, 5
KINDS = {STORE: "store", WRITEBACK: "write-back", FENCE: "fence",
         END: "end", INIT: "starting page"}
SUBS = {STORE: ("cached", "non-temporal"),
        WRITEBACK: ("clflush", "clflushopt", "clwb"),
        FENCE: ("sfence", "mfence", "locked", "serialising")}

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
        elif kind == STORE:
            data = blob[pos:pos + size]
            pos += (size + 7) & ~7
        elif kind not in KINDS:
            raise TraceError(f"{path}: unknown record kind {kind} at byte {pos - RECORD.size}")
        yield Record(kind, sub, size, vcpu, offset, pc, data)
        if kind == END:
            ended = True
            break
    if not ended:
        raise TraceError(f"{path}: no end record (QEMU did not exit cleanly)")


def summary(path):
    """{"nvm_size", "counts": {(kind, sub): n}, "store_bytes",
    "unattributed", "user_writebacks"}"""
    _, size, records = open_trace(path)
    counts = collections.Counter()
    out = {"nvm_size": size, "store_bytes": 0}
    for r in records:
        counts[(KINDS[r.kind], SUBS[r.kind][r.sub] if r.kind in SUBS else "")] += 1
        if r.kind == STORE:
            out["store_bytes"] += r.size
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
            raise TraceError(f"{path}: {r.offset} kernel write-backs whose line "
                             f"is unknown (the kernel was not built for tracing?)")
    return bytes(image)


def main(argv):
    if len(argv) == 2 and argv[0] == "summary":
        s = summary(argv[1])
        for (kind, sub), n in sorted(s["counts"].items()):
            print(f"{kind:14} {sub:12} {n:>12,}")
        print(f"bytes stored   {s['store_bytes']:>25,}")
        print(f"kernel write-backs not attributed {s['unattributed']:,}; "
              f"user write-backs ignored {s['user_writebacks']:,}")
        return 1 if s["unattributed"] else 0
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
