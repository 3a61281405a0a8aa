"""test_shell.py -- osh, the object shell, driven over the serial line as a
person would: every builtin's normal use and its mistakes, line editing and
completion through the terminal's escape sequences, history, Ctrl-C, input
that must never crash it, a half-typed line and the history across a power
cut, and `ls` of 100,000 names. docs/shell.md is the specification.

Most tests share one machine (the `osh` fixture, one boot for the module)
and use names of their own; the power-cut and 100,000-name tests boot their
own images."""

import os
import random
import re
import subprocess
import time

import pytest

from ferrite import ROOT

OBJTOOL = os.path.join(ROOT, "build", "objtool")
# Bounds, never criteria (a slow hypervisor may take long).
STEP_TIMEOUT = 120
PROMPT = "osh> "
RESUMED = r"ferrite: resumed at epoch \d+"

UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
HOME, END, DELETE = "\x1b[H", "\x1b[F", "\x1b[3~"
HOME_TILDE, END_TILDE = "\x1b[1~", "\x1b[4~"


def ctrl(c):
    return chr(ord(c) & 0x1f)


@pytest.fixture(scope="module")
def osh(module_machines, tmp_path_factory):
    """One machine for the module, at its first prompt."""
    m = module_machines(image=tmp_path_factory.mktemp("osh") / "osh.nvm", size="32M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    return m


def cmd(m, keys, timeout=STEP_TIMEOUT):
    """Type keys and Enter; what osh printed after the echoed line, up to
    the next prompt."""
    start = len(m.output)
    m.send(keys + "\n")
    end = m.expect(r"\n" + PROMPT, timeout=timeout, start=start)
    return m.output[start:end.start() + 1].split("\n", 1)[1]


def says(m, keys, expected):
    """Run keys; osh's reply must be exactly `expected`."""
    out = cmd(m, keys)
    assert out == expected, "%r -> %r, not %r" % (keys, out, expected)


def start_quiet_counter(m):
    """`counter 1 100000 &`: its pid, once it has printed its one line for
    the next 100 s (the "1" comes before or after osh's prompt: waiting for
    both keeps it out of the next command's reply)."""
    start = len(m.output)
    m.send("counter 1 100000 &\n")
    pid = m.expect(r"\[(\d+)\] started\n", timeout=STEP_TIMEOUT,
                   start=start).group(1)
    m.expect(r"(^|\n|> )1\n", timeout=STEP_TIMEOUT, start=start)
    m.expect(PROMPT, timeout=STEP_TIMEOUT, start=start)
    return pid


def status(m):
    """$? after the last command."""
    return int(cmd(m, "echo $?"))


# --- the catalogue ---------------------------------------------------------

def test_write_append_cat(osh):
    says(osh, "write cat/note 'two  words' and \"more $?\"", "")
    says(osh, "cat cat/note", "two  words and more 0\n")
    says(osh, "append cat/note second line", "")
    says(osh, "cat cat/note", "two  words and more 0\nsecond line\n")
    says(osh, "append cat/log first", "")            # append makes it
    says(osh, "cat cat/log", "first\n")
    says(osh, "cat cat/nothing", "cat: no object named 'cat/nothing'\n")
    assert status(osh) == 1
    says(osh, "cat", "usage: cat NAME|#ID\n")
    assert status(osh) == 2
    says(osh, "write cat/x", "usage: write NAME TEXT...\n")
    says(osh, "write bin/hello x", "write: 'bin/hello' is not a blob: only blobs can be written\n")
    says(osh, "write '' x", "write: '' is not a name (1 to 255 bytes)\n")
    assert status(osh) == 1
    says(osh, "echo $?", "0\n")                     # echo itself went well


def test_ls_in_order_and_long(osh):
    for name in ["ls/b", "ls/a", "ls/c/d", "ls/ab"]:
        says(osh, "write %s x" % name, "")
    says(osh, "ls ls/", "ls/a\nls/ab\nls/b\nls/c/d\n")
    says(osh, "ls ls/a", "ls/a\nls/ab\n")
    out = cmd(osh, "ls -l ls/a")
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "TYPE", "SIZE", "REFS", "EPOCH", "NAME"]
    assert re.fullmatch(r"#\d+\s+blob\s+2\s+1\s+\d+\s+ls/a", lines[1]), out
    assert lines[2].endswith("ls/ab")
    listing = cmd(osh, "ls").splitlines()
    assert listing == sorted(listing) and "bin/osh" in listing
    says(osh, "ls nosuch/", "ls: no name starts with 'nosuch/'\n")
    says(osh, "ls -x", "ls: unknown option '-x' (usage: ls [-l] [PREFIX])\n")
    says(osh, "ls a b", "ls: one PREFIX at most (usage: ls [-l] [PREFIX])\n")


def test_stat_by_name_and_id(osh):
    says(osh, "write st/one hello", "")
    out = cmd(osh, "stat st/one")
    oid = re.search(r"^id:       #(\d+)$", out, re.M).group(1)
    assert "type:     blob\n" in out and "size:     6 bytes (6 B)\n" in out
    assert "refcount: 1\n" in out and re.search(r"modified: epoch \d+\n", out)
    assert "id:       #%s\n" % oid in cmd(osh, "stat #" + oid)
    says(osh, "cat #" + oid, "hello\n")
    says(osh, "stat st/none", "stat: no object named 'st/none'\n")
    says(osh, "stat #999999999", "stat: no object #999999999\n")
    assert "type:     code\n" in cmd(osh, "stat bin/hello")


def test_hexdump(osh):
    says(osh, "write hx/a 'Hello, object world!'", "")
    says(osh, "hexdump hx/a",
         "00000000  48 65 6c 6c 6f 2c 20 6f  62 6a 65 63 74 20 77 6f  |Hello, object wo|\n"
         "00000010  72 6c 64 21 0a                                    |rld!.|\n"
         "00000015\n")
    says(osh, "hexdump hx/a 7 6",
         "00000007  6f 62 6a 65 63 74                                 |object|\n"
         "0000000d\n")
    says(osh, "hexdump hx/a 0x10",
         "00000010  72 6c 64 21 0a                                    |rld!.|\n"
         "00000015\n")
    says(osh, "hexdump hx/a 99", "hexdump: offset 99 is past the end of 'hx/a' (21 bytes)\n")
    says(osh, "hexdump hx/a x", "hexdump: offset 'x' is not a number\n")
    says(osh, "hexdump hx/a 0 -1", "hexdump: length '-1' is not a number\n")
    says(osh, "hexdump hx/b", "hexdump: no object named 'hx/b'\n")


def test_new(osh):
    says(osh, "new nw/big 10M", "")
    assert "size:     10485760 bytes (10 MiB)\npages:    0\n" in cmd(osh, "stat nw/big")
    says(osh, "new nw/small 100", "")
    says(osh, "hexdump nw/small 96",
         "00000060  00 00 00 00                                       |....|\n00000064\n")
    says(osh, "new nw/small 1", "new: 'nw/small' already exists\n")
    says(osh, "new nw/bad 12Q", "new: size must be a number with an optional K/M/G suffix\n")
    says(osh, "new nw/bad lots", "new: size must be a number with an optional K/M/G suffix\n")
    says(osh, "new nw/huge 2048G", "new: size must be at most 1T (1 TiB)\n")
    says(osh, "new nw/x", "usage: new NAME SIZE\n")


def test_cp_mv_rm_ln(osh):
    says(osh, "write cp/src some bytes", "")
    says(osh, "cp cp/src cp/dst", "")
    says(osh, "cat cp/dst", "some bytes\n")
    says(osh, "cp cp/src cp/dst", "cp: 'cp/dst' already exists\n")
    says(osh, "cp cp/none cp/x", "cp: no object named 'cp/none'\n")
    says(osh, "cp bin/hello cp/h", "cp: 'bin/hello' is code, not a blob (ln gives it a second name)\n")
    says(osh, "mv cp/dst cp/moved", "")
    says(osh, "ls cp/", "cp/moved\ncp/src\n")
    says(osh, "mv cp/dst cp/x", "mv: no object named 'cp/dst'\n")
    says(osh, "mv cp/src cp/moved", "mv: 'cp/moved' already exists\n")
    says(osh, "ln cp/src cp/alias", "")
    says(osh, "append cp/alias via the alias", "")
    says(osh, "cat cp/src", "some bytes\nvia the alias\n")
    assert "refcount: 2\n" in cmd(osh, "stat cp/src")
    says(osh, "ln cp/src cp/moved", "ln: 'cp/moved' already exists\n")
    says(osh, "ln cp/none cp/y", "ln: no object named 'cp/none'\n")
    says(osh, "rm cp/src cp/none cp/moved",
         "rm: no object named 'cp/none'\n")
    says(osh, "cat cp/alias", "some bytes\nvia the alias\n")
    says(osh, "rm cp/alias", "")
    says(osh, "rm foo", "rm: no object named 'foo'\n")
    says(osh, "ls cp/", "ls: no name starts with 'cp/'\n")


def test_find(osh):
    says(osh, "write fd/apple x", "")
    says(osh, "write fd/pineapple x", "")
    says(osh, "find apple", "fd/apple\nfd/pineapple\n")
    says(osh, "find zzzz", "find: no name contains 'zzzz'\n")
    says(osh, "find", "usage: find SUBSTRING\n")


@pytest.mark.slow(43)
def test_cat_streams_four_mib(osh):
    # 4 MiB of zeros through the console (64 times its output ring): osh
    # must stream it and come back.
    says(osh, "new big/four 4M", "")
    start = len(osh.output)
    osh.send("cat big/four\n")
    osh.expect("\0" + PROMPT, timeout=300, start=start)   # no newline: none in it
    assert osh.output.count("\0", start) == 4 << 20


# --- processes -------------------------------------------------------------

def test_programs_and_status(osh):
    out = cmd(osh, "hello")
    assert re.fullmatch(r"hello from hello, pid \d+\n", out), out
    assert status(osh) == 0
    says(osh, "nosuchprogram", "osh: no program named 'bin/nosuchprogram' (help lists the builtins)\n")
    assert status(osh) == 127
    says(osh, "write bin/fake not a program", "")
    says(osh, "fake", "osh: 'bin/fake' is not a program\n")
    says(osh, "rm bin/fake", "")


def test_background_ps_kill_jobs_wait(osh):
    pid = start_quiet_counter(osh)
    ps = cmd(osh, "ps")
    assert ps.splitlines()[0].split() == ["PID", "PARENT", "STATE", "CPU_MS", "PAGES", "NAME"]
    assert re.search(r"^\s*%s\s+\d+\s+(runnable|blocked)\s+\d+\s+\d+\s+counter$" % pid, ps, re.M), ps
    assert re.search(r"^\s*\d+\s+0\s+\w+\s+\d+\s+\d+\s+osh$", ps, re.M), ps
    assert "[%s] running  counter 1 100000\n" % pid == cmd(osh, "jobs")
    out = cmd(osh, "kill " + pid)                   # reported at a prompt
    for _ in range(50):
        if "[%s] killed: killed by pid" % pid in out:
            break
        out = cmd(osh, "")
    assert "[%s] killed: killed by pid" % pid in out
    says(osh, "jobs", "")
    # osh reports an ended job before its next prompt: hello may end that
    # soon, and `wait PID` then rightly finds no job (one run in many, on a
    # loaded machine). So the wait is a script's line, run right after the
    # line that starts the job, with no prompt between; pids are given in
    # order, so the job's is the one after that of a hello started first.
    start = len(osh.output)
    first = re.search(r"\[(\d+)\] started", cmd(osh, "hello&")).group(1)
    # hello's own line may come after the prompt: before `wait` is typed,
    # or it would be taken for the start of wait's reply
    osh.expect(r"hello from hello, pid %s\n" % first, timeout=STEP_TIMEOUT, start=start)
    assert cmd(osh, "wait") in ("", "[%s] done, status 0\n" % first)
    hello = int(first) + 1
    says(osh, "write jobs/waiter 'hello &'", "")
    says(osh, "append jobs/waiter 'wait %d'" % hello, "")
    out = cmd(osh, "run jobs/waiter")
    assert "[%d] started\n" % hello in out, out
    assert "[%d] done, status 0\n" % hello in out, out
    says(osh, "echo $?", "0\n")
    says(osh, "rm jobs/waiter", "")
    says(osh, "kill x", "kill: 'x' is not a pid\n")
    says(osh, "kill 999999", "kill: no process with pid 999999\n")
    says(osh, "wait 999999", "wait: no job with pid 999999 (jobs lists them)\n")
    says(osh, "fg", "fg: no background jobs\n")
    says(osh, "ls &", "osh: ls is a builtin; it cannot run in the background\n")


def test_ctrl_c_ends_the_foreground_program_and_fg(osh):
    start = len(osh.output)
    osh.send("counter 7 0\n")
    osh.expect(r"\n7\n8\n9\n", timeout=STEP_TIMEOUT, start=start)
    osh.send(ctrl("C"))
    osh.expect(r"\[\d+\] killed: interrupted \(Ctrl-C\)\n" + PROMPT,
               timeout=STEP_TIMEOUT, start=start)
    assert status(osh) == 130
    assert re.fullmatch(r"\[\d+\] killed: interrupted \(Ctrl-C\)\n", cmd(osh, "status"))
    # A background job brought to the foreground is Ctrl-C's too.
    pid = re.search(r"\[(\d+)\] started", cmd(osh, "counter 1 50 &")).group(1)
    start = len(osh.output)
    osh.send("fg\n")
    osh.expect(r"counter 1 50\n(.*\n)*\d+\n", timeout=STEP_TIMEOUT, start=start)
    osh.send(ctrl("C"))
    osh.expect(r"\[%s\] killed: interrupted \(Ctrl-C\)\n%s" % (pid, PROMPT),
               timeout=STEP_TIMEOUT, start=start)
    says(osh, "jobs", "")


def test_ctrl_c_stops_wait_not_the_job(osh):
    pid = start_quiet_counter(osh)
    start = len(osh.output)
    osh.send("wait\n")
    time.sleep(0.5)
    osh.send(ctrl("C"))
    osh.expect(r"\^C\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    assert "[%s] running" % pid in cmd(osh, "jobs")
    out = cmd(osh, "kill " + pid) + cmd(osh, "wait")
    assert re.search(r"\[%s\] killed: killed by pid \d+\n" % pid, out), out


# --- the system ------------------------------------------------------------

def test_sync_epoch_uptime_mem(osh):
    out = cmd(osh, "sync")
    synced = int(re.fullmatch(r"sync: epoch (\d+) committed\n", out).group(1))
    epoch = cmd(osh, "epoch")
    assert int(re.match(r"epoch (\d+) committed", epoch).group(1)) >= synced
    assert cmd(osh, "stats").startswith("epoch ")
    up = cmd(osh, "uptime")
    assert re.fullmatch(r"up 0d \d\d:\d\d:\d\d since genesis \(\d+ s of running time\); "
                        r"power-on 1; epoch \d+; \d+ processes\n", up), up
    mem = cmd(osh, "mem")
    assert re.fullmatch(r"heap 32 MiB: [\d.]+ \w?i?B used, [\d.]+ \w?i?B free \(\d+% used\)\n"
                        r"\d+ objects, \d+ names, \d+ processes\n", mem), mem
    says(osh, "sync now", "usage: sync\n")


def test_help(osh):
    out = cmd(osh, "help")
    for name in ["ls", "stat", "cat", "hexdump", "new", "write", "append", "cp",
                 "mv", "rm", "ln", "find", "ps", "kill", "wait", "jobs", "fg",
                 "status", "resume", "time", "sync", "epoch", "stats", "uptime", "mem", "poweroff",
                 "history", "run", "help"]:
        assert re.search(r"^  %s\b" % name, out, re.M), name
    says(osh, "help ls", "usage: ls [-l] [PREFIX]\n  names in order (-l: id, type, size, "
         "refcount, epoch modified)\n")
    says(osh, "help nosuch", "help: no builtin named 'nosuch'; 'NAME ARGS' runs bin/NAME\n")


def test_run_a_script_object(osh):
    """run NAME: a setup kept as an object and replayed."""
    says(osh, "write setup '# make the notes'", "")
    says(osh, "append setup ' '", "")
    says(osh, "append setup '  write made one'", "")
    says(osh, "append setup 'cat made'", "")
    says(osh, "append setup 'echo status $?'", "")
    says(osh, "append setup 'cat missing'", "")
    says(osh, "append setup 'echo never'", "")
    # stops at the first failure, says where, keeps its status
    says(osh, "run setup", "one\nstatus 0\ncat: no object named 'missing'\n"
         "run: setup line 6: $? = 1; stopping (run -k goes on)\n")
    says(osh, "echo $?", "1\n")
    # -k goes on; $? is the last command's
    says(osh, "run -k setup", "one\nstatus 0\ncat: no object named 'missing'\nnever\n")
    says(osh, "echo $?", "0\n")
    # scripts run scripts, a bounded depth deep
    says(osh, "write outer 'run setup'", "")
    says(osh, "append outer 'echo after'", "")
    says(osh, "run outer", "one\nstatus 0\ncat: no object named 'missing'\n"
         "run: setup line 6: $? = 1; stopping (run -k goes on)\n"
         "run: outer line 1: $? = 1; stopping (run -k goes on)\n")
    says(osh, "write loop 'run loop'", "")
    out = cmd(osh, "run loop")
    assert "run: 'loop': scripts nested 8 deep; stopping\n" in out, out
    says(osh, "echo $?", "1\n")
    # mistakes
    says(osh, "run nosuch", "run: no object named 'nosuch'\n")
    says(osh, "run -x setup", "usage: run [-k] NAME\n")
    says(osh, "echo $?", "2\n")
    says(osh, "rm setup outer loop made", "")


def test_quoting_and_mistakes(osh):
    says(osh, "echo", "\n")
    says(osh, "echo 'a  b' \"c \\\" d\" e\\ f '$?' \"$?\"", "a  b c \" d e f $? 0\n")
    says(osh, "echo 'open", "osh: unterminated quote\n")
    says(osh, "echo \"open", "osh: unterminated quote\n")
    says(osh, "echo a & b", "osh: echo is a builtin; it cannot run in the background\n"
         "osh: no program named 'bin/b' (help lists the builtins)\n")
    says(osh, "&", "osh: '&' needs a program before it\n")
    says(osh, " ".join(["w"] * 65), "osh: more than 64 words\n")


# --- line editing, history, completion ----------------------------------------

def test_cursor_keys_and_deletion(osh):
    says(osh, "echo abc" + LEFT + LEFT + "X", "aXbc\n")
    says(osh, "cho abc" + HOME + "e" + END + "d", "abcd\n")
    says(osh, "cho abc" + HOME_TILDE + "e" + END_TILDE + "d", "abcd\n")
    says(osh, "xecho abc" + HOME + DELETE, "abc\n")
    says(osh, "cho 123" + ctrl("A") + "e" + ctrl("E") + "4", "1234\n")
    says(osh, "echo abcd" + LEFT + "\x7f" + RIGHT + "e", "abde\n")
    says(osh, "echo one two three" + ctrl("W") + "four", "one two four\n")
    says(osh, "garbage" + ctrl("U") + "echo fresh", "fresh\n")
    says(osh, "echo keep cut" + LEFT * 4 + ctrl("K"), "keep\n")
    says(osh, "echo lx" + LEFT + ctrl("L") + "i", "lix\n")
    says(osh, "echo " + RIGHT + "ok\x1b[Z\x1bx", "ok\n")   # unknown keys ignored


def test_ctrl_c_abandons_the_line(osh):
    start = len(osh.output)
    osh.send("rm something" + ctrl("C"))
    osh.expect(r"rm something\^C\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    assert status(osh) == 130


def test_history_keys_and_command(osh):
    says(osh, "echo first", "first\n")
    says(osh, "echo second", "second\n")
    says(osh, UP, "second\n")                       # the last line again
    says(osh, UP + UP, "first\n")                   # (a repeat is kept once)
    says(osh, "echo new" + UP + DOWN, "new\n")      # Down returns to the new line
    says(osh, UP + UP + ctrl("E") + " again", "first again\n")
    hist = cmd(osh, "history")
    lines = [l.split(None, 1)[1] for l in hist.splitlines()]
    assert lines[-6:] == ["echo first", "echo second", "echo first", "echo new",
                          "echo first again", "history"]


def test_tab_completion(osh):
    says(osh, "write tab/unique-name x", "")
    says(osh, "write tab/pair-one x", "")
    says(osh, "write tab/pair-two x", "")
    says(osh, "cat tab/u\t", "x\n")                  # a unique name completes
    says(osh, "hexd\ttab/u\t 0 1",                    # a builtin, then a name
         "00000000  78                                                |x|\n00000001\n")
    out = cmd(osh, "hell\t")                         # bin/hello as a program
    assert re.fullmatch(r"hello from hello, pid \d+\n", out), out
    start = len(osh.output)
    osh.send("cat tab/p\t")                          # completes to the shared part
    osh.expect(r"cat tab/pair-", start=start)
    osh.send("\t")                                   # a second Tab lists the choices
    osh.expect(r"\ntab/pair-one  tab/pair-two\n", start=start)
    osh.expect(r"osh> cat tab/pair-", start=start)   # and draws the line again
    osh.send("t\t\n")
    osh.expect(r"\nx\n" + PROMPT, start=start)


def test_never_crashes(osh):
    rng = random.Random(6)
    junk = bytes(rng.choice([b for b in range(256) if b not in (3, 10, 13)])
                 for _ in range(3000))
    osh.proc.stdin.write(junk + b"\x03")
    osh.proc.stdin.flush()
    start = len(osh.output)
    osh.send("echo alive\n")
    osh.expect(r"\nalive\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    start = len(osh.output)
    osh.send("echo " + "y" * 5000 + "\n")
    osh.expect(r"osh: a line holds at most 4095 bytes\n", timeout=STEP_TIMEOUT, start=start)
    osh.expect(r"\n" + "y" * 4090 + "\n" + PROMPT, timeout=STEP_TIMEOUT, start=start)
    says(osh, "echo still alive", "still alive\n")


# --- across a power cut; poweroff; 100,000 names -------------------------------

def test_half_typed_line_and_history_across_a_cut(machines, tmp_path):
    image = tmp_path / "cut.nvm"
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    says(m, "echo before the cut", "before the cut\n")
    m.send("write note half")
    m.expect(r"osh> write note half", timeout=STEP_TIMEOUT)   # echoed: committed
    time.sleep(0.2)
    m.power_cut()

    m = machines(image=image, size="32M")
    # osh draws its prompt and the half-typed line at once: no key needed
    m.expect(RESUMED + r"[\s\S]*\nosh> write note half", timeout=STEP_TIMEOUT)
    says(m, " typed", "")
    says(m, "cat note", "half typed\n")
    says(m, UP + UP, "")                        # the history came through too
    says(m, UP * 4, "before the cut\n")
    assert "power-on 2;" in cmd(m, "uptime")
    # poweroff commits, and the next power-on carries on after it.
    start = len(m.output)
    m.send("poweroff\n")
    m.expect(r"poweroff: committing, then powering off\n", start=start)
    assert m.wait_exit(timeout=STEP_TIMEOUT) == 0
    m = machines(image=image, size="32M")
    # osh carries on after its poweroff: the next prompt.
    m.expect(RESUMED + r".*\n" + PROMPT, timeout=STEP_TIMEOUT)
    assert "power-on 3;" in cmd(m, "uptime")
    says(m, "cat note", "half typed\n")


def test_ls_of_100000_names_streams_in_order(machines, tmp_path):
    image = tmp_path / "many.nvm"
    subprocess.run([OBJTOOL, "create", "--size", "64M", str(image)], check=True,
                   capture_output=True)
    subprocess.run([OBJTOOL, str(image), "fill", "many/", "100000"], check=True,
                   capture_output=True)
    m = machines(image=image, size="64M")
    m.expect(PROMPT, timeout=STEP_TIMEOUT)
    start = len(m.output)
    m.send("ls many/\n")
    m.expect(r"many/99999\n" + PROMPT, timeout=600, start=start)
    names = re.findall(r"^many/\d+$", m.output[start:], re.M)
    assert names == ["many/%05d" % i for i in range(100000)]
    says(m, "ls many/0424", "many/04240\nmany/04241\nmany/04242\nmany/04243\n"
         "many/04244\nmany/04245\nmany/04246\nmany/04247\nmany/04248\nmany/04249\n")
    says(m, "cat many/04242", "")
    says(m, "find 4242", "".join("many/%05d\n" % i for i in range(100000)
                                 if "4242" in "%05d" % i))
