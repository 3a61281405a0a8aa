"""test_services.py -- programs for life inside Ferrite, through osh: the
key-value service kvd and its client kv (also across power cuts), the line
editor edit, and life (whose generations continue after a cut). The kv
tests run with the log checker, so every commit proves the kernel's channel
code logged what it wrote; edit and life, which bring no new kernel paths,
run without it (it makes each commit slow)."""

import random
import re
import time

import pytest

import ferrite

from test_checkpoint import RESUMED_TEXT

STEP_TIMEOUT = 120
PROMPT = r"osh> "


# Every commit proves the kernel logged all it wrote (docs/logcheck.md).
APPEND = "logcheck panic=exit"


def boot(machines, image, logcheck=True):
    """A fresh machine at its first osh prompt (with the log checker unless
    told not to: it makes each commit slow)."""
    m = machines(image=image, size="32M", append=APPEND if logcheck else None)
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m


def power_on_again(machines, image, logcheck=True):
    """The image powered on again, once the kernel said it resumed."""
    m = machines(image=image, size="32M", append=APPEND if logcheck else None)
    m.expect(RESUMED_TEXT, timeout=STEP_TIMEOUT)
    assert "heap: genesis" not in m.output
    return m


def run(m, line, reply=""):
    """Type a command line; the match of `reply` followed by the next prompt."""
    start = len(m.output)
    m.send(line + "\n")
    return m.expect(reply + PROMPT, timeout=STEP_TIMEOUT, start=start)


def background(m, line):
    """Start `line &`; its pid. (What the program prints may come before
    osh's next prompt.)"""
    return ferrite.run(m, line + " &", r"\[(\d+)\] started\n",
                       timeout=STEP_TIMEOUT).group(1)


def start_kvd(m):
    """kvd in the background, serving; its pid."""
    pid = background(m, "kvd")
    run(m, "kv ls")   # answered: kvd has bound svc/kv
    return pid


def wait_jobs_done(m, pids, start):
    """Press Enter until osh has reported every job in pids done, status 0."""
    deadline = time.monotonic() + STEP_TIMEOUT * ferrite.time_scale()
    while not all(re.search(r"\[%s\] done, status 0\n" % p, m.output[start:])
                  for p in pids):
        if time.monotonic() > deadline:
            raise AssertionError("jobs %s did not end well:\n%s" % (pids, m.output))
        time.sleep(0.1)
        run(m, "")


def wait_blocked(m, pids):
    """Wait until ps shows every pid in pids blocked."""
    deadline = time.monotonic() + STEP_TIMEOUT * ferrite.time_scale()
    while time.monotonic() < deadline:
        start = len(m.output)
        run(m, "ps")
        table = m.output[start:]
        if all(re.search(r"^\s*%s\s+\d+\s+blocked\s" % p, table, re.M)
               for p in pids):
            return
        time.sleep(0.1)
    raise AssertionError("processes %s never blocked:\n%s" % (pids, m.output))


# --- kvd and kv ---------------------------------------------------------------

def test_kv_put_get_del_ls(machines, image):
    m = boot(machines, image)
    start_kvd(m)
    run(m, "kv put colour deep blue")
    run(m, "kv put answer 42")
    run(m, "kv put apple 1")
    run(m, "kv get colour", r"deep blue\n")
    run(m, "kv put answer forty-two")            # a put replaces
    run(m, "kv get answer", r"\nforty-two\n")
    run(m, "kv ls", r"\nanswer\napple\ncolour\n")
    run(m, "kv del apple")
    run(m, "kv ls", r"\nanswer\ncolour\n")
    run(m, "ls -l svc/", r"channel .* svc/kv\n")


def test_kv_ls_pages_through_many_keys(machines, image):
    # Long keys, more than one reply holds: ls pages through them in order.
    # One command at a time: the console keeps only 4 KiB of typed input.
    m = boot(machines, image, logcheck=False)
    start_kvd(m)
    run(m, "kv put answer 42")
    run(m, "kv put colour blue")
    long_keys = ["k%02d" % i + "x" * 220 for i in reversed(range(20))]
    for i, key in enumerate(long_keys):
        run(m, "kv put %s %d" % (key, i))
    run(m, "kv get %s" % long_keys[0], r"\n0\n")
    start = len(m.output)
    run(m, "kv ls")
    keys = re.findall(r"^(k\d\dx+|answer|colour)$", m.output[start:], re.M)
    assert keys == ["answer", "colour"] + sorted(long_keys)


def test_kv_errors(machines, image):
    m = boot(machines, image)
    run(m, "kv get x", r"kv: no service at svc/kv \(is kvd running\?\)\n")
    run(m, "kv", r"usage: kv put KEY VALUE\.\.\. \| kv get KEY .*\n")
    run(m, "kv get", r"usage: kv .*\n")
    kvd = start_kvd(m)
    run(m, "kvd", r"kvd: already running: svc/kv is served\n")
    run(m, "kv get nothing", r"kv: no key 'nothing'\n")
    run(m, "kv del nothing", r"kv: no key 'nothing'\n")
    run(m, "kv put '' v", r"kv: a key cannot be empty\n")
    run(m, "kv put %s v" % ("k" * 256), r"kv: a key is at most 255 bytes\n")
    run(m, "kv put k %s" % ("v" * 3585), r"kv: a value is at most 3584 bytes\n")
    run(m, "kv put k%s %s" % ("k" * 254, "v" * 3584))   # both at their limits
    run(m, "kv get k%s" % ("k" * 254), r"\nv{3584}\n")
    run(m, "kv resume", r"kv: kvd is not paused\n")
    run(m, "status", r"done, status 1\n")
    # kvd killed with a request queued: clients say so; a new kvd replaces
    # the stale name, which deletes the old channel and the request in it,
    # and the waiting client learns that no answer will come.
    run(m, "kv pause", r"kv: kvd paused; .*\n")
    waiting = background(m, "kv get x")
    wait_blocked(m, [waiting])
    run(m, "kill %s" % kvd, r"\[%s\] killed.*\n" % kvd)
    run(m, "kv get x", r"kv: no service at svc/kv \(is kvd running\?\)\n")
    start = len(m.output)
    start_kvd(m)
    m.expect(r"kv: kvd ended before answering\n", timeout=STEP_TIMEOUT, start=start)
    run(m, "kv put x 1")
    run(m, "kv get x", r"\n1\n")
    m.expect(r"\[%s\] done, status 1\n" % waiting, timeout=STEP_TIMEOUT, start=start)


def test_kv_request_answered_after_a_power_cut(machines, image):
    # kvd is paused, so both requests are still queued (the get's client
    # blocked in its receive) when the power goes.
    m = boot(machines, image)
    start_kvd(m)
    run(m, "kv put a 1")
    run(m, "kv pause", r"kv: kvd paused; 'kv resume' lets it serve again\n")
    put = background(m, "kv put b 2")
    get = background(m, "kv get a")
    wait_blocked(m, [put, get])
    run(m, "sync", r"sync: epoch \d+ committed\n")
    m.power_cut()

    m = power_on_again(machines, image)
    run(m, "")
    start = len(m.output)
    run(m, "kv resume", r"kv: kvd resumed\n")
    m.expect(r"^(?:osh> )?1\n", timeout=STEP_TIMEOUT, start=start)   # the get's answer
    wait_jobs_done(m, [put, get], start)
    run(m, "kv get b", r"\n2\n")


def test_kv_put_cut_at_a_random_moment(machines, image):
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    m = boot(machines, image)
    start_kvd(m)
    start = len(m.output)
    m.send("kv put key value-%d\n" % seed)
    m.expect(r"kv put key value-%d\n" % seed, timeout=STEP_TIMEOUT, start=start)
    time.sleep(rng.uniform(0, 0.3))     # the line is read: cut anywhere after
    m.power_cut()

    m = power_on_again(machines, image)
    run(m, "")
    run(m, "kv get key", r"\nvalue-%d\n" % seed)


# --- edit -----------------------------------------------------------------------

EDIT_PROMPT = r"edit> "


def edit(m, line, reply=""):
    """Type a line into edit; the match of `reply` followed by edit's prompt."""
    start = len(m.output)
    m.send(line + "\n")
    return m.expect(reply + EDIT_PROMPT, timeout=STEP_TIMEOUT, start=start)


def type_lines(m, lines):
    """Type text lines (after a, i or c) and the closing '.'."""
    for line in lines:
        start = len(m.output)
        m.send(line + "\n")
        m.expect(re.escape(line) + r"\n", timeout=STEP_TIMEOUT, start=start)
    edit(m, ".")


def test_edit_writes_a_note(machines, image):
    m = boot(machines, image, logcheck=False)
    start = len(m.output)
    m.send("edit note\n")
    m.expect(r"edit: 'note' is new; w writes it\n" + EDIT_PROMPT,
             timeout=STEP_TIMEOUT, start=start)
    m.send("a\n")
    type_lines(m, ["first line", "second line", "third line"])
    edit(m, "p", r"   1  first line\n   2  second line\n   3  third line\n")
    m.send("2c\n")
    type_lines(m, ["the second line, changed"])
    edit(m, "1d")
    m.send("0a\n")
    type_lines(m, ["a new top"])
    edit(m, "$", r"   3  third line\n")
    edit(m, "5p", r"edit: no line 5: the text has 3 lines\n")
    edit(m, "d", r"edit: d needs line numbers, e.g. 2d or 2,4d\n")
    edit(m, "x", r"edit: 'x' is not a command; h lists them\n")
    edit(m, "q", r"edit: unsaved changes: w writes them, Q quits without\n")
    edit(m, "w", r"edit: wrote 3 lines, 46 bytes to 'note'\n")
    run(m, "q")
    run(m, "cat note", r"a new top\nthe second line, changed\nthird line\n")

    start = len(m.output)
    m.send("edit note\n")
    m.expect(r"edit: 'note': 3 lines, 46 bytes\n" + EDIT_PROMPT,
             timeout=STEP_TIMEOUT, start=start)
    m.send("i\n")
    type_lines(m, ["zero"])
    edit(m, "2,3d")
    edit(m, "w")
    run(m, "q")
    run(m, "cat note", r"zero\nthird line\n")
    run(m, "edit bin/hello", r"edit: 'bin/hello' is not a text \(blob\) object\n")
    run(m, "edit", r"usage: edit NAME\n")


def test_edit_ends_its_input_and_itself_at_ctrl_d(machines, image):
    """Ctrl-D on an empty line is the end of input (a line read returns 0
    bytes): it ends the text typed after `a` as '.' does, and at edit's
    prompt it is `q`, which still keeps unsaved changes."""
    m = boot(machines, image, logcheck=False)
    start = len(m.output)
    m.send("edit scratch\n")
    m.expect(EDIT_PROMPT, timeout=STEP_TIMEOUT, start=start)
    m.send("a\n")
    for line in ["one", "two"]:
        start = len(m.output)
        m.send(line + "\n")
        m.expect(re.escape(line) + r"\n", timeout=STEP_TIMEOUT, start=start)
    start = len(m.output)
    m.send("\x04")
    m.expect(EDIT_PROMPT, timeout=STEP_TIMEOUT, start=start)
    edit(m, "p", r"   1  one\n   2  two\n")
    start = len(m.output)
    m.send("\x04")
    m.expect(r"q\nedit: unsaved changes: w writes them, Q quits without\n" + EDIT_PROMPT,
             timeout=STEP_TIMEOUT, start=start)
    edit(m, "w", r"edit: wrote 2 lines, 8 bytes to 'scratch'\n")
    start = len(m.output)
    m.send("\x04")
    m.expect(r"q\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    run(m, "cat scratch", r"one\ntwo\n")


def test_edit_outlives_a_power_cut(machines, image):
    m = boot(machines, image, logcheck=False)
    start = len(m.output)
    m.send("edit diary\n")
    m.expect(EDIT_PROMPT, timeout=STEP_TIMEOUT, start=start)
    m.send("a\n")
    type_lines(m, ["written before the cut"])
    m.power_cut()                       # unsaved: the editor's memory holds it

    m = power_on_again(machines, image, logcheck=False)
    edit(m, "p", r"   1  written before the cut\n")
    m.send("a\n")
    type_lines(m, ["and after it"])
    edit(m, "w", r"edit: wrote 2 lines, 36 bytes to 'diary'\n")
    run(m, "q")
    run(m, "cat diary", r"written before the cut\nand after it\n")


# --- life -----------------------------------------------------------------------

GENERATION = r"life: generation (\d+), population \d+, soup \d+ \(Ctrl-C ends\)\n"


def test_life_generations_continue_after_a_power_cut(machines, image):
    m = boot(machines, image, logcheck=False)
    run(m, "life 8", r"usage: life \[ROWS COLS \[PERIOD_MS\]\]\n")
    run(m, "life 2 16", r"life: ROWS must be from 3 to 200\n")
    run(m, "life 8 x", r"life: COLS 'x' is not a number\n")
    start = len(m.output)
    m.send("life 8 16 20\n")
    m.expect(r"life: generation 20,", timeout=STEP_TIMEOUT, start=start)
    m.power_cut()
    before = [int(g) for g in re.findall(GENERATION, m.output[start:])]
    assert before == list(range(before[0], before[-1] + 1)), before
    assert "\033[H\033[2J" in m.output[start:]

    m = power_on_again(machines, image, logcheck=False)
    resumed = m.expect(RESUMED_TEXT).end()
    m.expect(r"life: generation %d," % (before[-1] + 5), timeout=STEP_TIMEOUT,
             start=resumed)
    after = [int(g) for g in re.findall(GENERATION, m.output[resumed:])]
    # The count carries on: at most the frame in flight at the cut again.
    assert after[0] in (before[-1], before[-1] + 1), (before[-1], after)
    assert after == list(range(after[0], after[-1] + 1)), after
    m.send("\x03")
    m.expect(r"\[\d+\] killed.*\n" + PROMPT, timeout=STEP_TIMEOUT, start=resumed)
