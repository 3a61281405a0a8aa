"""test_console_input.py -- hostile input at osh's prompt over the serial
line: escape sequences whole, broken and with huge parameters, every byte
value pasted (NULs included), a burst of random bytes, a 100 KiB line, and
typing far beyond the console's 4 KiB input queue while a program that
does not read holds the foreground. After each, osh must run the next
command; at the end `poweroff` and `objtool check` must find the image
consistent.

What happens to input beyond the queue (docs/security.md): the kernel keeps
at most 4 KiB typed and not yet read (KCONSOLE_IN_BYTES) and drops what
comes after, like a full UART FIFO; Ctrl-C is acted on as it arrives, even
then. osh reads as fast as it edits, so at its prompt bytes are lost only
when the terminal outruns it: the paced tests below feed a chunk and wait
for osh's answer before the next one, and the burst test asserts only
what holds whatever was dropped.

One machine serves the module (one boot); the last test powers it off."""

import os
import random
import re
import subprocess

import pytest

from ferrite import PROMPT, ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
STEP_TIMEOUT = 120          # a bound for a loaded TCG host, never a criterion
CTRL_C, CTRL_E, CTRL_U = "\x03", "\x05", "\x15"
QUEUE = 4096                # the kernel's console input queue (KCONSOLE_IN_BYTES)
LINE_MAX = 4095             # osh's longest line (OSH_LINE_MAX)


@pytest.fixture(scope="module")
def console(module_machines, tmp_path_factory):
    """One machine for the module, at its first prompt; (machine, image)."""
    image = tmp_path_factory.mktemp("input") / "input.nvm"
    m = module_machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m, image


def send_bytes(m, data):
    """Type raw bytes (any value) on the serial line."""
    m.proc.stdin.write(data)
    m.proc.stdin.flush()


def answer(m, keys):
    """Type keys and Enter; what osh printed after the echoed line, up to
    the next prompt."""
    start = len(m.output)
    m.send(keys + "\n")
    end = m.expect(r"\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    return m.output[start:end.start() + 1].split("\n", 1)[1]


def responsive(m, word):
    """osh runs the next command: erase whatever the junk left on the line
    (Ctrl-E to its end, Ctrl-U), then echo a word."""
    start = len(m.output)
    m.send(CTRL_E + CTRL_U + "echo " + word + "\n")
    m.expect(r"\n%s\n%s" % (word, PROMPT), timeout=STEP_TIMEOUT, start=start)


def test_escape_sequences_whole_broken_and_huge(console):
    m, _ = console
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
    m.send("".join(rng.choice(keys) for _ in range(500)))
    responsive(m, "after-escapes")


def test_every_byte_value_pasted(console):
    m, _ = console
    send_bytes(m, bytes(range(256)) * 8)   # NULs, Ctrl-C, CR, LF, ESC, 8-bit
    responsive(m, "after-all-bytes")
    send_bytes(m, bytes(range(255, -1, -1)) * 8)
    responsive(m, "after-all-bytes-reversed")


def test_random_burst(console):
    m, _ = console
    rng = random.Random(1008)
    junk = bytes(rng.randrange(256) for _ in range(16384))
    send_bytes(m, junk)
    responsive(m, "after-random")


def test_100_kib_line(console):
    m, _ = console
    # Words of 127 bytes (at most 32 fit the line: osh takes 64), so the word
    # before the cursor is never longer than a name: a Tab after each 1 KiB
    # chunk rings the bell (nothing completes), which paces the feed to
    # osh's speed without changing the line.
    text = "echo " + "".join("z%0126d " % i for i in range(100 * 1024 // 128))
    start = len(m.output)
    for i, at in enumerate(range(0, len(text), 1024)):
        m.send(text[at:at + 1024] + "\t")
        m.expect(r"(\a[^\a]*){%d}" % (i + 1), timeout=STEP_TIMEOUT, start=start)
    out_start = len(m.output)
    m.send("\n")
    m.expect(r"\n" + PROMPT, timeout=STEP_TIMEOUT, start=out_start)
    assert m.output.count("osh: a line holds at most %d bytes" % LINE_MAX, start) == 1
    kept = text[:LINE_MAX]
    words = kept.split()[1:]
    assert m.output[out_start:].split("\n")[1] == " ".join(words)
    responsive(m, "after-100-KiB")


def test_typing_beyond_the_queue_is_dropped_and_ctrl_c_still_acts(console):
    m, _ = console
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
    m, image = console
    responsive(m, "last")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP_TIMEOUT) == 0
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
