#!/usr/bin/python3
"""powercut.py -- the power-cut campaign: a mixed workload, SIGKILL at random
instants, power on, repeat; then prove nothing was lost, repeated or broken.

One NVM image serves the whole campaign. At genesis the workload is typed
into osh as background jobs (WORKLOAD): three counters with distinct starts,
churn (objects created, written, resized, renamed, deleted and checked
against a model in its memory), spawner (spawn, wait, check the exit
status), memtest (patterns through a shared mapping), sysfuzz, mtcount
(four threads adding to one counter under a mutex, each line the next
number), and lxcount, a static Linux binary (its interval timer's
SIGALRM, an object it appends to and a pipe, checked at every step). With cpus=(2, 1) the power-ons alternate between two CPUs
and one, so every resume finds another CPU count. memtest runs
without pause over 8 MiB, so the CPU is never idle and the epochs are
large: most cuts find a dirty epoch, and most power-ons roll back
thousands of records (the others pause between steps, and the kernel
commits whenever the CPU would idle). Then, CUTS times:
power on (a new QEMU on the same image with the same modules), wait a
random time, SIGKILL QEMU, and run `objtool IMAGE check`, which must say
the image is clean. Last, one more power-on waits until every program has
made progress, and is cut too.

Some cuts come before the kernel's resume line, so the power fails while
the kernel is still powering on -- during the rollback of the epoch the
previous cut interrupted, or before -- and the next power-on has to roll
back again. The harness notes when each power-on's marks appear (the first
console byte, the nvm line, the resume line: the kernel runs with
`earlyprintk`, so power-on lines leave as they are printed instead of all
at once after the resume) and aims every EARLY_EVERY-th
cut at a random instant between the first byte or the nvm line and where
the resume line is expected; the others fall after the resume line, while
the programs run. The summary says where the early cuts landed.

What is checked, at every power-on and over the whole run
(Campaign.check_poweron, check_image, LineChecker, Sequence):
  - every power-on after genesis printed the resume line and no genesis
    line, except one cut on purpose before the resume line was due (when
    the cut comes after it, the harness waits for the line first); output
    released at power-on, before the resume line, is checked like the rest;
  - the image is clean for objtool after every cut;
  - no FAIL line, no killed or ended process, no kernel panic, and never
    fewer processes at power-on than the workload started;
  - each program's numbered lines (a counter's numbers, churn's rounds,
    spawner's rounds, memtest's passes) are consecutive across the whole
    run: no gap and no repeat, except for the line in flight at a cut,
    which is the last complete program line of that power-on's output or
    the unfinished fragment after it: that one line may appear once more
    after the cut, or, if it was cut short, not at all;
  - in the final power-on every program printed new lines (none vanished).

Output commit (DESIGN.md section 4) is what makes the sequence check pass:
without it, lines printed in an epoch a cut undid are printed again.

  tests/system/powercut.py [--cuts N] [--seed S] [--dir DIR] [--keep-going]

prints the seed (FERRITE_POWERCUT_SEED replays it), one line per power-on
and a summary: cuts, power-ons, lines checked, failures. The console output
of every power-on is kept in DIR/powercut.log and the image in
DIR/powercut.nvm. test_powercut.py runs the quick form under `make test`,
and `make torture` the long one.
"""

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ferrite import ROOT, Machine, smp  # noqa: E402

OBJTOOL = os.path.join(ROOT, "build", "objtool")
IMAGE_SIZE = "256M"
PROMPT = "osh> "
SEED_VARIABLE = "FERRITE_POWERCUT_SEED"

# Bounds, never criteria: a hung kernel fails instead of hanging the run.
STEP_TIMEOUT = 120
PROGRESS_TIMEOUT = 120
PROGRESS_LINES = 2          # new lines each program prints in the final power-on

EARLY_EVERY = 3             # every third cut is aimed inside the power-on
RUN_DELAY = (0.2, 2.5)      # seconds after the resume line for the others

# The kernel's line at every power-on that is not genesis (checkpoints.md).
RESUME = re.compile(r"^ferrite: resumed at epoch (\d+) \(rolled back (\d+) "
                    r"records, (\d+) KiB\) in (\d+) us$", re.M)
HEAP_OPENED = re.compile(r"^heap: opened, ", re.M)
GENESIS = re.compile(r"^heap: genesis: formatted", re.M)
POWER_ON = re.compile(r"^ferrite: power-on (\d+), (\d+) processes$", re.M)
FIRST_BYTE = re.compile(r"\S")
NVM = re.compile(r"^nvm: ", re.M)
# Lines that are always a failure, wherever they appear -- except the fault
# of a process sysfuzz started (its workers "sysfuzz-w" touch wild addresses
# on purpose, and the children of its fuzzed spawns "sysfuzz-x" may fault by
# design); sysfuzz itself is named "sysfuzz", and its death is a failure.
FAILURES = re.compile(r"^(?!\[\d+ sysfuzz-[wx]\] killed: )"
                      r".*(?:FAIL|killed:|\] done, status|panic).*$", re.M)


class Program:
    """One program of the workload: the osh line that starts it, and the
    line it prints once per step, numbered from `first`."""

    def __init__(self, name, command, regex, first, template):
        self.name = name
        self.command = command
        self.regex = re.compile(regex)
        self.first = first
        self.template = template     # the line for number n: template % n

    def number(self, line):
        """The number of one of this program's lines, or None."""
        m = self.regex.fullmatch(line)
        return int(m.group(1)) if m else None


def counter(start, period_ms):
    """A counter printing start, start + 1, ... (99,999 lines are its own)."""
    return Program("counter %d" % start,
                   "counter %d %d &" % (start, period_ms),
                   r"(%d\d{5})" % (start // 100000), start, "%d")


WORKLOAD = [
    counter(100000, 200),
    counter(200000, 300),
    counter(300000, 450),
    Program("churn", "churn {seed} 250 &", r"churn: round (\d+) ok", 1,
            "churn: round %d ok"),
    Program("spawner", "spawner 200 &", r"spawner: round (\d+) ok", 1,
            "spawner: round %d ok"),
    Program("memtest", "memtest 2048 0 &", r"memtest: pass (\d+) ok", 1,
            "memtest: pass %d ok"),
    Program("sysfuzz", "sysfuzz {seed} 0 3 &", r"sysfuzz: round (\d+) ok", 1,
            "sysfuzz: round %d ok"),
    # Four threads of one process add to a counter under a mutex, each line
    # the next number, whichever thread printed it (user/bin/mtcount.c).
    Program("mtcount", "mtcount 4 150 &", r"mtcount: (\d+)", 1, "mtcount: %d"),
    # A Linux program: its timer's SIGALRM, a log object open O_APPEND and
    # a pipe checked at each step (tests/linux/lxcount.c).
    Program("lxcount", "lxcount 250 &", r"lxcount: (\d+) ok", 1, "lxcount: %d ok"),
]
# The boot modules: Ferrite's programs, and the Linux program above.
PROGRAMS = os.path.join(ROOT, "build", "user", "bin")
LINUX_PROGRAM = os.path.join(ROOT, "build", "linux", "lxcount")
# osh, and one process per program; spawner may have a child as well.
WORKLOAD_PROCESSES = 1 + len(WORKLOAD)
# Lines of the programs that carry no number (the start-up ones).
PROGRAM_NOTES = re.compile(r"(?:churn: seed \d+, objects under churn/\d+/|"
                           r"sysfuzz \d+: 0 calls in \d+ processes, names "
                           r"under fuzz/|"
                           r"memtest: \d+ pages of memtest/\d+ at 0x[0-9a-f]+)")


def program_text(line):
    """A console line without the osh prompts printed ahead of it."""
    while line.startswith(PROMPT):
        line = line[len(PROMPT):]
    return line


class Sequence:
    """One program's numbered lines over the whole run, checked as they come.

    Invariant: `last` is the program's last line seen (number, power-on) and
    `last_in_flight` says whether it was the last program line of its
    power-on's output (the one line a cut may repeat)."""

    def __init__(self, program):
        self.program = program
        self.last = None
        self.last_in_flight = False
        self.fragments = []        # unfinished lines at cuts since `last`
        self.recent = []           # (power-on, number) of the last lines
        self.lines = 0
        self.repeats = 0
        self.truncated = 0

    def feed(self, poweron, n, in_flight):
        """Take line number n of power-on `poweron`; a problem or None."""
        problem = self._judge(poweron, n)
        self.recent = (self.recent + [(poweron, n)])[-8:]
        self.lines += 1
        self.last = (n, poweron)
        self.last_in_flight = in_flight
        self.fragments = []
        return problem

    def _judge(self, poweron, n):
        """Whether n may follow `last`; a problem or None."""
        if self.last is None:
            return None if n == self.program.first else \
                "starts at %d, expected %d" % (n, self.program.first)
        last, last_poweron = self.last
        if n == last + 1:
            return None
        if poweron != last_poweron and n == last and self.last_in_flight:
            self.repeats += 1
            return None
        missing = self.program.template % (last + 1)
        if poweron != last_poweron and n == last + 2 and any(
                f and missing.startswith(f) for f in self.fragments):
            self.truncated += 1
            return None
        return "%d follows %d (power-on %d, then %d)" % (
            n, last, last_poweron, poweron)

    def cut(self, fragment):
        """A cut ended the output with an unfinished line (or '')."""
        self.fragments.append(program_text(fragment))

    def context(self):
        """The last lines seen, for a failure message."""
        return ", ".join("%d@%d" % (n, p) for p, n in self.recent)


class LineChecker:
    """The console lines of every power-on, in order: each program's numbers
    consecutive across the run (Sequence), and no line that means failure."""

    def __init__(self, programs=WORKLOAD):
        self.sequences = [Sequence(p) for p in programs]

    def program_line(self, text):
        """(sequence, number) of a program's numbered line, or None."""
        for seq in self.sequences:
            n = seq.program.number(text)
            if n is not None:
                return seq, n
        return None

    def feed(self, poweron, output):
        """Check the output of power-on `poweron`; the problems found."""
        problems = []
        lines = output.split("\n")
        fragment = lines.pop()           # '' when the output ended a line
        numbered = []
        for index, line in enumerate(lines):
            text = program_text(line)
            where = "power-on %d, line %d: " % (poweron, index + 1)
            if FAILURES.match(text):
                problems.append(where + text)
                continue
            found = self.program_line(text)
            if found is not None:
                numbered.append(found)
            elif re.fullmatch(r"\d+", text) or (
                    re.match(r"(?:churn|spawner|memtest|sysfuzz):|sysfuzz \d+: ",
                             text)
                    and not PROGRAM_NOTES.fullmatch(text)):
                problems.append(where + "a line no program of the workload "
                                "prints: %r" % text)
        for i, (seq, n) in enumerate(numbered):
            in_flight = fragment == "" and i == len(numbered) - 1
            problem = seq.feed(poweron, n, in_flight)
            if problem:
                problems.append("%s: %s; its last lines (number@power-on): "
                                "%s" % (seq.program.name, problem,
                                        seq.context()))
        for seq in self.sequences:
            seq.cut(fragment)
        return problems

    def lines(self):
        """Numbered lines checked so far."""
        return sum(seq.lines for seq in self.sequences)


class Campaign:
    """The whole run: one image, the workload, cuts, checks, a summary."""

    def __init__(self, directory, cuts, seed, keep_going=False, log=print,
                 cpus=None, pmem="nvdimm"):
        self.dir = directory
        self.image = os.path.join(directory, "powercut.nvm")
        self.modules = os.path.join(directory, "modules")
        self.log_path = os.path.join(directory, "powercut.log")
        self.cuts = cuts
        self.seed = seed
        self.keep_going = keep_going
        self.say = log
        # CPUs of each power-on, in turn (a system powered off with one
        # count powers on with the next); default smp(), $FERRITE_SMP.
        self.cpus = tuple(cpus) if cpus else (smp(),)
        self.pmem = pmem             # run-qemu --pmem: nvdimm or virtio
        self.rng = random.Random(seed)
        self.checker = LineChecker()
        self.failures = []
        self.poweron = 0             # power-ons so far (1: genesis)
        self.cuts_done = 0           # random cuts made
        self.early = {}              # where cuts before the resume line landed
        self.resumes = 0
        self.rollbacks = []          # records rolled back, per resume
        self.resume_us = []          # the kernel's own resume time
        # Host seconds from starting QEMU to each mark of a power-on.
        self.marks = {"first byte": [], "nvm": [], "resume": []}

    # --- running ---------------------------------------------------------

    def run(self):
        """Genesis, the cuts, the final power-on; the failures (a list)."""
        os.makedirs(self.dir, exist_ok=True)
        for path in (self.image, self.log_path):
            if os.path.exists(path):
                os.remove(path)
        self._modules()
        self.say("powercut: seed %d (%s=%d replays it), %d cuts, image %s" % (
            self.seed, SEED_VARIABLE, self.seed, self.cuts, self.image))
        started = time.monotonic()
        try:
            self._genesis()
            for cut in range(1, self.cuts + 1):
                self._cut_once(cut)
                if self.failures and not self.keep_going:
                    break
            if not self.failures or self.keep_going:
                self._final()
        except AssertionError as e:      # a bound passed at genesis
            self._fail("power-on %d: %s" % (self.poweron, e))
        self.elapsed = time.monotonic() - started
        self.say(self.summary())
        return self.failures

    def _modules(self):
        """The boot modules' directory: links to Ferrite's programs and to
        the Linux program (make test-build builds both)."""
        os.makedirs(self.modules, exist_ok=True)
        for name in os.listdir(self.modules):
            os.remove(os.path.join(self.modules, name))
        for path in [os.path.join(PROGRAMS, n) for n in sorted(os.listdir(PROGRAMS))] + \
                [LINUX_PROGRAM]:
            os.symlink(path, os.path.join(self.modules, os.path.basename(path)))

    def _start(self):
        """Power on: a Machine on the campaign's image."""
        self.poweron += 1
        return Machine(image=self.image, size=IMAGE_SIZE, boot="kernel",
                       append="earlyprintk", modules=self.modules,
                       extra=("--pmem", self.pmem),
                       cpus=self.cpus[(self.poweron - 1) % len(self.cpus)])

    def _genesis(self):
        """The first power-on: type the workload, wait for every first line.

        The whole workload is one osh line (`a & b & ...`): osh echoes
        the line as its bytes arrive and runs nothing before Enter, so no
        program's line can fall inside the echo (typed bytes reach osh in
        pieces: the UART's FIFO holds 16 bytes)."""
        m = self._start()
        try:
            m.expect(PROMPT, timeout=STEP_TIMEOUT)
            start = len(m.output)
            m.send(" ".join(p.command.format(seed=self.seed)
                            for p in WORKLOAD) + "\n")
            for _ in WORKLOAD:
                start = m.expect(r"\[\d+\] started\n", timeout=STEP_TIMEOUT,
                                 start=start).end()
            for p in WORKLOAD:
                m.expect(r"^(?:%s)*%s$" % (PROMPT, p.regex.pattern),
                         timeout=STEP_TIMEOUT)
        finally:
            m.power_cut()
        self._after(m, delay=None, genesis=True)

    def _plan(self, cut):
        """Where and when to cut power-on number `cut`: (mark, seconds after
        it). The first waits for the resume line, to measure the power-on;
        every EARLY_EVERY-th falls inside the power-on, after the first
        byte or after the nvm line (so in the heap's opening and rollback);
        the others after the resume line, while the programs run."""
        if not self.marks["resume"]:
            return "resume", RUN_DELAY[0]
        if cut % EARLY_EVERY:
            return "resume", self.rng.uniform(*RUN_DELAY)
        anchor = self.rng.choice(("first byte", "nvm"))
        window = statistics.median(self.marks["resume"]) - \
            statistics.median(self.marks[anchor])
        return anchor, self.rng.uniform(0, 1.1 * max(window, 0.001))

    def _cut_once(self, cut):
        """One power-on, cut at a random instant."""
        anchor, offset = self._plan(cut)
        m = self._start()
        try:
            delay = self._watch(m, anchor, offset)
        finally:
            m.power_cut()
        self.cuts_done += 1
        self._after(m, delay, aimed_early=anchor != "resume", cut=cut)

    def _watch(self, m, anchor, offset):
        """Note when the marks of the power-on appear (first byte, nvm
        line, resume line) and return at `offset` seconds after `anchor`;
        the time from QEMU's start to then."""
        t0 = time.monotonic()
        cut_at = None
        for name, regex in (("first byte", FIRST_BYTE), ("nvm", NVM),
                            ("resume", RESUME)):
            left = STEP_TIMEOUT if cut_at is None else cut_at - time.monotonic()
            if left <= 0 or self._wait_for(m, regex, left) is None:
                break
            now = time.monotonic()
            self.marks[name].append(now - t0)
            if name == anchor:
                cut_at = now + offset
        if cut_at is None:    # a kernel that never resumes, or no QEMU at all
            self._fail("power-on %d: no %s mark within %d s; its output:\n%s"
                       % (self.poweron, anchor, STEP_TIMEOUT, m.output))
            return time.monotonic() - t0
        left = cut_at - time.monotonic()
        if left > 0:
            time.sleep(left)
        return cut_at - t0

    @staticmethod
    def _wait_for(m, regex, timeout, start=0):
        """regex's match in m's output (from start) within timeout seconds,
        or None."""
        try:
            return m.expect(regex.pattern, timeout=timeout, start=start)
        except AssertionError:
            return None

    def _final(self):
        """A last power-on: every program must make progress (none vanished)."""
        m = self._start()
        try:
            resume = self._wait_for(m, RESUME, STEP_TIMEOUT)
            if resume is None:
                self._fail("final power-on: no resume line within %d s"
                           % STEP_TIMEOUT)
            for seq in self.checker.sequences if resume else ():
                regex = re.compile(r"^(?:%s)*%s$" % (
                    PROMPT, seq.program.regex.pattern), re.M)
                start = resume.end()
                for _ in range(PROGRESS_LINES):
                    found = self._wait_for(m, regex, PROGRESS_TIMEOUT, start)
                    if found is None:
                        self._fail("final power-on: %s printed fewer than %d "
                                   "lines in %d s (it vanished or hung)" % (
                                       seq.program.name, PROGRESS_LINES,
                                       PROGRESS_TIMEOUT))
                        break
                    start = found.end()
        finally:
            m.power_cut()
        self._after(m, delay=None, final=True)

    # --- checking --------------------------------------------------------

    def _fail(self, what):
        """Record a failure and say it at once."""
        self.failures.append(what)
        self.say("powercut: FAILURE: " + what)

    def _after(self, m, delay, genesis=False, aimed_early=False, cut=None,
               final=False):
        """Everything checked once a power-on is over."""
        with open(self.log_path, "a") as f:
            f.write("=== power-on %d (delay %s) ===\n%s\n" % (
                self.poweron, "-" if delay is None else "%.3f s" % delay,
                m.output))
        kind = self.check_poweron(m.output, genesis)
        self.check_image()
        for problem in self.checker.feed(self.poweron, m.output):
            self._fail(problem)
        label = "genesis" if genesis else "final" if final else "cut %d" % cut
        self.say("powercut: power-on %d (%s): %s%s" % (
            self.poweron, label, kind,
            "" if delay is None else ", cut after %.3f s%s" % (
                delay, " (aimed at the power-on)" if aimed_early else "")))

    def check_poweron(self, output, genesis):
        """Genesis or resume as it must be; what this power-on was."""
        if genesis:
            if not GENESIS.search(output):
                self._fail("power-on 1 printed no genesis line")
            return "genesis"
        if GENESIS.search(output):
            self._fail("power-on %d formatted the heap anew (genesis)"
                       % self.poweron)
        resume = RESUME.search(output)
        if resume is None:    # a cut aimed at the power-on (else _watch failed)
            where = ("after the rollback, before the resume line"
                     if HEAP_OPENED.search(output) else
                     "in the heap's opening and rollback"
                     if NVM.search(output) else
                     "in the boot, before the nvm line" if output.strip()
                     else "before the kernel's first byte")
            self.early[where] = self.early.get(where, 0) + 1
            return "cut " + where
        self.resumes += 1
        self.rollbacks.append(int(resume.group(2)))
        self.resume_us.append(int(resume.group(4)))
        procs = POWER_ON.search(output)
        if procs and int(procs.group(2)) < WORKLOAD_PROCESSES:
            self._fail("power-on %d found %s processes, the workload has %d"
                       % (self.poweron, procs.group(2), WORKLOAD_PROCESSES))
        return "resumed (%s)" % resume.group(0)

    def check_image(self):
        """objtool check on the image, QEMU stopped: clean."""
        p = subprocess.run([OBJTOOL, self.image, "check"], capture_output=True,
                           text=True)
        if p.returncode != 0 or not p.stdout.startswith("check: clean"):
            self._fail("objtool check after power-on %d (status %d):\n%s%s"
                       % (self.poweron, p.returncode, p.stdout, p.stderr))

    # --- reporting -------------------------------------------------------

    def summary(self):
        """The closing lines: cuts, power-ons, lines checked, failures."""
        lines = self.checker.lines()
        out = ["powercut: seed %d: %d cuts, %d power-ons (%d resumed, %d cut "
               "before the resume line), %d lines checked, %d failures, "
               "%.0f s" % (self.seed, self.cuts_done, self.poweron,
                           self.resumes, sum(self.early.values()), lines,
                           len(self.failures), self.elapsed)]
        for s in self.checker.sequences:
            out.append("powercut:   %-14s %5d lines, last %s, %d repeated and "
                       "%d cut short at a cut" % (
                           s.program.name, s.lines,
                           s.last[0] if s.last else "-", s.repeats,
                           s.truncated))
        if self.marks["resume"]:
            out.append("powercut:   host time from QEMU's start to the first "
                       "byte %.3f s, the nvm line %.3f s, the resume line "
                       "%.3f s (medians)" % tuple(
                           statistics.median(self.marks[k])
                           for k in ("first byte", "nvm", "resume")))
        for where, count in sorted(self.early.items()):
            out.append("powercut:   %d cut %s" % (count, where))
        if self.rollbacks:
            out.append("powercut:   rolled back per resume: median %d, max %d "
                       "records%s" % (
                           statistics.median(self.rollbacks),
                           max(self.rollbacks),
                           "; resume %d us median, %d max (the kernel's "
                           "figure)" % (statistics.median(self.resume_us),
                                        max(self.resume_us))))
        out.append("powercut:   console log %s" % self.log_path)
        return "\n".join(out)


def default_seed():
    """$FERRITE_POWERCUT_SEED, or a fresh random seed."""
    text = os.environ.get(SEED_VARIABLE)
    return int(text) if text else random.SystemRandom().randrange(1, 1 << 31)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuts", type=int, default=200,
                    help="random power cuts (default 200)")
    ap.add_argument("--seed", type=int, default=None,
                    help="the random seed (default $%s, else random)"
                    % SEED_VARIABLE)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "torture"),
                    help="where the image and the console log go "
                    "(default build/torture)")
    ap.add_argument("--keep-going", action="store_true",
                    help="go on after a failure")
    ap.add_argument("--cpus", default=None,
                    help="CPUs of each power-on in turn, comma-separated "
                    "(default $FERRITE_SMP, else 1); e.g. 2,1: every power-on "
                    "changes the count")
    ap.add_argument("--pmem", choices=("nvdimm", "virtio"), default="nvdimm",
                    help="the NVM's kind (run-qemu --pmem; default nvdimm)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else default_seed()
    cpus = [int(n) for n in args.cpus.split(",")] if args.cpus else None
    failures = Campaign(args.dir, args.cuts, seed, args.keep_going,
                        cpus=cpus, pmem=args.pmem).run()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
