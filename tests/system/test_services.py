"""test_services.py -- programs for life inside Ferrite, through osh: the
key-value service kvd and its client kv (also across power cuts), the line
editor edit, and life (whose generations continue after a cut)."""

import random
import re
import time

import pytest

from test_checkpoint import RESUMED_TEXT

STEP_TIMEOUT = 120
PROMPT = r"osh> "


def boot(machines, image):
    """A fresh machine at its first osh prompt."""
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m


def power_on_again(machines, image):
    """The image powered on again, once the kernel said it resumed."""
    m = machines(image=image, size="32M")
    m.expect(RESUMED_TEXT, timeout=STEP_TIMEOUT)
    assert "heap: genesis" not in m.output
    return m


def run(m, line, reply=""):
    """Type a command line; the match of `reply` followed by the next prompt."""
    start = len(m.output)
    m.send(line + "\n")
    return m.expect(reply + PROMPT, timeout=STEP_TIMEOUT, start=start)


def background(m, line):
    """Start `line &`; its pid."""
    return run(m, line + " &", r"\[(\d+)\] started\n").group(1)


def start_kvd(m):
    """kvd in the background, serving; its pid."""
    pid = background(m, "kvd")
    run(m, "kv ls")   # answered: kvd has bound svc/kv
    return pid


def wait_jobs_done(m, pids, start):
    """Press Enter until osh has reported every job in pids done, status 0."""
    deadline = time.monotonic() + STEP_TIMEOUT
    while not all(re.search(r"\[%s\] done, status 0\n" % p, m.output[start:])
                  for p in pids):
        if time.monotonic() > deadline:
            raise AssertionError("jobs %s did not end well:\n%s" % (pids, m.output))
        time.sleep(0.1)
        run(m, "")


def wait_blocked(m, pids):
    """Wait until ps shows every pid in pids blocked."""
    deadline = time.monotonic() + STEP_TIMEOUT
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
    run(m, "ls svc/", r"svc/kv\s+channel\s+\d+\n")
    # Many keys: ls pages through them in byte order.
    for i in range(40):
        m.send("kv put key%03d value-%d-%s\n" % (i, i, "x" * 100))
    run(m, "kv get key039", r"\nvalue-39-x{100}\n")
    start = len(m.output)
    run(m, "kv ls")
    keys = re.findall(r"^(key\d+|answer|colour)$", m.output[start:], re.M)
    assert keys == ["answer", "colour"] + ["key%03d" % i for i in range(40)]


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
    run(m, "kv resume", r"kv: kvd is not paused\n")
    run(m, "status", r"done, status 1\n")
    # kvd killed: clients say so; a new kvd replaces the stale name.
    run(m, "kill %s" % kvd, r"\[%s\] killed.*\n" % kvd)
    run(m, "kv get x", r"kv: no service at svc/kv \(is kvd running\?\)\n")
    start_kvd(m)
    run(m, "kv put x 1")
    run(m, "kv get x", r"\n1\n")


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
    m.expect(r"^(?:osh> )?1$", timeout=STEP_TIMEOUT, start=start)   # the get's answer
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
