"""test_checkpoint.py -- epochs, output commit and resume, through osh.

The power-cut campaign (test_powercut.py) drives a whole workload through
many cuts; these tests pin single behaviours: a half-typed line outlives a
cut, `sync` returns with its epoch committed, `epoch` reports the
checkpoint figures, and `ckpt=` sets the period.
"""

import re
import time

from ferrite import BACKGROUND_LINE

RESUMED_TEXT = r"ferrite: resumed at epoch (\d+) \(rolled back (\d+) records, (\d+) KiB\) in (\d+) us\n"
RESUMED = re.compile(RESUMED_TEXT)


def boot_osh(machines, image, append=None):
    m = machines(image=image, size="32M", append=append)
    m.expect(r"osh> ", timeout=120)
    return m


def power_on_again(machines, image):
    """Power the image on again; the Machine, once the kernel said it resumed."""
    m = machines(image=image, size="32M")
    m.expect(RESUMED_TEXT, timeout=120)
    assert "heap: genesis" not in m.output
    return m


def osh(m, line, reply):
    """Type `line` into osh; the match of `reply` followed by the next prompt."""
    start = len(m.output)
    m.send(line + "\n")
    return m.expect(reply + r"osh> ", timeout=60, start=start)


def epoch_figures(m):
    """Run `epoch` in osh; its output as a dict of the figures tested."""
    start = len(m.output)
    m.send("epoch\n")
    # A program running meanwhile may print between the lines and the prompt.
    m.expect(r"since genesis\n(?:\d+\n)*osh> ", timeout=60, start=start)
    text = m.output[start:]
    fig = {}
    g = re.search(r"epoch (\d+) committed; (\d+) commits since genesis, (\d+) since this power-on", text)
    fig["epoch"], fig["commits"], fig["power_on_commits"] = map(int, g.groups())
    g = re.search(r"pause: last ([\d.]+) us, mean ([\d.]+) us, max ([\d.]+) us", text)
    fig["pause_last"], fig["pause_mean"], fig["pause_max"] = map(float, g.groups())
    g = re.search(r"user pages to the heap: last epoch (\d+), mean (\d+) per epoch", text)
    fig["pages_last"], fig["pages_mean"] = map(int, g.groups())
    fig["periodic_off"] = "periodic checkpoints off" in text
    g = re.search(r"checkpoint every ([\d.]+) us while dirty", text)
    fig["period_us"] = float(g.group(1)) if g else None
    fig["text"] = text
    return fig


def test_half_typed_line_survives_a_power_cut(machines, image):
    m = boot_osh(machines, image)
    m.send("wri")
    m.expect(r"osh> wri", timeout=60)   # the echo was sent: its epoch committed
    time.sleep(0.2)
    m.power_cut()

    m = power_on_again(machines, image)
    osh(m, "te note half typed", "")
    osh(m, "cat note", r"half typed\n")


def test_sync_returns_with_its_epoch_committed(machines, image):
    m = boot_osh(machines, image)
    before = epoch_figures(m)["epoch"]
    osh(m, "write kept durable bytes", "")
    synced = int(osh(m, "sync", r"sync: epoch (\d+) committed\n").group(1))
    assert synced > before
    m.power_cut()                       # right after sync: nothing may be lost

    m = power_on_again(machines, image)
    assert int(RESUMED.search(m.output).group(1)) >= synced
    osh(m, "", "")
    osh(m, "cat kept", r"durable bytes\n")


def test_epoch_reports_checkpoint_figures(machines, image):
    m = boot_osh(machines, image)
    start = len(m.output)
    m.send("counter 1 5 &\n")           # a line every 5 ms: an epoch each
    pid = m.expect(r"\[(\d+)\] started", start=start).group(1)
    m.expect(BACKGROUND_LINE % 100, timeout=120, start=start)
    m.send("kill %s\n" % pid)
    m.expect(r"osh> ", timeout=60, start=len(m.output))
    fig = epoch_figures(m)
    assert fig["period_us"] == 1000.0   # the default, ckpt=1000
    assert fig["commits"] >= fig["power_on_commits"] >= 5
    assert 0 < fig["pause_mean"] <= fig["pause_max"]
    assert fig["pages_mean"] >= 1       # the counter's stack and data pages
    assert "power-on 1: genesis" in fig["text"]


def test_resume_line_and_figures_after_a_cut(machines, image):
    m = boot_osh(machines, image)
    m.send("counter 1000 20 &\n")
    m.expect(BACKGROUND_LINE % 1010, timeout=120)
    m.power_cut()

    m = power_on_again(machines, image)
    epoch, records, kib, us = map(int, RESUMED.search(m.output).groups())
    assert epoch > 0 and us > 0
    osh(m, "", "")
    fig = epoch_figures(m)
    assert re.search(r"power-on 2: resumed in [\d.]+ us, rolled back %d records" % records,
                     fig["text"]), fig["text"]


def test_ckpt_zero_turns_periodic_commits_off(machines, image):
    m = boot_osh(machines, image, append="ckpt=0")
    fig = epoch_figures(m)
    assert fig["periodic_off"]
    # Output still comes out: the CPU idles, and idling commits.
    start = len(m.output)
    m.send("hello\n")
    m.expect(r"hello from hello, pid \d+\nosh> ", timeout=60, start=start)


def test_ckpt_rejects_a_bad_value(machines, image):
    m = boot_osh(machines, image, append="ckpt=soon")
    assert "cmdline: ckpt=soon is not a number of microseconds from 0 to 10000000; using 1000" in m.output
    assert epoch_figures(m)["period_us"] == 1000.0


def test_output_faster_than_the_line_blocks_and_loses_nothing(machines, image):
    # counter at full speed fills the 64 KiB output queue many times over:
    # writers block until a commit releases it, and every line comes out once.
    m = boot_osh(machines, image)
    start = len(m.output)
    m.send("counter 1 0 &\n")
    m.expect(BACKGROUND_LINE % 30000, timeout=300, start=start)
    numbers = [int(n) for n in re.findall(r"^(?:osh> )?(\d+)$", m.output[start:], re.M)]
    upto = numbers[:numbers.index(30000) + 1]
    assert upto == list(range(1, 30001)), "a gap or repeat in the counter's output"
