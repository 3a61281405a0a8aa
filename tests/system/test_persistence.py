"""test_persistence.py -- the NVM tracer (tools/nvmtrace,
docs/persistence-model.md) on the real kernel in real QEMU.

The tracer's own proof: a run traced from its first instruction, replayed
from the trace alone (the starting image, then every store in order),
gives the image QEMU left, byte for byte -- so every store to the NVM was
seen, placed and given its bytes. Its write-backs are the kernel's: every
one attributed to its line (the kernel built for tracing marks them), and
a kernel not built for tracing is refused.

The crash states (the quick form of issue 15's campaign): at ordering
points of a traced run, the images the x86 persistency rules allow
(nvmtrace.crash_points), each checked by objtool, some powered on.
"""

import os
import random
import re
import subprocess
import sys

import pytest

from ferrite import PROMPT, ROOT, command, run_launcher, traced_session
from powercut import LineChecker, Program, counter, program_text

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace  # noqa: E402

import heapimage as H  # noqa: E402

TIMEOUT = 300
# make persist-check: the long campaign, the same tests on every ordering
# point of genesis, the session and kv, most of the workload's, 600
# power-ons.
LONG = os.environ.get("PERSIST_CHECK") == "long"
NORMAL_KERNEL = os.path.join(ROOT, "build", "ferrite.elf")
OBJTOOL = os.path.join(ROOT, "build", "objtool")


def mutant(name):
    """A kernel with a persistence bug planted (make mutants)."""
    return os.path.join(ROOT, "build", "mutant-" + name, "ferrite.elf")


def make_heap(machines, image, append=None, extra=()):
    """Genesis on a blank image, untraced, then power off (extra: the
    launcher's arguments, e.g. --pmem virtio)."""
    m = machines(image=image, size="32M", accel_name="tcg", append=append, extra=extra)
    m.expect(PROMPT, timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0


def assert_replays(trace, image):
    with open(image, "rb") as f:
        final = f.read()
    rebuilt = nvmtrace.replay(trace)
    assert len(rebuilt) == len(final)
    if rebuilt != final:
        lines = [at for at in range(0, len(final), 64)
                 if rebuilt[at:at + 64] != final[at:at + 64]]
        pytest.fail("the replay differs from the image in %d lines, first at %#x"
                    % (len(lines), lines[0]))


SESSION = [
    ("write notes/a hello persistent world", r""),
    ("cp notes/a notes/b", r""),
    ("mv notes/b notes/c", r""),
    ("append notes/c more", r""),
    ("rm notes/a", r""),
    ("new big 64K", r""),
    ("hello", r"hello"),
    ("sync", r"sync: epoch \d+ committed\n"),
]
# The session's names in the catalogue (of notes/* and big) after each of
# its commands.
SESSION_NAMES = [{"notes/a"}, {"notes/a", "notes/b"}, {"notes/a", "notes/c"},
                 {"notes/a", "notes/c"}, {"notes/c"}, {"notes/c", "big"},
                 {"notes/c", "big"}, {"notes/c", "big"}]


def test_genesis_and_a_session_replay_to_the_final_image(machines, tmp_path):
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    out = traced_session(machines, image, trace, SESSION)
    assert "nvm: 32 MiB at 0x100000000" in out     # where the plugin was told
    s = nvmtrace.summary(trace)
    assert s["unattributed"] == 0
    assert s["counts"][("write-back", "clflushopt")] > 1000
    assert s["counts"][("fence", "sfence")] > 100
    assert s["counts"][("store", "cached")] > 10000
    assert ("starting page", "") not in s["counts"]  # genesis: a blank image
    assert_replays(trace, image)
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_under_icount_a_write_back_ending_its_block_is_placed(machines, tmp_path):
    # Under -icount a block ends wherever the budget to the next timer
    # deadline runs out, so the load that tells a write-back's line may
    # start the next block. -singlestep makes every block one instruction:
    # every write-back ends its block, and every one must still be placed.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    traced_session(machines, image, trace, SESSION[:2], extra=["--icount", "0"],
                   qemu_args=["-singlestep"])
    s = nvmtrace.summary(trace)
    assert s["unattributed"] == 0
    assert s["counts"][("write-back", "clflushopt")] > 1000
    assert s["instructions"] > 10 ** 7
    assert_replays(trace, image)


def test_one_crash_image_is_rebuilt_from_its_name(machines, tmp_path):
    # What a failing test names -- a point and a variant -- the CLI builds,
    # to power on or to look at: the same bytes as the campaign's.
    image, trace, out = tmp_path / "t.nvm", tmp_path / "t.trace", tmp_path / "c.nvm"
    traced_session(machines, image, trace, SESSION[:2])
    point = max(commit_points(trace))
    cli = [sys.executable, os.path.join(ROOT, "tools", "nvmtrace", "nvmtrace.py"),
           "crash", str(trace)]
    for variant in ("lost", "kept"):
        p = subprocess.run(cli + [str(point), variant, str(out)], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        assert "point %d" % point in p.stdout and "commit" in p.stdout
        expected = next(nvmtrace.crash_points(trace, {point}))
        assert out.read_bytes() == bytes(image_of(expected, variant))
        assert objtool_check(out)[0] == 0
    for bad, why in (([str(point), "half", str(out)], "no variant 'half'"),
                     (["10000000", "lost", str(out)], "has no ordering point 10000000"),
                     (["x", "lost", str(out)], "not an ordering point's number")):
        p = subprocess.run(cli + bad, capture_output=True, text=True)
        assert p.returncode == 2 and why in p.stderr, p.stderr


def image_of(point, variant):
    """The image of the campaign's variant at a crash point."""
    image = bytearray(point.durable)
    point.apply(image, dict(point.variants(random.Random(0), 0))[variant])
    return image


def test_a_resumed_image_replays_from_its_starting_pages(machines, tmp_path):
    image, first, second = tmp_path / "t.nvm", tmp_path / "1.trace", tmp_path / "2.trace"
    traced_session(machines, image, first, [("write x one", r"")])
    out = traced_session(machines, image, second,
                         [("cat x", r"one\n"), ("write x two", r"")])
    assert "power-on 2" in out
    s = nvmtrace.summary(second)
    assert s["counts"][("starting page", "")] > 100
    assert_replays(second, image)


def test_a_kernel_not_built_for_tracing_is_refused(machines, tmp_path):
    # Its write-backs carry no mark: the plugin counts them, and the trace's
    # readers refuse it rather than model a run whose flushes they cannot see.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    traced_session(machines, image, trace, [], kernel=NORMAL_KERNEL)
    assert nvmtrace.summary(trace)["unattributed"] > 1000
    with pytest.raises(nvmtrace.TraceError, match="write-backs whose line is unknown"):
        nvmtrace.replay(trace)


@pytest.mark.parametrize("args, why", [
    (["--accel", "kvm"], "--trace-nvm needs --accel tcg"),
    (["--boot", "iso"], "--trace-nvm needs --boot kernel"),
    (["--boot", "kernel", "--ram", "3G"], "--trace-nvm needs --ram 2G or less"),
    (["--boot", "kernel", "--no-nvm"], "--trace-nvm traces the NVM; drop --no-nvm"),
])
def test_the_launcher_refuses_what_cannot_be_traced(tmp_path, args, why):
    status, out = run_launcher("--trace-nvm", str(tmp_path / "t.trace"), "--dry-run", *args)
    assert status == 2
    assert why in out


def objtool_check(image):
    """(status, text) of `objtool IMAGE check`."""
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


NOT_AN_IMAGE = "is not a Ferrite image"


def log_region(image):
    """("log", start, end): the undo log's bytes in an image with a heap."""
    with open(image, "rb") as f:
        g = H.geometry(f.read(4096))
    return ("log", g["log_offset"], g["log_offset"] + g["log_size"])


# The kernel stopped: a panic, or a damaged heap it will not run on. Its
# line may come right after osh's prompt, on the prompt's line.
STOPPED = r"^(?:%s)*(?:panic: |error: ).*\n" % PROMPT


def spread(chosen, n):
    """n of the chosen points, spread evenly over them."""
    chosen = sorted(chosen)
    return set(chosen[::max(1, len(chosen) // n)][:n]) if n else set()


def crash_campaign(machines, tmp_path, trace, chosen, boot, seed, regions=(),
                   check=None, power_on=None, singles=2, boot_variant="random",
                   append=None, until_caught=False):
    """Build the crash states at the ordering points `chosen` (a set of
    indices) of the trace: every unflushed line lost, all kept, a random
    prefix of each, the unflushed lines of each of `regions` lost, up to
    `singles` lines lost alone; check them (check_states: objtool,
    check(point, image), the points in `boot` powered on with the variant
    `boot_variant`). [(objtool status, text, where)], the problems, and
    the power-ons' consoles [(had a heap, console, where)]."""
    rng = random.Random(seed)
    assert until_caught or boot <= chosen

    def states():
        for point in nvmtrace.crash_points(trace, chosen):
            for name, kept in point.variants(rng, singles, regions):
                yield point, name, kept, "ordering point %d (pc %#x, %s), %s" % (
                    point.index, point.record.pc,
                    "/".join(sorted(point.windows)) or "no window", name)

    checked, problems, powered = check_states(
        machines, tmp_path, states(), lambda p, name: p.index in boot and name == boot_variant,
        check=check, power_on=power_on, append=append, until_caught=until_caught)
    assert len(powered) == len(boot)
    points = nvmtrace.ordering_points(trace)
    windows = ", ".join("%s %d of %d" % (w, len([i for i in chosen if w in points[i]]),
                                          len([p for p in points if w in p]))
                        for w in nvmtrace.WINDOWS)
    print("crash states: %d of %d ordering points (%s), %d images, %d powered on, "
          "%d problems%s" % (len(chosen), len(points), windows, len(checked),
                             len(powered), len(problems),
                             ", stopped at the first caught" if until_caught else ""))
    return checked, problems, powered


def check_states(machines, tmp_path, states, boot, check=None, power_on=None,
                 append=None, until_caught=False, extra=()):
    """Check crash states, each (point, variant name, kept, where) for
    point.write: each image is checked offline, by objtool and by
    check(point, image) (a problem or None); those for which boot(point,
    name) is true are powered on (with the launcher's `extra` arguments
    and the kernel command line `append`): power_on(point, m) waits for
    what must follow (default: the resume or genesis line) and returns a
    problem or None, then the power is cut and the image checked again (a
    problem if it fails). [(objtool status,
    text, where)], the problems, and the power-ons' consoles [(had a heap,
    console, where)]. until_caught (for a mutant, whose bug only has to be
    caught once): stop at the first state objtool refuses or check finds
    a problem in, with no state powered on."""
    image = tmp_path / "crash.nvm"
    image_file = nvmtrace.ImageFile(image)
    checked, problems, powered = [], [], []
    for point, name, kept, where in states:
        image_file.write(point, kept)
        status, text = objtool_check(image)
        checked.append((status, text, where))
        problem = check(point, image) if check and status == 0 else None
        if problem:
            problems.append("%s: %s" % (where, problem))
        if until_caught and (status != 0 or problem is not None):
            break
        if boot(point, name):
            assert not until_caught
            m = machines(image=image, size="32M", accel_name="tcg", append=append,
                         extra=extra)
            found = m.expect(r"ferrite: (?:resumed at epoch \d+|genesis complete)|%s"
                             % STOPPED, timeout=TIMEOUT)
            if re.match(STOPPED, found.group(0)):
                problem = found.group(0).strip()   # stopped before it resumed
            else:
                problem = power_on(point, m) if power_on else None
            if problem:
                problems.append("%s, powered on: %s" % (where, problem))
            m.power_cut()
            image_file.forget()
            after, text = objtool_check(image)
            if after != 0:
                problems.append("%s, after its power-on: %s" % (where, text))
            powered.append((status == 0, m.output, where))
    return checked, problems, powered


def assert_clean(checked, problems):
    """Every image checked clean, and no check found a problem."""
    bad = [c for c in checked if c[0] != 0]
    assert not bad, "\n".join("%s: %s" % (where, text) for _, text, where in bad[:10])
    assert not problems, "\n".join(problems[:10])


def test_crash_states_of_genesis(machines, tmp_path):
    # Cut anywhere in genesis: the image is a heap that checks clean, or no
    # heap at all (the superblock not yet durable); a power-on formats only
    # the latter, and finishes genesis on a heap without its kernel objects.
    trace = tmp_path / "t.trace"
    traced_session(machines, tmp_path / "t.nvm", trace, [])
    rng = random.Random(15)
    total = len(nvmtrace.ordering_points(trace))
    chosen = set(range(total)) if LONG else set(rng.sample(range(total), 40))
    checked, _, powered = crash_campaign(machines, tmp_path, trace, chosen,
                                         spread(chosen, 100 if LONG else 6), seed=15)
    bad = [c for c in checked if c[0] != 0 and NOT_AN_IMAGE not in c[1]]
    assert not bad, "\n".join("%s: %s" % (where, text) for _, text, where in bad[:10])
    assert len(checked) >= 120
    for had_heap, console, where in powered:
        formatted = "heap: genesis: formatted" in console
        assert formatted != had_heap, where + ":\n" + console


def session_names(image):
    """The session's names in an image's catalogue (objtool ls, which reads
    the image as a power-on would: its unfinished epoch rolled back)."""
    p = subprocess.run([OBJTOOL, str(image), "ls"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return {n for n in p.stdout.split() if n.startswith("notes/") or n == "big"}


def reported_names(point, image):
    """The catalogue holds what every command reported done had made: a
    command is done when osh's next prompt went out (output commit: sent
    only once the epoch holding the command's changes was durable). The
    commands after it may have been done too: the session types ahead at
    times (its first wait for a prompt can take the one osh redraws when
    typing begins, "\rosh> "), so one epoch may hold several."""
    return at_least_reported(point.console, SESSION_NAMES, session_names(image),
                             "the catalogue holds")


def at_least_reported(console, states, found, what):
    """A problem if `found` is not states[k - 1] (after command k; before
    the first: empty) for some k at or past the commands the console
    reported done, else None."""
    # A prompt after a new line ends a command; the first is before any.
    # The kernel's timer lines (KERNEL_TIMER_LINE) come at any moment, even
    # in the middle of a line: without them, the prompt osh redraws after
    # one ("\rosh> ") is no prompt after a new line (it once counted a
    # command done too many).
    console = KERNEL_TIMER_TEXT.sub(b"", console)
    done = max(console.count(b"\n" + PROMPT.encode()) - 1, 0)
    allowed = [states[i - 1] if i else set() for i in range(done, len(states) + 1)]
    if found not in allowed:
        return "%d commands reported done, %s %s (expected one of %s)" % (
            done, what, sorted(found), ", ".join(str(sorted(a)) for a in allowed))
    return None


def sampled(run_, rng, head=2, tail=4, middle=4):
    """Ordering points of a window's run: every one in the long campaign,
    else its first `head`, its last `tail` and `middle` drawn from those
    between. A commit's write-back of the DRAM cache has several ordering
    points for each page it writes back; its last ones are the commit
    point and the output's release."""
    points = list(run_)
    if LONG or len(points) <= head + tail + middle:
        return set(points)
    return set(points[:head] + points[-tail:] + rng.sample(points[head:-tail], middle))


def commit_points(trace, seed=None):
    """The ordering points inside the trace's commits: every one with no
    seed, else each commit's sampled ones."""
    rng = random.Random(seed)
    chosen = set()
    for run_ in nvmtrace.window_runs(nvmtrace.ordering_points(trace), "commit"):
        chosen |= set(run_) if seed is None else sampled(run_, rng)
    return chosen


@pytest.mark.slow(36)
def test_crash_states_of_a_session(machines, tmp_path):
    # A heap made by an untraced power-on, then an osh session traced from
    # it: at ordering points of its commits (commit_points) and at random ones, with
    # six lines lost alone at each, the image checks clean and the
    # catalogue holds the names of every command reported done; every
    # state powered on resumes from its last commit. (The mutants below
    # break this.)
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image)
    traced_session(machines, image, trace, SESSION)
    rng = random.Random(16)
    total = len(nvmtrace.ordering_points(trace))
    chosen = set(range(total)) if LONG else set(rng.sample(range(total), 40))
    chosen |= commit_points(trace, seed=16)
    checked, problems, powered = crash_campaign(
        machines, tmp_path, trace, chosen, spread(chosen, 150 if LONG else 10), seed=16,
        regions=[log_region(image)], check=reported_names, singles=6)
    assert_clean(checked, problems)
    # Every point gave its three images (lost, kept, random); how many
    # lines were dirty at each varies with the session's timing, but lines
    # lost alone were tried at least once a point on average.
    assert len(checked) >= 3 * len(chosen)
    assert len([w for _, _, w in checked if ", lost-0x" in w]) >= len(chosen)
    for _, console, where in powered:
        assert "ferrite: resumed at epoch" in console, where + ":\n" + console


# counter, churn, spawner and memtest together (powercut.py's programs,
# faster and smaller): memtest never pauses, so epochs are dirty and pages
# are logged all the time.
WORKLOAD = [
    counter(100000, 100),
    Program("churn", "churn 7 100 &", r"churn: round (\d+) ok", 1, "churn: round %d ok"),
    Program("spawner", "spawner 100 &", r"spawner: round (\d+) ok", 1,
            "spawner: round %d ok"),
    Program("memtest", "memtest 16 0 &", r"memtest: pass (\d+) ok", 1,
            "memtest: pass %d ok"),
]
PROGRESS = 2      # lines each program prints after a power-on


def text(console):
    """Console bytes as the test harness reads them."""
    return console.decode("latin-1").replace("\r\n", "\n")




def progress(m, start, programs=WORKLOAD):
    """Wait until each of `programs` printed PROGRESS lines after start, or
    the kernel stopped: None, or the line that says why it stopped."""
    for p in programs:
        at = start
        for _ in range(PROGRESS):
            found = m.expect(r"^(?:%s)*%s\n|%s" % (PROMPT, p.regex.pattern, STOPPED),
                             timeout=TIMEOUT, start=at)
            if re.match(STOPPED, found.group(0)):
                return found.group(0).strip()
            at = found.end()
    return None


def traced_workload(machines, image, trace, start_it, kernel=None, append=None,
                    device=()):
    """Resume the heap with the tracer and let the workload run (started
    now if start_it, else resumed): every program prints PROGRESS lines;
    then power off. device: the launcher's arguments for the NVM (e.g.
    --pmem virtio)."""
    extra = ["--trace-nvm", str(trace)] + (["--kernel", kernel] if kernel else []) + \
        list(device)
    m = machines(image=image, size="32M", extra=extra, accel_name="tcg", append=append)
    start = m.expect(r"ferrite: resumed at epoch .*\n", timeout=TIMEOUT).end()
    if start_it:
        start = m.expect(PROMPT, timeout=TIMEOUT, start=start).end()
        m.send(" ".join(p.command for p in WORKLOAD) + "\n")
    stopped = progress(m, start)
    assert not stopped, stopped
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0


def started(consoles):
    """The programs of WORKLOAD that printed a line on these consoles."""
    lines = [program_text(line) for out in consoles for line in out.split("\n")]
    return [p for p in WORKLOAD if any(p.number(line) for line in lines)]


def lines_continue(*seen):
    """power_on for crash_campaign: after the consoles `seen` (what a person
    saw of the power-ons before), each program goes on from where they
    left it (powercut.py's LineChecker: no number lost, none repeated but
    the line in flight, no failure line). A program that had printed
    nothing by then may not have been started yet: it is not waited for,
    but its lines, if any, are checked."""
    def check(point, m):
        before = [text(c) for c in seen] + [text(point.console)]
        stopped = progress(m, m.expect(r"ferrite: resumed at epoch .*\n",
                                       timeout=TIMEOUT).end(), started(before))
        if stopped:
            return stopped
        checker = LineChecker(WORKLOAD)
        problems = [p for i, out in enumerate(before + [m.output])
                    for p in checker.feed(i + 1, out)]
        return "; ".join(problems) or None
    return check


@pytest.mark.slow(44)
@pytest.mark.parametrize("cache", ["on", "off"])
def test_crash_states_of_the_workload(machines, tmp_path, cache):
    # counter, churn, spawner and memtest, started in a traced power-on of a
    # heap (made untraced, so that every crash state has one): at ordering
    # points of commits, of six page-logging write faults (without the
    # DRAM cache: cache=0) and at random ones, the images check clean;
    # those powered on resume, and every program carries on from what had
    # been printed by then. Then the state just before a commit (every
    # program running) is powered on traced: at every ordering point of
    # its rollback the same holds.
    append = "cache=0" if cache == "off" else None
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image, append=append)
    traced_workload(machines, image, trace, start_it=True, append=append)
    points = nvmtrace.ordering_points(trace)
    commits = nvmtrace.window_runs(points, "commit")
    page_logs = nvmtrace.window_runs(points, "page log")
    assert len(commits) >= 4
    # With the cache, user pages are written back inside commits and
    # never logged by a fault.
    assert len(page_logs) >= 20 if cache == "off" else not page_logs
    rng = random.Random(17)
    if LONG:
        chosen = set(rng.sample(range(len(points)), min(len(points), 1500)))
        runs = commits + page_logs
    else:
        chosen = set(rng.sample(range(len(points)), 20))
        runs = commits[len(commits) // 2:][:1 if page_logs else 2] + \
            page_logs[len(page_logs) // 2:][:6]
    for run_ in runs:
        chosen |= sampled(run_, rng, head=4, tail=6, middle=8)
    checked, problems, powered = crash_campaign(
        machines, tmp_path, trace, chosen, spread(chosen, 250 if LONG else 5), seed=17,
        regions=[log_region(image)], power_on=lines_continue(), append=append)
    assert_clean(checked, problems)

    # A state at the end of an epoch (its work done, the commit not
    # begun): power it on, traced, and cut it anywhere in its rollback.
    dirty = next(p for p in nvmtrace.crash_points(trace, {c.start - 1 for c in commits})
                 if started([text(p.console)]) == WORKLOAD)
    dirty.write(image, {line: len(h) for line, h in dirty.history.items()})
    second = tmp_path / "rollback.trace"
    traced_workload(machines, image, second, start_it=False, append=append)
    undone = re.search(rb"rolled back (\d+) records", nvmtrace.console(second))
    assert undone and int(undone.group(1)) > 0, nvmtrace.console(second)
    rollback = nvmtrace.window_runs(nvmtrace.ordering_points(second), "rollback")
    # Two ordering points: the restored bytes' fence, the epoch store's.
    assert len(rollback) == 1 and len(rollback[0]) >= 2
    checked, problems, powered = crash_campaign(
        machines, tmp_path, second, set(rollback[0]), spread(rollback[0], 2), seed=18,
        regions=[log_region(image)], power_on=lines_continue(dirty.console), append=append)
    assert_clean(checked, problems)


# kv puts and a delete, served by a kvd already running; the keys after
# each command.
KV_SESSION = [("kv put key%02d value %d" % (i, i), r"") for i in range(6)] + [
    ("kv del key02", r""), ("kv put key06 value 6", r"")]
KV_KEYS = [{"key%02d" % i for i in range(n + 1)} for n in range(6)] + [
    {"key00", "key01", "key03", "key04", "key05"},
    {"key00", "key01", "key03", "key04", "key05", "key06"}]


# The kernel's own lines that may come at any moment after a power-on, in
# the middle of a program's output: the background check of the clock
# rates the heap remembers (kernel/core/time.c), which a loaded host can
# fail ("the remembered TSC rate ... is wrong; calibrating again", then the
# new rates). One landed between `kv ls` and its keys once.
KERNEL_TIMER_LINE = re.compile(r"(?:warning: )?timer: .*")
KERNEL_TIMER_TEXT = re.compile(rb"(?:warning: )?timer: [^\n]*\n")   # in the console's bytes


def kv_keys_reported(listed):
    """power_on for crash_campaign: kvd holds every key whose put was
    reported done (and no key whose delete was), by `kv ls` (which prints
    nothing but keys; a kernel timer line may come between them); each
    listing is added to `listed`."""
    def check(point, m):
        start = m.expect(r"ferrite: resumed at epoch .*\n", timeout=TIMEOUT).end()
        # osh may be back at a half-typed line (what was typed before the
        # cut and read in a committed epoch): Ctrl-U erases it.
        m.send("\x15kv ls\n")
        lines = m.expect(r"kv ls\n((?:.*\n)*?)%s" % PROMPT, timeout=TIMEOUT,
                         start=start).group(1).splitlines()
        keys = {line for line in lines if re.fullmatch(r"key\d\d", line)}
        other = [line for line in lines if line not in keys
                 and not KERNEL_TIMER_LINE.fullmatch(line)]
        if other:
            return "kv ls printed %r" % other
        listed.append(keys)
        return at_least_reported(point.console, KV_KEYS, keys, "kvd lists")
    return check


@pytest.mark.slow(18)
def test_crash_states_of_kv(machines, tmp_path):
    # kvd started on a heap, then kv puts and a delete traced: at every
    # ordering point of the commits and at random ones the images check
    # clean, and those powered on list every key reported stored.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image)
    m = machines(image=image, size="32M", accel_name="tcg")
    start = m.expect(PROMPT, timeout=TIMEOUT).end()
    m.send("kvd &\n")
    m.expect(r"kvd: serving svc/kv\n", timeout=TIMEOUT, start=start)
    command(m, "sync", timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    traced_session(machines, image, trace, KV_SESSION)
    rng = random.Random(21)
    total = len(nvmtrace.ordering_points(trace))
    chosen = set(range(total)) if LONG else set(rng.sample(range(total), 20))
    chosen |= commit_points(trace, seed=21)
    listed = []
    checked, problems, powered = crash_campaign(
        machines, tmp_path, trace, chosen, spread(chosen, 100 if LONG else 6), seed=21,
        regions=[log_region(image)], power_on=kv_keys_reported(listed))
    assert_clean(checked, problems)
    assert max(len(keys) for keys in listed) >= 3, listed


def test_a_kernel_that_leaves_an_undo_record_unflushed_is_caught(machines, tmp_path):
    # The mutant (make mutants: FERRITE_MUTANT_UNFLUSHED_UNDO) leaves the
    # first undo record of each transaction unflushed (a later record's
    # write-back of the same line may still take it along). Under QEMU's
    # own power cuts it would pass -- every
    # store reaches the file -- but in the states where a transaction's
    # in-place writes reached the NVM and its log did not (every 8th point
    # with both unflushed: about 80), its heap is broken, and objtool says
    # so. (The unmutated kernel's same states check clean: test above.)
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image)
    traced_session(machines, image, trace, SESSION, kernel=mutant("unflushed-undo"))
    region = log_region(image)
    _, start, end = region

    seen = []

    def mid_transaction(index, dirty, _):
        """every 8th point with log lines and other lines both unflushed"""
        dirty = list(dirty)
        if (any(start <= line < end for line in dirty) and
                any(not start <= line < end for line in dirty)):
            seen.append(index)
            return len(seen) % 8 == 0
        return False

    caught, looked = [], 0
    image_file = nvmtrace.ImageFile(tmp_path / "crash.nvm")
    for point in nvmtrace.crash_points(trace, mid_transaction):
        kept = dict(point.variants(random.Random(0), 0, [region]))["log-lost"]
        image_file.write(point, kept)
        status, text = objtool_check(tmp_path / "crash.nvm")
        looked += 1
        if status != 0:
            caught.append("ordering point %d: %s" % (point.index, text))
    print("unflushed undo records: %d of %d log-lost states broken (of %d mid-transaction)"
          % (len(caught), looked, len(seen)))
    assert looked >= 50 and caught


def session_campaign(machines, tmp_path, kernel, seed, singles=2):
    """The session traced on `kernel` from a heap, and its crash states at
    every ordering point of its commits, up to the first caught: the
    problem the names check finds or the image objtool refuses."""
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image)
    traced_session(machines, image, trace, SESSION, kernel=kernel)
    checked, problems, _ = crash_campaign(
        machines, tmp_path, trace, commit_points(trace, seed=seed), set(), seed=seed,
        regions=[log_region(image)], check=reported_names, singles=singles,
        until_caught=True)
    return problems + ["%s: %s" % (where, text) for status, text, where in checked
                       if status != 0]


def test_a_kernel_that_sends_output_before_its_commit_is_caught(machines, tmp_path):
    # The mutant sends an epoch's console output before the commit that
    # makes its work durable: a cut in between, and the prompt after a
    # command has gone out while its names are lost -- and the console
    # object's own cursor says more was sent than was ever written.
    problems = session_campaign(machines, tmp_path, mutant("early-console"), seed=19)
    print("early console: %d problems, first: %s" % (len(problems), problems[:1]))
    assert problems


def test_a_kernel_that_commits_without_a_fence_is_caught(machines, tmp_path):
    # The mutant stores the epoch without waiting for the write-backs of
    # what the transaction changed: the epoch may reach the NVM before
    # them, and a single line of theirs lost leaves a committed heap
    # broken.
    problems = session_campaign(machines, tmp_path, mutant("unfenced-commit"), seed=19,
                                singles=12)
    print("unfenced commit: %d problems, first: %s" % (len(problems), problems[:1]))
    assert problems


def test_a_kernel_that_leaves_user_pages_unflushed_is_caught(machines, tmp_path):
    # The mutant's commit writes back no whole page it logged: the user
    # pages the epoch wrote (and whole kernel pages) stay in the cache
    # after their epoch is committed. Lose them at a cut some time later
    # and the programs go back to older numbers than they had printed, or
    # the kernel finds its heap damaged and stops.
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    make_heap(machines, image)
    traced_workload(machines, image, trace, start_it=True,
                    kernel=mutant("unflushed-pages"))
    points = nvmtrace.ordering_points(trace)
    commits = nvmtrace.window_runs(points, "commit")
    assert len(commits) >= 4
    # the point right after each of the last commits
    chosen = {run_.stop + 1 for run_ in commits[-3:] if run_.stop + 1 < len(points)}
    _, problems, powered = crash_campaign(
        machines, tmp_path, trace, chosen, chosen, seed=20,
        power_on=lines_continue(), boot_variant="lost")
    print("unflushed pages: %d problems, first: %s" % (len(problems), problems[:1]))
    assert powered and problems
