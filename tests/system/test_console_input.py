"""test_console_input.py -- hostile input at osh's prompt over the serial
line: escape sequences whole, broken and with huge parameters, every byte
value pasted (NULs included), a burst of random bytes, a 100 KiB line, and
typing far beyond the console's 4 KiB input queue while a program that
does not read holds the foreground. After each, osh must run the next
command; at the end `poweroff` and `objtool check` must find the image
consistent.

What happens to input beyond the queue (docs/security.md): the kernel keeps
at most 4 KiB typed and not yet read (KCONSOLE_IN_BYTES). While osh reads
(no program holds the foreground), what does not fit waits in the UART
and the terminal waits with it, so nothing pasted at the prompt is lost,
however fast the terminal and however slow osh on a loaded host: the
tests below check that the kernel kept every byte they typed (its input
counters, read from the live image). While a program holds the
foreground, the kernel reads on so that Ctrl-C acts at once, and drops
what does not fit, like a full UART FIFO: the typing test overflows the
queue on purpose, with a program that reads nothing.

One machine serves the module (one boot); the last test powers it off."""

import mmap
import os
import random
import re
import subprocess

import pytest

import heapimage as H
from ferrite import PROMPT, ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
STEP_TIMEOUT = 120          # a bound for a loaded TCG host, never a criterion
CTRL_C, CTRL_E, CTRL_U = "\x03", "\x05", "\x15"
QUEUE = 4096                # the kernel's console input queue (KCONSOLE_IN_BYTES)
LINE_MAX = 4095             # osh's longest line (OSH_LINE_MAX)


class InputCounters:
    """The console's input counters (struct kconsole: bytes ever typed and
    kept, bytes ever read), read from the running machine's image: QEMU
    maps the file shared, so the guest's stores show at once."""

    def __init__(self, image):
        with open(image, "rb") as f:
            self.view = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        console = [o for o in H.kernel_objects(self.view) if o[0] == "console"]
        self.at = console[0][1]

    def read(self):
        """(in_queued, in_read)"""
        return (H.get(self.view, self.at, H.KCONSOLE, "in_queued"),
                H.get(self.view, self.at, H.KCONSOLE, "in_read"))


@pytest.fixture(scope="module")
def console(module_machines, tmp_path_factory):
    """One machine for the module, at its first prompt; (machine, image,
    its input counters)."""
    image = tmp_path_factory.mktemp("input") / "input.nvm"
    m = module_machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m, image, InputCounters(image)


def send_bytes(m, data):
    """Type raw bytes (any value) on the serial line."""
    m.proc.stdin.write(data)
    m.proc.stdin.flush()


def typed(counters, since, data):
    """Assert that the kernel kept every byte of data typed since the
    counters read `since` (and that osh read them all)."""
    queued, read = counters.read()
    assert queued - since[0] == len(data), (
        "typed %d bytes, the kernel kept %d" % (len(data), queued - since[0]))
    assert read == queued, "osh left %d bytes unread" % (queued - read)


def answer(m, keys):
    """Type keys and Enter; what osh printed after the echoed line, up to
    the next prompt."""
    start = len(m.output)
    m.send(keys + "\n")
    end = m.expect(r"\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    return m.output[start:end.start() + 1].split("\n", 1)[1]


def responsive(m, word):
    """osh runs the next command: erase whatever the junk left on the line
    (Ctrl-E to its end, Ctrl-U), then echo a word; the keys typed."""
    start = len(m.output)
    keys = CTRL_E + CTRL_U + "echo " + word + "\n"
    m.send(keys)
    m.expect(r"\n%s\n%s" % (word, PROMPT), timeout=STEP_TIMEOUT, start=start)
    return keys.encode()


def pasted(m, counters, junk, word):
    """Paste junk at the prompt in one write, then check that osh runs the
    next command and that not one byte was dropped."""
    before = counters.read()
    send_bytes(m, junk)
    typed(counters, before, junk + responsive(m, word))


def test_escape_sequences_whole_broken_and_huge(console):
    m, _, counters = console
    huge = "9" * 5000
    # A broken sequence ends at the control byte after it, which acts.
    assert answer(m, "echo ok\x1b") == "ok\n"
    assert answer(m, "echo ok\x1b[") == "ok\n"
    assert answer(m, "echo ok\x1b[1;") == "ok\n"
    assert answer(m, "echo ok\x1bO") == "ok\n"
    # Huge parameters: Left is still Left, however many digits it carries.
    assert answer(m, "echo ab\x1b[" + huge + "DX") == "aXb\n"
    assert answer(m, "echo ab\x1b[" + ";".join(["65535"] * 800) + "DX") == "aXb\n"
    # Private markers and intermediates belong to the sequence, not the line.
    assert answer(m, "echo a\x1b[?25hb\x1b[>0;1c\x1b[ q") == "ab\n"
    # ESC inside a sequence starts another; unknown finals are ignored.
    assert answer(m, "echo ab\x1b[\x1b[DX\x1b[Z\x1b[200~") == "aXb\n"
    # Many sequences in one burst, with every key osh knows.
    keys = ["\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F", "\x1b[3~",
            "\x1b[1~", "\x1b[4~", "\x1b[7~", "\x1b[8~", "\x1bOH", "\x1bOF",
            "\x1b[1;5C", "\x1b[" + huge + "~", "\x1b", "\x1b[", "\x1bO"]
    rng = random.Random(8)
    pasted(m, counters, "".join(rng.choice(keys) for _ in range(500)).encode(),
           "after-escapes")


def test_every_byte_value_pasted(console):
    m, _, counters = console
    pasted(m, counters, bytes(range(256)) * 8,   # NULs, Ctrl-C, CR, LF, ESC, 8-bit
           "after-all-bytes")
    pasted(m, counters, bytes(range(255, -1, -1)) * 8, "after-all-bytes-reversed")


def test_random_burst(console):
    m, _, counters = console
    rng = random.Random(1008)
    junk = bytes(rng.randrange(256) for _ in range(16384))
    pasted(m, counters, junk, "after-random")


def test_a_pasted_script_runs_whole(console):
    # 22,000 bytes of commands in one write, five times the queue: osh runs
    # every line, in order, and the kernel kept every byte.
    m, _, counters = console
    lines = "".join("echo %05d\n" % i for i in range(1, 2001))
    before = counters.read()
    start = len(m.output)
    send_bytes(m, lines.encode())
    m.expect(r"\n02000\n%s" % PROMPT, timeout=STEP_TIMEOUT, start=start)
    typed(counters, before, lines.encode())
    ran = re.findall(r"^(\d{5})$", m.output[start:], re.M)
    assert ran == ["%05d" % i for i in range(1, 2001)]


def test_lines_as_long_as_the_queue_arrive_whole(console):
    # Each line with its Enter fills the queue exactly, written in one go:
    # the UART driver keeps every byte (its 1 KiB ring once dropped what
    # one interrupt could not fit, and a line lost its middle).
    m, _, _ = console
    for i in range(8):
        word = chr(ord("a") + i) * (QUEUE - len("echo \n"))
        assert answer(m, "echo " + word) == word + "\n"


def test_100_kib_line(console):
    # In one write: osh keeps the first 4,095 bytes, says so once, and runs
    # what it kept; the kernel kept all of it for osh to read.
    m, _, counters = console
    text = "echo " + "".join("z%0126d " % i for i in range(100 * 1024 // 128))
    words = text[:LINE_MAX].split()[1:]
    before = counters.read()
    start = len(m.output)
    send_bytes(m, (text + "\n").encode())
    m.expect(r"\n%s\n%s" % (re.escape(" ".join(words)), PROMPT),
             timeout=STEP_TIMEOUT, start=start)
    assert m.output.count("osh: a line holds at most %d bytes" % LINE_MAX, start) == 1
    typed(counters, before, (text + "\n").encode() + responsive(m, "after-100-KiB"))


def test_typing_beyond_the_queue_is_dropped_and_ctrl_c_still_acts(console):
    m, _, _ = console
    start = len(m.output)
    m.send("counter 1 1000000\n")         # prints 1, then sleeps: reads nothing
    m.expect(r"\n1\n", timeout=STEP_TIMEOUT, start=start)
    lines = "".join("echo %05d\n" % i for i in range(1, 2001))   # 22,000 bytes
    m.send(lines)
    m.send(CTRL_C)                        # acted on as it arrives: ends counter
    m.expect(r"killed: interrupted \(Ctrl-C\)\n", timeout=STEP_TIMEOUT, start=start)
    # osh then edits what the queue kept: exactly the first 4 KiB typed.
    kept = lines[:QUEUE]
    complete = kept.count("\n")
    m.expect(r"\n%05d\n%s%s" % (complete, PROMPT, re.escape(kept[kept.rfind("\n") + 1:])),
             timeout=STEP_TIMEOUT, start=start)
    responsive(m, "after-type-ahead")
    ran = re.findall(r"^(\d{5})$", m.output[start:], re.M)
    assert ran == ["%05d" % i for i in range(1, complete + 1)]


def test_poweroff_then_the_image_is_consistent(console):
    m, image, _ = console
    responsive(m, "last")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP_TIMEOUT) == 0
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
