#!/usr/bin/python3
"""sysfuzz.py -- the system-call fuzzer's campaign: boot Ferrite, run
bin/sysfuzz with several seeds until enough calls were made, and prove the
kernel survived them whole.

One power-on on a fresh image, with the log checker on (`logcheck`,
docs/logcheck.md: every commit proves the kernel logged every heap byte it
changed, on error paths too) and `panic=exit`. Before the first run, and
after every run, `sysfuzz mem` prints the heap figures; then, for each seed
S = SEED, SEED+1, ...:

    sysfuzz S COUNT PROCS

until the runs made CALLS calls in all. Checked (Campaign.check_*):
  - no kernel panic, and QEMU still running;
  - no hang: a progress line (`sysfuzz S: N calls`) at least every
    PROGRESS_TIMEOUT seconds, a bound and never a criterion;
  - sysfuzz's final line says `ok` (no FAIL line: every negative result was
    an error code, and the promises calls.c checks held);
  - no leak: after each run the heap holds as many objects and names, and
    as many processes run, as before the first; the pages in use outside
    the processes' own memory (`other`) are back to the baseline within
    PAGE_SLACK pages. The slack is the catalogue's B+-tree, whose shape
    after names come and go may keep a node or two more than before, and
    the small-object blocks; a leaked object shows in the object count,
    and a page no object owns in objtool's check;
  - after osh's `poweroff`, `objtool IMAGE check` says the image is clean.

  tests/system/sysfuzz.py [--calls N] [--seed S] [--procs P] [--count C]
                          [--dir DIR] [--no-logcheck]

FUZZ_CALLS and FUZZ_SEED in the environment are the defaults of --calls and
--seed (`make fuzz FUZZ_CALLS=... FUZZ_SEED=...`). It prints the seeds, the
calls fuzzed, the time and the failures, and leaves the console log and
the image in DIR (default build/fuzz). test_sysfuzz.py runs the quick form
under `make test`, with the seeds of the kernel bugs the fuzzer found.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ferrite import ROOT, Machine  # noqa: E402

OBJTOOL = os.path.join(ROOT, "build", "objtool")
PROMPT = "osh> "
IMAGE_SIZE = "64M"
DEFAULT_CALLS = 1000000
DEFAULT_COUNT = 250000      # calls per run (one seed)
DEFAULT_PROCS = 4
PAGE_SLACK = 8              # pages of catalogue nodes and small-object blocks

# Bounds, never criteria: TCG on a loaded machine is slow.
BOOT_TIMEOUT = 120
STEP_TIMEOUT = 120
PROGRESS_TIMEOUT = 600

# The lines waited for end in "\n", never "$": matched against output that
# is still arriving, "$" also matches where the text received so far ends,
# in the middle of a line (Machine.expect).
MEM = re.compile(r"^sysfuzz mem: heap used (\d+), process pages (\d+), "
                 r"other (\d+), objects (\d+), names (\d+), processes (\d+)\n",
                 re.M)
FINAL = re.compile(r"^sysfuzz (\d+): (\d+) calls, .*, (ok|FAIL)\n", re.M)
PANIC = re.compile(r"^.*panic.*$", re.M)
FAIL = re.compile(r"^sysfuzz: FAIL .*$", re.M)


class Campaign:
    """One power-on, several sysfuzz runs, the checks, a summary."""

    def __init__(self, directory, calls, seed, procs=DEFAULT_PROCS,
                 count=DEFAULT_COUNT, logcheck=True, log=print, cpus=None):
        self.dir = directory
        self.image = os.path.join(directory, "sysfuzz.nvm")
        self.log_path = os.path.join(directory, "sysfuzz.log")
        self.calls = calls
        self.seed = seed
        self.procs = procs
        self.count = count
        self.logcheck = logcheck
        self.cpus = cpus             # None: the tests' default (ferrite.smp())
        self.say = log
        self.failures = []
        self.fuzzed = 0
        self.seeds = []
        self.elapsed = 0.0
        self.fuzz_seconds = 0.0
        self.m = None

    # --- running ---------------------------------------------------------

    def run(self):
        """Boot, the runs, poweroff, objtool check; the failures (a list)."""
        os.makedirs(self.dir, exist_ok=True)
        for path in (self.image, self.log_path):
            if os.path.exists(path):
                os.remove(path)
        started = time.monotonic()
        append = "panic=exit" + (" logcheck" if self.logcheck else "")
        self.m = Machine(image=self.image, size=IMAGE_SIZE, boot="kernel",
                         append=append, cpus=self.cpus)
        try:
            self.m.expect(PROMPT, timeout=BOOT_TIMEOUT)
            self.mem()                      # osh's history settles
            baseline = self.mem()
            self.say("sysfuzz: baseline %s" % self.describe(baseline))
            runs, seed = [], self.seed
            while sum(c for _, c, _ in runs) < self.calls:
                runs.append((seed, self.count, self.procs))
                seed += 1
            for seed, count, procs in runs:
                if not self.fuzz(seed, count, procs):
                    break
                self.check_leak(baseline, self.mem(), seed)
            if not self.failures:
                self.power_off()
        except AssertionError as e:         # a bound passed: hang or death
            self.fail(str(e).split("\n--- command:")[0])
        finally:
            self.m.power_cut()
            with open(self.log_path, "w") as f:
                f.write(self.m.output)
        if not self.failures:
            self.check_image()
        self.elapsed = time.monotonic() - started
        self.say(self.summary())
        return self.failures

    def type_line(self, line):
        """Type a command line into osh; the output offset where it starts."""
        start = len(self.m.output)
        self.m.send(line + "\n")
        return start

    def mem(self):
        """`sysfuzz mem`: its figures (a match)."""
        start = self.type_line("sysfuzz mem")
        found = self.m.expect(MEM.pattern, timeout=STEP_TIMEOUT, start=start)
        self.m.expect(PROMPT, timeout=STEP_TIMEOUT, start=found.end())
        return found

    @staticmethod
    def describe(mem):
        """The figures of a `sysfuzz mem` line, briefly."""
        return ("%s pages used (%s outside the processes), %s objects, "
                "%s names, %s processes" % (
                    int(mem.group(1)) // 4096, int(mem.group(3)) // 4096,
                    mem.group(4), mem.group(5), mem.group(6)))

    def fuzz(self, seed, count, procs):
        """One run of sysfuzz, watched for progress; whether it ended well."""
        started = time.monotonic()
        start = self.type_line("sysfuzz %d %d %d" % (seed, count, procs))
        self.seeds.append(seed)
        at = start
        while True:
            found = self.m.expect(r"^sysfuzz %d: (\d+) calls(?:\n|, )" % seed,
                                  timeout=PROGRESS_TIMEOUT, start=at)
            at = found.end()
            self.check_output(start)
            if found.group(0).endswith(", "):
                break
        final = self.m.expect(FINAL.pattern, timeout=STEP_TIMEOUT, start=start)
        self.m.expect(PROMPT, timeout=STEP_TIMEOUT, start=final.end())
        seconds = time.monotonic() - started
        self.fuzz_seconds += seconds
        self.fuzzed += int(final.group(2))
        self.check_output(start)
        self.say("sysfuzz: seed %d: %s calls in %d processes, %.1f s: %s" % (
            seed, final.group(2), procs, seconds, final.group(3)))
        if final.group(3) != "ok":
            self.fail("seed %d: %s" % (seed, final.group(0)))
        return final.group(3) == "ok"

    def power_off(self):
        """osh's poweroff: QEMU must exit by itself."""
        self.type_line("poweroff")
        status = self.m.wait_exit(timeout=STEP_TIMEOUT)
        if status != 0:
            self.fail("poweroff: QEMU exited with status %d" % status)

    # --- checking --------------------------------------------------------

    def fail(self, what):
        """Record a failure and say it at once."""
        self.failures.append(what)
        self.say("sysfuzz: FAILURE: " + what)

    def check_output(self, start):
        """No panic and no FAIL line since `start` (raises to stop the run)."""
        text = self.m.output[start:]
        for regex in (PANIC, FAIL):
            found = regex.search(text)
            if found:
                raise AssertionError("the console says: " + found.group(0))

    def check_leak(self, before, after, seed):
        """The heap after a run holds what it held before (within the slack)."""
        for group, what in ((4, "objects"), (5, "names"), (6, "processes")):
            if before.group(group) != after.group(group):
                self.fail("seed %d: %s after the run: %s, before: %s" % (
                    seed, what, after.group(group), before.group(group)))
        grown = (int(after.group(3)) - int(before.group(3))) // 4096
        if grown > PAGE_SLACK:
            self.fail("seed %d: %d more pages in use outside the processes "
                      "than before (slack %d): %s" % (
                          seed, grown, PAGE_SLACK, self.describe(after)))

    def check_image(self):
        """objtool check on the image, QEMU stopped: clean."""
        p = subprocess.run([OBJTOOL, self.image, "check"], capture_output=True,
                           text=True)
        if p.returncode != 0 or not p.stdout.startswith("check: clean"):
            self.fail("objtool check (status %d):\n%s%s" % (
                p.returncode, p.stdout, p.stderr))

    def summary(self):
        """The closing line: calls, seeds, time, failures."""
        rate = self.fuzzed / self.fuzz_seconds if self.fuzz_seconds else 0
        return ("sysfuzz: %d calls fuzzed in %d runs (seeds %s), %.0f s of "
                "fuzzing (%.0f calls/s), %.0f s in all, %d failures; console "
                "log %s" % (self.fuzzed, len(self.seeds),
                            ", ".join(str(s) for s in self.seeds),
                            self.fuzz_seconds, rate, self.elapsed,
                            len(self.failures), self.log_path))


def default_seed():
    """$FUZZ_SEED, or a fresh random seed."""
    text = os.environ.get("FUZZ_SEED")
    return int(text) if text else random.SystemRandom().randrange(1, 1 << 31)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int,
                    default=int(os.environ.get("FUZZ_CALLS") or DEFAULT_CALLS),
                    help="calls to fuzz in all (default $FUZZ_CALLS, else %d)"
                    % DEFAULT_CALLS)
    ap.add_argument("--seed", type=int, default=None,
                    help="the first seed (default $FUZZ_SEED, else random)")
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT,
                    help="calls per run (default %d)" % DEFAULT_COUNT)
    ap.add_argument("--procs", type=int, default=DEFAULT_PROCS,
                    help="processes per run (default %d)" % DEFAULT_PROCS)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "fuzz"),
                    help="where the image and the console log go "
                    "(default build/fuzz)")
    ap.add_argument("--no-logcheck", action="store_true",
                    help="boot without the log checker (about 5 times faster)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else default_seed()
    campaign = Campaign(args.dir, args.calls, seed, args.procs,
                        min(args.count, args.calls), not args.no_logcheck)
    return 1 if campaign.run() else 0


if __name__ == "__main__":
    sys.exit(main())
