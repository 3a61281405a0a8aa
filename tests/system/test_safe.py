"""test_safe.py -- the safe power-on (`--append safe`), through osh.

A state that misbehaves at every power-on is made on purpose -- `fillheap`
keeps the heap full, `forkbomb` keeps the process table full -- with a
`counter` beside it; the power is cut, and the image powered on with
`safe`: every saved process must be held (shown held by `ps`, printing
nothing), a rescue shell must come up all the same (on the heap reserve,
in the process table's kept slot), `kill` must end the culprit, and
`resume` must let the rest run on -- the counter from the number after its
last -- with the saved shell back on the console. Around it: `resume`
outside a safe power-on, `safe` on a blank image, a power cut during a
safe power-on, a saved state without a shell, and Ctrl-C in the rescue
shell, which must not end the saved shell's foreground program. The
lighter tests run the log checker, so each commit also proves the safe
power-on's own writes (the reserve, the rescue shell's mark) were logged.
"""

import os
import re
import subprocess

import ferrite
from ferrite import PROMPT, ROOT
from test_checkpoint import RESUMED_TEXT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
STEP_TIMEOUT = 120      # a bound for TCG on a loaded machine, never a criterion
BANNER = (r"ferrite: safe power-on: %d saved process(?:es)? held; `ps` lists them, "
          r"`kill PID` ends one, `resume` lets them run\n")
NUMBER = re.compile(r"^(?:%s)?(\d+)$" % PROMPT, re.M)    # a line may follow a prompt


def power_on(machines, image, append=None):
    """A power-on of the image (made on first use), at its osh prompt."""
    m = machines(image=image, size="32M", append=append)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m


def run(m, line, pattern=""):
    """Type a command line; the match of `pattern`, once the prompt followed it."""
    return ferrite.run(m, line, pattern, timeout=STEP_TIMEOUT)


def background(m, line):
    """Start `line &`; its pid."""
    return int(run(m, line + " &", r"\[(\d+)\] started\n").group(1))


def ps(m):
    """osh's ps: {pid: (parent, state, name)}."""
    start = len(m.output)
    m.send("ps\n")
    m.expect(r"PID PARENT STATE +CPU_MS +PAGES +NAME\n(?:.*\n)*?" + PROMPT,
             timeout=STEP_TIMEOUT, start=start)
    rows = re.findall(r"^ *(\d+) +(\d+) +(\S+) +\d+ +\d+  (\S+)$", m.output[start:], re.M)
    return {int(pid): (int(parent), state, name) for pid, parent, state, name in rows}


def counter_numbers(text):
    """The counter's numbers in console text, in order."""
    return [int(n) for n in NUMBER.findall(text)]


def number_line(n):
    """A pattern for the counter's line `n`."""
    return r"^(?:%s)?%d\n" % (PROMPT, n)


def cut_while_counting(m):
    """Wait until the counter printed one more number, then cut the power;
    the last number it printed."""
    m.expect(number_line(max(counter_numbers(m.output), default=0) + 1),
             timeout=STEP_TIMEOUT)
    m.power_cut()
    return max(counter_numbers(m.output))


def resume_with_saved_shell(m, held):
    """`resume` in the rescue shell: `held` processes run on, the rescue
    shell ends and osh, pid 1, has the console; the offset after the line."""
    start = len(m.output)
    m.send("resume\n")
    return m.expect(r"ferrite: resume: %d held processes run on; the rescue shell ends, "
                    r"the saved shell \(pid 1\) has the console\n" % held,
                    timeout=STEP_TIMEOUT, start=start).end()


def counts_on(m, start, last):
    """The counter goes on after `last` from `start` in the output: the next
    two numbers follow it (at most the line in flight at the cut repeats)."""
    m.expect(number_line(last + 2), timeout=STEP_TIMEOUT, start=start)
    after = counter_numbers(m.output[start:])
    assert after[0] in (last, last + 1), after
    assert after == list(range(after[0], after[0] + len(after))), after


def check_clean(m, image):
    """osh's poweroff; then objtool finds the image consistent."""
    start = len(m.output)
    m.send("poweroff\n")
    m.expect(r"ferrite: powering off\n", timeout=STEP_TIMEOUT, start=start)
    m.wait_exit(timeout=STEP_TIMEOUT)
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def escape(machines, image, culprits, counter, last):
    """The safe power-on after the cut: everything held, the culprits killed
    from the rescue shell, the rest resumed; the machine, at osh's prompt."""
    m = machines(image=image, size="32M", append="safe")
    m.expect(BANNER % (len(culprits) + 2), timeout=STEP_TIMEOUT)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    # Numbers committed before the cut but not yet sent went out before the
    # rescue shell's prompt. Held, the counter prints none from here on, so
    # after resume it goes on from the last (counts_on): had it run, its
    # next number would be further on. (Matching numbers here would not do:
    # a kernel line, printed at once, may split the echo of a typed line.)
    last = max([last] + counter_numbers(m.output))
    procs = ps(m)
    rescue = max(procs)
    assert procs[rescue] == (0, "runnable", "osh"), procs
    assert procs[1] == (0, procs[1][1], "osh") and procs[1][1].startswith("held,"), procs
    assert procs[counter][1].startswith("held,") and procs[counter][2] == "counter", procs
    assert all(procs[c][1].startswith("held,") for c in culprits), procs
    assert len(procs) == len(culprits) + 3, procs
    for i in range(0, len(culprits), 60):         # osh takes 64 words a line
        run(m, "kill " + " ".join(map(str, culprits[i:i + 60])))
    assert sorted(ps(m)) == [1, counter, rescue]
    counts_on(m, resume_with_saved_shell(m, 2), last)
    # osh, pid 1, has the console again, and reports its job killed from the
    # rescue shell.
    procs = ps(m)
    assert sorted(procs) == [1, counter], procs
    assert not any(state.startswith("held") for _, state, _ in procs.values()), procs
    return m, rescue


def test_safe_power_on_escapes_a_full_heap(machines, image):
    m = power_on(machines, image)
    counter = background(m, "counter 1 50")
    fillheap = background(m, "fillheap")
    m.expect(r"fillheap: the heap is full, \d+ pages taken; taking every page freed\n",
             timeout=STEP_TIMEOUT)
    last = cut_while_counting(m)

    m = machines(image=image, size="32M", append="safe")
    m.expect(BANNER % 3, timeout=STEP_TIMEOUT)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    # The heap is full but for the reserve (256 KiB) the rescue shell runs
    # on, and the catalogue commands work.
    run(m, "mem", r"heap 32 MiB: .* used, [\d.]+ (KiB|B) free")
    run(m, "write notes/rescue mended in the rescue shell")
    run(m, "cat notes/rescue", r"mended in the rescue shell\n")
    last = max([last] + counter_numbers(m.output))
    m.power_cut()

    # Again, after a cut: the first rescue shell is dismissed, a new one
    # comes up.
    m, rescue = escape(machines, image, [fillheap], counter, last)
    assert re.search(r"\[%d\] killed: killed by pid %d\n" % (fillheap, rescue), m.output)
    run(m, "mem", r"heap 32 MiB: [\d.]+ MiB used, [\d.]+ MiB free")
    run(m, "cat notes/rescue", r"mended in the rescue shell\n")
    check_clean(m, image)


def test_safe_power_on_escapes_a_fork_bomb(machines, image):
    m = power_on(machines, image)
    counter = background(m, "counter 1 50")
    background(m, "forkbomb")
    m.expect(r"forkbomb: spawn refused \(ERR_NOSPC\); spawning on\n", timeout=STEP_TIMEOUT)
    last = cut_while_counting(m)

    m = machines(image=image, size="32M", append="safe")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    procs = ps(m)
    bombs = sorted(pid for pid, (_, _, name) in procs.items() if name == "forkbomb")
    # SYS_SPAWN left one slot of 192: the rescue shell has it.
    assert len(procs) == 192 and len(bombs) == 189, procs
    last = max([last] + counter_numbers(m.output))
    m.power_cut()

    m, _ = escape(machines, image, bombs, counter, last)
    check_clean(m, image)


def test_resume_outside_a_safe_power_on_is_an_error(machines, image):
    # A blank image: nothing to hold, and osh starts as at any genesis.
    m = power_on(machines, image, append="safe logcheck")
    assert "ferrite: safe power-on: no saved process to hold\n" in m.output
    run(m, "resume", r"resume: not in a safe power-on\n")
    run(m, "echo $?", r"^1\n")
    assert ps(m) == {1: (0, "runnable", "osh")}
    m.power_cut()
    m = machines(image=image, size="32M", append="logcheck")
    m.expect(RESUMED_TEXT, timeout=STEP_TIMEOUT)
    run(m, "resume", r"resume: not in a safe power-on\n")
    run(m, "echo $?", r"^1\n")


def counter_held_by_a_safe_power_on(machines, image):
    """A counter cut while it counts, then a safe power-on holding it:
    (the machine, the counter's pid, the rescue shell's, the last number
    the counter printed)."""
    m = power_on(machines, image, append="logcheck")
    counter = background(m, "counter 1 50")
    last = cut_while_counting(m)

    m = machines(image=image, size="32M", append="safe logcheck")
    m.expect(BANNER % 2, timeout=STEP_TIMEOUT)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m, counter, max(ps(m)), max([last] + counter_numbers(m.output))


def test_a_power_cut_during_a_safe_power_on_resumes_everything(machines, image):
    m, counter, rescue, last = counter_held_by_a_safe_power_on(machines, image)
    m.power_cut()

    # A normal power-on: the rescue shell ends, osh has the console, and
    # the counter runs on from where it was.
    m = machines(image=image, size="32M", append="logcheck")
    m.expect(r"ferrite: the rescue shell of an earlier safe power-on \(pid %d\) ends: "
             r"the saved shell \(pid 1\) has the console\n" % rescue, timeout=STEP_TIMEOUT)
    start = m.expect(RESUMED_TEXT, timeout=STEP_TIMEOUT).end()
    counts_on(m, start, last)
    assert sorted(ps(m)) == [1, counter]


def test_resume_without_a_saved_shell_keeps_the_rescue_shell(machines, image):
    m, counter, rescue, last = counter_held_by_a_safe_power_on(machines, image)
    run(m, "kill 1")                 # the saved shell, held, ends
    start = len(m.output)
    m.send("resume\n")
    m.expect(r"ferrite: resume: 1 held process run on; no other shell was saved, so the "
             r"rescue shell \(pid %d\) stays\n" % rescue, timeout=STEP_TIMEOUT, start=start)
    counts_on(m, start, last)
    procs = ps(m)
    assert procs == {counter: (0, procs[counter][1], "counter"),
                     rescue: (0, "runnable", "osh")}, procs
    m.power_cut()

    # It is the console's shell now, at a normal power-on too.
    m = machines(image=image, size="32M", append="logcheck")
    m.expect(RESUMED_TEXT, timeout=STEP_TIMEOUT)
    assert "rescue shell" not in m.output
    assert sorted(ps(m)) == [counter, rescue]


def test_ctrl_c_in_the_rescue_shell_spares_the_saved_foreground(machines, image):
    m = power_on(machines, image, append="logcheck")
    m.send("counter 1 50\n")         # osh's foreground program: osh runs on to
    m.expect(number_line(2), timeout=STEP_TIMEOUT)   # make it so while it sleeps
    last = cut_while_counting(m)
    counter = 2                      # the first process osh started

    m = machines(image=image, size="32M", append="safe logcheck")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    last = max([last] + counter_numbers(m.output))
    start = len(m.output)
    m.send("half typed\x03")         # the rescue shell abandons its line
    m.expect(r"\^C\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    run(m, "hello", r"hello from hello, pid \d+\n")   # a foreground of its own
    assert ps(m)[counter][1].startswith("held,")
    counts_on(m, resume_with_saved_shell(m, 2), last)

    # The saved foreground is osh's counter again: Ctrl-C ends it.
    start = len(m.output)
    m.send("\x03")
    m.expect(r"\^C\n\[%d\] killed: interrupted \(Ctrl-C\)\n" % counter,
             timeout=STEP_TIMEOUT, start=start)


def test_the_shell_survives_a_full_heap(machines, image):
    """The console's shell keeps the memory it needs from its start: with
    the heap full, a command that needs a new object fails with a message,
    and the shell goes on."""
    m = power_on(machines, image)
    background(m, "fillheap")
    m.expect(r"fillheap: the heap is full, \d+ pages taken; taking every page freed\n",
             timeout=STEP_TIMEOUT)
    run(m, "write after-full hello", r"write: 'after-full': out of memory\n")
    run(m, "history", r"\d+  fillheap &\n +\d+  write after-full hello\n +\d+  history\n")
    run(m, "mem", r"heap 32 MiB: [\d.]+ MiB used, 0 B free")
    run(m, "write again hello", r"write: 'again': out of memory\n")
    run(m, "echo still here", r"still here\n")
    assert "killed" not in m.output


NO_SHELL = (r"ferrite: the console has no shell: power on with `safe` on the command line "
            r"\(every process held, and a rescue shell on a reserve of the heap\), or with "
            r"`import` if bin/osh is gone\n")


def test_the_console_always_gets_a_shell_back(machines, image):
    """Whenever the last shell on the console ends -- exit, killed, at a
    power-on that finds none -- the kernel starts a fresh osh and says
    why, as init does for a getty; the other processes run on."""
    m = power_on(machines, image)
    counter = background(m, "counter 1 5000")
    start = len(m.output)
    m.send("exit 3\n")
    m.expect(r"ferrite: the console's shell \(pid 1\) ended: exited with status 3; "
             r"starting a new osh\n", timeout=STEP_TIMEOUT, start=start)
    m.expect(r"osh: the object shell", timeout=STEP_TIMEOUT, start=start)
    m.expect(PROMPT, timeout=STEP_TIMEOUT, start=start)
    procs = ps(m)
    assert procs[counter][2] == "counter" and not procs[counter][1].startswith("held"), procs
    shell = [pid for pid, (_, _, name) in procs.items() if name == "osh"]
    assert len(shell) == 1 and shell[0] > counter, procs
    # killed: osh ends itself
    start = len(m.output)
    m.send("kill %d\n" % shell[0])
    m.expect(r"ferrite: the console's shell \(pid %d\) ended: killed by pid %d; "
             r"starting a new osh\n" % (shell[0], shell[0]), timeout=STEP_TIMEOUT, start=start)
    m.expect(PROMPT, timeout=STEP_TIMEOUT, start=start)
    run(m, "echo here", r"here\n")
    check_clean(m, image)


def test_with_no_shell_to_start_the_console_says_how_to_get_one(machines, image):
    """No bin/osh and no shell: the console says so and how to get one
    back; a power-on that finds no shell among the saved processes tries
    again and says why; a power-on with `import` brings bin/osh back from
    the boot modules, and the console has a shell again."""
    m = power_on(machines, image)
    counter = background(m, "counter 1 100000")
    run(m, "rm bin/osh")
    start = len(m.output)
    m.send("exit\n")
    m.expect(r"ferrite: the console's shell \(pid 1\) ended: exited with status 0; "
             r"starting a new osh\n", timeout=STEP_TIMEOUT, start=start)
    m.expect(NO_SHELL, timeout=STEP_TIMEOUT, start=start)
    m.power_cut()

    m = machines(image=image, size="32M")
    m.expect(r"ferrite: no shell holds the console \(1 processes run\); starting osh\n"
             r"(.*\n)*?" + NO_SHELL, timeout=STEP_TIMEOUT)
    m.power_cut()

    m = machines(image=image, size="32M", append="import")
    m.expect(r"ferrite: no shell holds the console \(1 processes run\); starting osh\n",
             timeout=STEP_TIMEOUT)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    procs = ps(m)
    assert procs[counter][2] == "counter", procs
    check_clean(m, image)
