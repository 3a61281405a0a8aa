#!/usr/bin/env python3
"""hostile.py -- the real kernel powered on over hostile images.

A campaign for docs/hostile-images.md: two base images with a known state
(genesis, 300 names made by `objtool fill`, a key-value service, a memory
tester and a catalogue churner running in the background, a few names
made at the shell), one powered off cleanly and one cut with SIGKILL so
that its undo log holds an epoch to roll back. Each trial copies one, does
one corruption (CORRUPTIONS below), powers the kernel on over it in QEMU
(--boot kernel, 32 MiB NVM, panic=exit) and, if it comes up, types
`ls -l` and `ps` (so the catalogue and the processes are used) and
`poweroff`. A trial passes when:

  - no `panic:` line (every kernel exception panics) and no hang: the
    kernel refuses, stops on damage, or runs and powers off, within
    generous bounds;
  - a refusal at power-on left the image byte for byte as it was;
  - `objtool IMAGE check` reports a problem in the corrupted image, unless
    the corruption cannot be seen by design: bytes the rollback restores
    anyway, and a thread's user registers (any value is made safe).

Outcomes: `refused` (power-on said `heap: ... damaged`), `stopped` (damage
met later: `heap: damaged: ...`, stopped without committing), `ran` (came
up, ls and ps and poweroff worked: the damage was in something this run
did not read, or was healed by the rollback), `killed` (a process died of
its own forged registers, in user mode).

As a program: python3 tests/system/hostile.py --trials N [--seed S]
[--jobs J]; it prints each failure (and keeps its image in build/hostile/),
then a table of outcomes per corruption and the seconds per trial, and
exits 1 if any trial failed. `make fuzz-images` runs it.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import heapimage as H                                        # noqa: E402
from ferrite import PROMPT, ROOT, Machine, command, run     # noqa: E402

OBJTOOL = os.path.join(ROOT, "build", "objtool")
NVM_SIZE = "32M"              # room to truncate it and still fit what the kernel needs (16 MiB)
MIB = 1 << 20
FILL_NAMES = 300              # enough for a catalogue with internal nodes
BOOT_TIMEOUT = 90             # seconds: generous, TCG on a loaded machine
STEP_TIMEOUT = 60

REFUSED = (r"heap: the (Ferrite heap|kernel objects in the Ferrite heap) on the NVM (is|are) damaged"
           r"|heap: the NVM holds|nvm: the NVDIMM has \d+ KiB, less than")
STOPPED = r"heap: damaged: "
RESUMED = r"ferrite: resumed at epoch|ferrite: genesis complete|ferrite> "
PANIC = r"^panic: |panic while panicking"
OSH_KILLED = r"\[1 osh\] killed: "


def objtool(*args, check=True):
    p = subprocess.run([OBJTOOL] + [str(a) for a in args], capture_output=True,
                       text=True, timeout=300)
    if check:
        assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# --- the base images ----------------------------------------------------------

def build_bases(workdir):
    """The two base images: (clean, cut) paths, both passing objtool check."""
    os.makedirs(workdir, exist_ok=True)
    clean = os.path.join(workdir, "base-clean.nvm")
    if os.path.exists(clean):
        os.unlink(clean)
    m = Machine(image=clean, size=NVM_SIZE)
    try:
        m.expect(PROMPT, timeout=BOOT_TIMEOUT)
        command(m, "write notes/hello hello, hostile world", STEP_TIMEOUT)
        command(m, "new big 1M", STEP_TIMEOUT)
        m.send("poweroff\n")
        m.wait_exit(STEP_TIMEOUT)
    finally:
        m.close()
    m.check_no_panic()
    objtool(clean, "fill", "names/n", FILL_NAMES)
    m = Machine(image=clean, modules=False)
    try:
        m.expect(RESUMED, timeout=BOOT_TIMEOUT)
        run(m, "kvd &", r"\[\d+\] started", STEP_TIMEOUT)
        run(m, "memtest 8 150 &", r"\[\d+\] started", STEP_TIMEOUT)
        run(m, "churn 7 150 &", r"\[\d+\] started", STEP_TIMEOUT)
        run(m, "kv put colour blue", r"", STEP_TIMEOUT)
        m.expect(r"churn: round 3 ok", timeout=STEP_TIMEOUT)
        m.send("poweroff\n")
        m.wait_exit(STEP_TIMEOUT)
    finally:
        m.close()
    m.check_no_panic()
    objtool(clean, "check")
    cut = os.path.join(workdir, "base-cut.nvm")
    for _ in range(20):
        shutil.copyfile(clean, cut)
        m = Machine(image=cut, modules=False)
        try:
            m.expect(RESUMED, timeout=BOOT_TIMEOUT)
            # A busy churner: an epoch is almost always open when the power goes.
            run(m, "churn 9 1 &", r"\[\d+\] started", STEP_TIMEOUT)
            m.expect(r"churn: round 5 ok", timeout=STEP_TIMEOUT)
            time.sleep(random.random() * 0.05)
        finally:
            m.close()           # SIGKILL: a power cut while everything runs
        m.check_no_panic()
        with open(cut, "rb") as f:
            if H.log_records(f.read()):
                break
    else:
        raise AssertionError("no power cut left an epoch in the log")
    objtool(cut, "check")
    return clean, cut


# --- corruptions ------------------------------------------------------------------
#
# Each takes (image bytearray, rng) and returns (description, visible): what
# it did, and whether objtool check must see it. It may return None when the
# image offers nothing to corrupt that way (then another kind is drawn).

def healed(img, off, length=1):
    """Whether the rollback overwrites [off, off+length) with logged bytes."""
    return any(o <= off and off + length <= o + n for o, n in H.undo_covered(img))


def bit_flip(img, rng):
    view = H.rolled_back(img)
    kinds = H.metadata_ranges(view)
    kind = rng.choice(sorted(k for k in kinds if kinds[k]))
    off, length = rng.choice(kinds[kind])
    off += rng.randrange(length)
    bit = rng.randrange(8)
    img[off] ^= 1 << bit
    return f"{kind}: bit {bit} of byte {off:#x}", not healed(img, off)


def truncated(img, rng):
    size = rng.randrange(4, len(img) // MIB, 2) * MIB
    del img[size:]
    return f"image truncated to {size >> 20} MiB", True


def superblock_geometry(img, rng):
    g = H.geometry(img)
    field = rng.choice(H.SB_GEOMETRY_FIELDS + ("heap_size",))
    old = g[field]
    new = rng.choice([old + H.PAGE, old - H.PAGE if old >= H.PAGE else 0,
                      old * 2, old // 2, rng.randrange(1 << 40), 0, (1 << 64) - H.PAGE])
    if new == old:
        new = old ^ (1 << 20)
    H.SB.put(img, 0, field, new)
    H.fix_superblock(img)
    return f"superblock {field} {old:#x} -> {new:#x} (crc recomputed)", True


def log_outside(img, rng):
    records = H.log_records(img)
    if not records:
        return None
    r = rng.choice(records)
    g = H.geometry(img)
    where, new = rng.choice([
        ("past the end of the heap", g["heap_size"] - rng.randrange(0, r["length"])),
        ("far past the end of the heap", rng.randrange(g["heap_size"], 1 << 62)),
        ("in the superblock", rng.randrange(0, H.PAGE)),
        ("over the log", g["log_offset"] + rng.randrange(0, g["log_size"])),
    ])
    H.LOG.put(img, r["pos"], "offset", new)
    H.fix_record(img, r["pos"])
    return f"log record at {r['pos']:#x}: range moved {where} ({new:#x}, crc recomputed)", True


def catalogue_cycle(img, rng):
    view = H.rolled_back(img)
    nodes = H.catalogue_nodes(view)
    inner = [n for n in nodes if n["level"]]
    if not inner:
        return None
    n = rng.choice(inner)
    upward = [a["off"] for a in nodes if a["level"] >= n["level"]]   # itself, or above
    target = rng.choice(upward)
    if rng.random() < 0.5 or not n["entries"]:
        H.CAT_NODE.put(img, n["off"], "first", target)
        H.fix_cat_node(img, n["off"])
        what = "first child"
        off = n["off"] + H.CAT_NODE.offset("first")
    else:
        at, _ = rng.choice(n["entries"])
        H.CAT_ENTRY.put(img, at, "value", target)
        H.fix_cat_entry(img, at)
        what = "an entry's child"
        off = at + H.CAT_ENTRY.offset("value")
    return (f"catalogue node {n['off']:#x} (level {n['level']}): {what} -> "
            f"node {target:#x}, at or above its level (crcs recomputed)"), not healed(img, off, 8)


# Fields of kernel objects and values the kernel must refuse.
FORGERIES = {
    "kernel root": [("version", 3), ("procs", 0x7fffffff), ("reap_head", 5000),
                    ("reap_count", 99999), ("console", 1), ("line_len", 400),
                    ("running_slot", 4000), ("reap_queue", 0)],
    "console": [("out_ring", 0), ("in_read", 1 << 40), ("out_sent", 1 << 40),
                ("magic", 0)],
    "process": [("state", 7), ("thread", "other"), ("aspace", "other"),
                ("handles", 0), ("code", "other"), ("slot", 191), ("pid", 0),
                ("flags", 0x80), ("flags", 0x8)],     # KPROC_TRACE without KPROC_LINUX
    "thread": [("state", 9), ("proc", "other"), ("magic", 0x12345678)],
    "address space": [("count", 33), ("magic", 0)],
    "mapping": [("start", 0xffffffff80000000), ("end", 0x1000), ("object", "other"),
                ("object", 0x7fffffff), ("prot", 0xff), ("flags", 0x30),
                ("offset", 0x123)],
    "handle table": [("count", 121)],
    "handle": [("object", 0x7fffffff), ("rights", 0xff), ("end", 2), ("gen", 0)],
}
# The object types an id field may name.
FIELD_TYPES = {("process", "thread"): {H.F.OS_TYPE_THREAD},
               ("process", "aspace"): {H.F.OS_TYPE_ASPACE},
               ("process", "code"): {H.F.OS_TYPE_CODE},
               ("thread", "proc"): {H.F.OS_TYPE_PROCESS},
               ("mapping", "object"): {H.F.OS_TYPE_BLOB, H.F.OS_TYPE_CODE, H.F.OS_TYPE_ANON}}
FIELD_MASK = {"B": 0xff, "H": 0xffff, "I": 0xffffffff, "Q": (1 << 64) - 1}
# A thread's user registers: any value is made safe by arch_frame_load.
REGISTERS = [("rip", 0xffffffff80100000), ("rip", 0x8000000000000000),
             ("rsp", 0xffff800000000000), ("rflags", 0x3 << 12 | 1 << 8 | 1 << 14 | 1 << 17),
             ("fs_base", 0x8000000000000000), ("mxcsr", 0xffffffff)]


def kernel_object(img, rng):
    view = H.rolled_back(img)
    objects = H.kernel_objects(view)
    what, base, layout = rng.choice([o for o in objects if o[0] in FORGERIES])
    field, value = rng.choice(FORGERIES[what])
    if value == "other":    # the id of a live object of a type the field cannot name
        heads = H.object_headers(view)
        wrong = [i for i, off in sorted(heads.items())
                 if H.header(view, off)["type"] not in FIELD_TYPES[(what, field)]]
        value = rng.choice(wrong)
    index = 0
    if field == "procs":
        index = rng.choice([i for i in range(H.F.KROOT_MAX_PROCS)
                            if H.get(view, base, layout, "procs", i)])
    off, fmt = layout.at(field, index)
    at = base + off
    old = H.get(view, base, layout, field, index)
    if value == old:
        value ^= 1
    H.put(img, at, fmt, value & FIELD_MASK[fmt])
    return f"{what} at {base:#x}: {field} {old:#x} -> {value:#x}", not healed(img, at, 1)


def user_registers(img, rng):
    view = H.rolled_back(img)
    threads = [o for o in H.kernel_objects(view) if o[0] == "thread"]
    _, base, _ = rng.choice(threads)
    field, value = rng.choice(REGISTERS)
    off, fmt = H.thread_register(field)
    H.put(img, base + off, fmt, value)
    return f"thread at {base:#x}: user {field} -> {value:#x}", False


CORRUPTIONS = {
    "bit flip": bit_flip,
    "truncated": truncated,
    "superblock geometry": superblock_geometry,
    "log record outside": log_outside,
    "catalogue cycle": catalogue_cycle,
    "kernel object": kernel_object,
    "user registers": user_registers,
}


# --- one trial ----------------------------------------------------------------------

def power_on(path):
    """Power the kernel on over the image at `path`: (outcome, console output)."""
    m = Machine(image=path, modules=False, append="panic=exit")
    outcome = None
    try:
        found = m.expect(f"{REFUSED}|{STOPPED}|{RESUMED}|{PANIC}", timeout=BOOT_TIMEOUT)
        if found.group(0) == "ferrite> ":
            outcome = "ran" if send(m, "poweroff") else "gone"
        elif re.match(RESUMED, found.group(0)):
            outcome = use(m)
        status = m.wait_exit(STEP_TIMEOUT)
    except AssertionError as e:
        status = m.proc.poll()      # None: still running, so it hung
        if status is None:
            outcome = "hang"
        m.close()
        m.output += f"\n[{str(e).splitlines()[0]}]"
    finally:
        m.close()
    out = m.output
    if re.search(PANIC, out, re.M):
        return "panic", out
    if outcome == "hang":
        return "hang", out
    if re.search(STOPPED, out):
        return "stopped", out
    if re.search(REFUSED, out):
        return ("refused" if status == 37 else f"refused, exit {status}"), out
    if outcome == "ran" and status == 0 or outcome == "killed":
        return outcome, out
    return f"exit {status} ({outcome})", out


def use(m):
    """Type ls -l, ps and poweroff at osh: 'ran'; 'stopped' if the kernel
    stopped on damage; 'killed' if osh died of its forged registers (then
    the power is cut)."""
    for line, header in (("ls -l", r"ID +TYPE"), ("ps", r"PID PARENT STATE")):
        if not send(m, line):
            return "gone"
        found = m.expect(f"{header}|{OSH_KILLED}|{STOPPED}", timeout=STEP_TIMEOUT)
        if re.match(STOPPED, found.group(0)):
            return "stopped"
        if re.match(OSH_KILLED, found.group(0)):
            m.power_cut()
            return "killed"
        found = m.expect(f"{PROMPT}|{STOPPED}", timeout=STEP_TIMEOUT, start=found.end())
        if re.match(STOPPED, found.group(0)):
            return "stopped"
    send(m, "poweroff")
    return "ran"


def send(m, line):
    """Type a line; False if QEMU is gone (its output says why)."""
    try:
        m.send(line + "\n")
    except OSError:
        return False
    return True


def trial(base_path, kind, seed, workdir, corrupt=None):
    """One corruption of a copy of base_path (CORRUPTIONS[kind], or
    `corrupt` if given), powered on: a result dict, None if the image
    offered nothing to corrupt that way."""
    rng = random.Random(seed)
    with open(base_path, "rb") as f:
        img = bytearray(f.read())
    done = (corrupt or CORRUPTIONS[kind])(img, rng)
    if done is None:
        return None
    what, visible = done
    path = os.path.join(workdir, f"trial-{seed}.nvm")
    with open(path, "wb") as f:
        f.write(img)
    check = objtool(path, "check", check=False)
    before = digest(path)
    start = time.monotonic()
    try:
        outcome, out = power_on(path)
    except Exception as e:          # the harness itself: report, never stop the campaign
        outcome, out = f"harness error {e!r}", ""
    seconds = time.monotonic() - start
    failures = []
    if outcome not in ("refused", "stopped", "ran", "killed"):
        failures.append(f"kernel: {outcome}")
    if outcome == "refused" and digest(path) != before:
        failures.append("refused, but the image changed")
    if check.returncode < 0 or check.returncode == 0 and visible:
        failures.append(f"objtool check exit {check.returncode}: {check.stdout[-200:]!r}")
    result = {"kind": kind, "seed": seed, "what": what, "outcome": outcome,
              "seconds": seconds, "failures": failures,
              "check": check.stdout.splitlines()[0] if check.stdout else "",
              "detected": check.returncode != 0}
    result["output"] = out[-3000:]
    if failures:
        keep = os.path.join(workdir, f"fail-{seed}.nvm")
        with open(keep, "wb") as f:
            f.write(img)            # the corrupted image, as the kernel met it
        result["kept"] = keep
    os.unlink(path)
    if os.path.exists(path + ".link"):   # the launcher's host-link socket
        os.unlink(path + ".link")
    return result


def campaign(trials, seed, jobs, workdir, kinds=None, report=print, verbose=False,
             bases=None):
    """Run `trials` trials over both base images (made unless given as
    (clean, cut)); the list of results."""
    clean, cut = bases or build_bases(workdir)
    kinds = kinds or sorted(CORRUPTIONS)
    plan = []
    rng = random.Random(seed)
    for i in range(trials):
        kind = kinds[i % len(kinds)]
        base = cut if kind == "log record outside" or rng.random() < 0.5 else clean
        plan.append((base, kind, seed * 1000003 + i))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for r in pool.map(lambda p: trial(p[0], p[1], p[2], workdir), plan):
            if r is None:
                continue
            results.append(r)
            if verbose:
                lines = [l for l in r["output"].splitlines() if "heap:" in l or "kernel objects:" in l]
                report(f"{r['kind']}: {r['what']}: {r['outcome']}; objtool: {r['check']}"
                       + "".join(f"\n    {l}" for l in lines[:3]))
            if r["failures"]:
                report(f"FAIL {r['kind']} (seed {r['seed']}, image kept in {r['kept']}): "
                       f"{r['what']}: {'; '.join(r['failures'])}\n{r['output']}")
    return results


def summary(results):
    """A table of outcomes per corruption kind, and seconds per trial."""
    table = collections.defaultdict(collections.Counter)
    for r in results:
        table[r["kind"]][r["outcome"]] += 1
        table[r["kind"]]["objtool found"] += r["detected"]
    cols = ["refused", "stopped", "ran", "killed", "objtool found"]
    lines = ["%-22s %6s " % ("corruption", "trials") + " ".join("%8s" % c[:8] for c in cols)]
    for kind in sorted(table):
        n = sum(v for k, v in table[kind].items() if k != "objtool found")
        lines.append("%-22s %6d " % (kind, n) + " ".join("%8d" % table[kind][c] for c in cols))
    secs = [r["seconds"] for r in results]
    failed = sum(1 for r in results if r["failures"])
    lines.append(f"{len(results)} trials, {failed} failed, "
                 f"{sum(secs) / max(len(secs), 1):.2f} s of QEMU per trial "
                 f"(max {max(secs, default=0):.2f} s)")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="QEMUs at once")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "hostile"))
    ap.add_argument("--kind", action="append", choices=sorted(CORRUPTIONS),
                    help="only this corruption (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="one line per trial: what, outcome, the kernel's words")
    args = ap.parse_args()
    start = time.monotonic()
    results = campaign(args.trials, args.seed, args.jobs, args.workdir,
                       kinds=args.kind, verbose=args.verbose)
    print(summary(results))
    print(f"wall time {time.monotonic() - start:.0f} s with {args.jobs} QEMUs at once")
    sys.exit(1 if any(r["failures"] for r in results) else 0)


if __name__ == "__main__":
    main()
