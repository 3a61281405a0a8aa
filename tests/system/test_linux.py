"""Linux programs in Ferrite (docs/linux.md): static Linux x86-64 binaries,
run unmodified by osh like its own programs, with the catalogue as their
file system.

The binaries are the real ones: Debian's busybox-static (/bin/busybox,
installed by tools/deps.sh, never rebuilt) and tests/linux/hello.c built by
the host's gcc and musl-gcc, fixed-address and (glibc's) position-
independent (tests/linux/linux.mk). Each runs in Ferrite and on the host with the same
arguments, environment and input files, and the two must print the same
bytes and end with the same status.

The image is made once for the module: a genesis, then objtool imports the
binaries as code objects and the input files as blobs, at the same names
the host's copies have below the host's working directory. The machines
run with the log checker (docs/logcheck.md), which stops the kernel at a
commit if it wrote a heap byte it had not logged.
"""

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import tempfile
import termios
import time

import pytest

import heapimage as H
from ferrite import BACKGROUND_LINE, PROMPT, ROOT

STEP = 120
OBJTOOL = os.path.join(ROOT, "build", "objtool")
LINUX = os.path.join(ROOT, "build", "linux")
BUSYBOX = "/bin/busybox"
# What a Linux program started from osh finds in its environment (linux/start.c).
ENV = {"HOME": "/", "PATH": "/bin", "TERM": "vt100"}
# The kernel's own lines that may come between a program's: a missing call
# named (once per program), the timer's recalibration.
KERNEL_LINE = re.compile(r"linux: [^\n]*\n|(?:warning: )?timer: [^\n]*\n")

HELLOS = ("hello-glibc", "hello-glibc-pie", "hello-musl")
SIGNALS = ("signals-glibc", "signals-musl")
# tests/linux/threads.c, by each C library
THREADS = ("threads-glibc", "threads-musl")
# mremap, and the C library's realloc through it (tests/linux/remap.c)
REMAP = ("remap-glibc", "remap-musl")
# record locks and flock between programs (tests/linux/locks.c)
LOCKS = os.path.join(LINUX, "locks")
KLXPIPE = H.F.layout("klxpipe")
# the key-value store of make bench-peers (tests/linux/kvbench.c)
KVBENCH = os.path.join(LINUX, "kvbench")
# tests/linux/pipes.c, by each C library
PIPES = ("pipes-glibc", "pipes-musl")
# tests/linux/meta.c, by each C library
META = ("meta-glibc", "meta-musl")

# The input files, at the same names on both sides.
FILES = {
    "t/lines.txt": "".join("line %d of the file, word%d %s\n" % (i, i % 7, "xyz"[i % 3])
                           for i in range(1, 41)),
    "t/fruit.txt": "banana 3\napple 12\ncherry 7\napple 12\ndate 1\nbanana 30\n",
    "t/nums.txt": "10\n9\n100\n-3\n42\n7\n",
    "t/blob.bin": bytes(range(256)).decode("latin-1") * 4,
    "t/other.txt": "banana 3\napple 12\ncherry 8\n",
    "t/sub/deep.txt": "deep\n",
    "t/script.sh": "n=6\nwhile [ $n -gt 3 ]; do\n  echo \"n is $n, n*7 is $((n * 7))\"\n"
                   "  n=$((n - 1))\ndone\nexit 5\n",
    "t/heredoc.sh": open(os.path.join(ROOT, "tests", "linux", "heredoc.sh")).read(),
}

# In the tables below, a word that is exactly <, >, >>, 2> or 2>> is
# osh's redirection (docs/shell.md), typed bare, with the name after it;
# the host does the same with the same names below its working directory.
REDIRECTS = ("<", ">", ">>", "2>", "2>>")

# Busybox invocations (argv after the applet's name is busybox's own:
# `busybox APPLET ARGS`), each compared with the host.
APPLETS = [
    ["echo", "hello", "world"],
    ["echo", "-n", "no newline"],
    ["printf", "%s=%d;%x\\n", "a", "42", "255"],
    ["cat", "t/fruit.txt"],
    ["cat", "t/nosuch.txt"],
    ["wc", "t/lines.txt"],
    ["wc", "-l", "t/lines.txt", "t/fruit.txt"],
    ["head", "-n", "3", "t/lines.txt"],
    ["tail", "-n", "2", "t/lines.txt"],
    ["cut", "-d", " ", "-f", "2,4", "t/lines.txt"],
    ["sort", "t/fruit.txt"],
    ["sort", "-n", "t/nums.txt"],
    ["sort", "-r", "t/fruit.txt"],
    ["sort", "-k", "2", "-n", "t/fruit.txt"],
    ["sort", "-u", "t/fruit.txt"],
    ["uniq", "t/fruit.txt"],
    ["sed", "-n", "s/line \\([0-9]*\\) .*/number \\1/p", "t/lines.txt"],
    ["grep", "word3", "t/lines.txt"],
    ["grep", "-c", "apple", "t/fruit.txt"],
    ["grep", "-n", "-E", "ap+le|date", "t/fruit.txt"],
    ["grep", "-v", "a", "t/fruit.txt"],
    ["awk", "{ n[$1] += $2 } END { for (k in n) printf \"%s:%d\\n\", k, n[k] }",
     "t/fruit.txt"],
    ["awk", "-F", " ", "NR % 10 == 0 { print NR, $NF, length($0) }", "t/lines.txt"],
    ["od", "-A", "x", "-t", "x1z", "-N", "40", "t/blob.bin"],
    ["hexdump", "-C", "-n", "64", "t/blob.bin"],
    ["md5sum", "t/lines.txt", "t/blob.bin"],
    ["sha256sum", "t/fruit.txt"],
    ["cmp", "t/fruit.txt", "t/other.txt"],
    ["diff", "t/fruit.txt", "t/other.txt"],
    ["diff", "-u", "t/fruit.txt", "t/other.txt"],
    ["seq", "3", "2", "11"],
    ["expr", "6", "*", "7"],
    ["test", "-f", "t/fruit.txt"],
    ["test", "-d", "t/fruit.txt"],
    ["test", "-d", "t/sub"],
    ["basename", "/a/b/c.txt", ".txt"],
    ["dirname", "/a/b/c.txt"],
    ["true"],
    ["false"],
    # -1: Ferrite's console is a terminal, where ls would write columns
    ["ls", "-1", "t"],
    ["ls", "-1a", "t/sub"],
    ["ls", "-1R", "t"],
    ["stat", "-c", "%n %s %a %h %F", "t/fruit.txt", "t/sub"],
    ["du", "-a", "t/sub"],
    ["find", "t", "-name", "*.txt"],          # lines compared sorted (UNORDERED)
    ["find", "t", "-type", "d"],
    ["sh", "-c", "x=5; while [ $x -gt 0 ]; do printf '%d ' $x; x=$((x - 1)); done; echo"],
    ["sh", "-c", "f() { echo \"f got $# args: $*\"; return 4; }; f a b c; echo status $?"],
    ["sh", "-c", "for w in one two three; do case $w in t*) echo T:$w;; *) echo other:$w;; esac; done"],
    ["sh", "t/script.sh"],                     # a line of osh holds no newline
    # here-documents (a pipe each): in a file, or made by eval of $'...\n...'
    ["sh", "t/heredoc.sh"],
    ["sh", "-c", "eval $'while read a b; do echo \"$b/$a\"; done <<E\\none two\\nthree four five\\nE'"],
    ["sh", "-c", "f() { read -r x; read -r y; echo \"$y,$x\"; }; eval $'f <<E\\nfirst\\nsecond\\nE'; echo $?"],
    ["sh", "-c", "n=0; for w in a b c; do eval $'read -r l <<E\\n'$w$'-line\\nE'; n=$((n+1)); echo $n:$l; done"],
    ["sleep", "0.1"],
    # standard input from an object
    ["cat", "<", "t/fruit.txt"],
    ["wc", "-l", "<", "t/lines.txt"],
    ["tr", "a-z", "A-Z", "<", "t/fruit.txt"],
    ["tr", "-d", "0-9", "<", "t/fruit.txt"],
    ["tr", "-cs", "a-z0-9", "\\n", "<", "t/lines.txt"],
    ["head", "-c", "50", "<", "t/lines.txt"],
    ["grep", "-c", "line", "<", "t/lines.txt"],
    ["sort", "-t", " ", "-k", "2,2n", "-u", "<", "t/fruit.txt"],
    ["sort", "<", "t/fruit.txt", ">", "t/sorted.txt"],
    ["uniq", "-c", "<", "t/sorted.txt"],
    ["awk", "-v", "min=5", "function sq(x) { return x * x } $2 >= min { n[$1]++; s[$1] += sq($2) }"
     " END { for (k in n) printf \"%-8s %d %8.2f\\n\", k, n[k], s[k] / n[k] }", "<", "t/fruit.txt"],
    ["od", "-c", "<", "t/fruit.txt"],
    ["hexdump", "-C", "<", "t/nums.txt"],
    ["md5sum", "<", "t/blob.bin"],
    ["xargs", "echo", "<", "t/nums.txt"],
    ["xargs", "-n", "2", "echo", "n:", "<", "t/nums.txt"],
    ["cmp", "-l", "t/fruit.txt", "t/other.txt"],
    ["du", "-s", "t"],
    # a fixed time zone: UTC
    ["date", "-u", "-d", "@1700000000"],
    ["date", "-u", "-d", "2024-02-29 13:14:15", "+%A %d %B %Y, day %j, %s"],
    ["date", "-u", "-R", "-d", "@0"],
]


# Applets whose order of lines is the host file system's order of a
# directory (ext4's hash order), which no other file system shares: their
# lines are compared sorted.
UNORDERED = ("find",)


def host_run(argv, cwd, executable):
    """argv on the host, as osh would start it there: its output and status.
    A redirection's file is below cwd; what the program writes to the
    console (stdout and stderr, unless they go to files) is its output."""
    words = [w for at, w in enumerate(argv)
             if w not in REDIRECTS and (at == 0 or argv[at - 1] not in REDIRECTS)]
    files = {op: os.path.join(cwd, argv[at + 1]) for at, op in enumerate(argv) if op in REDIRECTS}
    with contextlib.ExitStack() as stack:
        def opened(op, mode):
            return stack.enter_context(open(files[op], mode)) if op in files else None
        stdin = opened("<", "rb") or subprocess.DEVNULL
        stdout = opened(">", "wb") or opened(">>", "ab")
        stderr = opened("2>", "wb") or opened("2>>", "ab")
        p = subprocess.run(words, executable=executable, cwd=cwd, env=ENV, stdin=stdin,
                           stdout=stdout or subprocess.PIPE,
                           stderr=stderr or (subprocess.PIPE if stdout else subprocess.STDOUT),
                           timeout=60)
    return ((p.stdout or b"") + (p.stderr or b"")).decode("latin-1"), p.returncode


def osh_word(arg):
    r"""arg as one osh word (docs/shell.md): in single quotes, which keep
    every byte, unless it holds one; then in double quotes, where \, \"
    and \$ are escapes. A redirection (REDIRECTS) stays bare."""
    if arg in REDIRECTS:
        return arg
    if "'" not in arg:
        return "'%s'" % arg
    return '"%s"' % arg.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")


def ferrite_run(m, argv):
    """Type argv as an osh command line: what the program printed (the
    kernel's own lines taken out) and its status ($?). osh's echo of the
    line is committed output, so a kernel line (sent at once) may come
    before it: the reply is what follows the echo."""
    return reply(m, " ".join(osh_word(a) for a in argv)), int(reply(m, "echo $?"))


def reply(m, line):
    """Type a line into osh: what follows its echo, up to the next prompt,
    without the kernel's lines (which may come anywhere, even inside the
    echo, and may make osh draw its prompt again before it)."""
    start = pos = len(m.output)
    m.send(line + "\n")
    while True:
        prompt = m.expect(PROMPT, timeout=STEP, start=pos)
        text = KERNEL_LINE.sub("", m.output[start:prompt.start()])
        at = text.find(line + "\n")
        if at >= 0:
            return text[at + len(line) + 1:]
        pos = prompt.end()


def expect_clean(m, pattern, start, timeout=STEP):
    """Wait until the output since `start`, the kernel's lines taken out,
    matches `pattern` (a kernel line may come anywhere, even inside the
    echo of a typed line: a power-on's late `timer:` warning on a loaded
    machine); the match, on that text."""
    regex = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while True:
        upto = len(m.output)
        found = regex.search(KERNEL_LINE.sub("", m.output[start:upto]))
        if found:
            return found
        # nothing yet: wait for output past what was searched
        m.expect(r"[\s\S]", timeout=max(deadline - time.monotonic(), 0.1), start=upto)


@pytest.fixture(scope="module")
def linux(module_machines, tmp_path_factory):
    """A machine whose catalogue holds the Linux programs (bin/NAME) and
    the input files; the host's copies of the files, below `files`."""
    tmp = tmp_path_factory.mktemp("linux")
    image = tmp / "linux.nvm"
    files = tmp / "files"
    # 128 MiB: its snapshot area (16 MiB) holds the pages the imports
    # below replace after the first power-on's snapshot (64 MiB's 8 MiB
    # filled once the programs passed 7 MiB, and dropped the snapshots
    # with a warning at the next commit, in the middle of a test's output)
    m = module_machines(image=image, size="128M")
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    imports = [("bin/busybox", BUSYBOX)] + [("bin/" + h, os.path.join(LINUX, h))
                                            for h in HELLOS + SIGNALS + PIPES + THREADS + REMAP + META +
                                            ("lxfuzz", "locks")]
    for name, text in FILES.items():
        path = files / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("latin-1"))
        path.chmod(0o644)              # the modes Ferrite shows (docs/linux.md)
        path.parent.chmod(0o755)
        imports.append((name, str(path)))
    for name, path in imports:
        kind = "code" if name.startswith("bin/") else "blob"
        r = subprocess.run([OBJTOOL, str(image), "import", name, path, "--type", kind],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    # The log checker proves, at every commit, that the kernel logged each
    # heap byte it wrote: the Linux state (klinux, klxfile) included.
    m = module_machines(image=image, append="panic=exit logcheck")
    m.expect(PROMPT, timeout=STEP)
    m.image = image
    return m, str(files)


def test_hello_built_by_the_host_s_compilers(linux):
    m, files = linux
    for hello in HELLOS:
        argv = [hello, "one", "two words"]
        want = host_run(argv, files, os.path.join(LINUX, hello))
        assert ferrite_run(m, argv) == want, hello
        assert want[1] == 3


def test_signals_within_a_program_as_on_the_host(linux):
    """Handlers with their siginfo, masks, pending signals, SIGSEGV on an
    alternate stack, alarm, setitimer, pause, sigsuspend and nanosleep
    cut short, the masks of ppoll and pselect, SIGPIPE: what
    tests/linux/signals.c prints, with both C libraries."""
    m, files = linux
    for program in SIGNALS:
        want = host_run([program], files, os.path.join(LINUX, program))
        assert want[1] == 0 and want[0].count("\n") == 14, want
        assert ferrite_run(m, [program]) == want, program


def test_posix_threads_as_on_the_host(linux):
    """pthread_create (clone), mutexes and condition variables (futex),
    pthread_join (the end of a thread clears and wakes its tid),
    thread-local storage, gettid, a timed wait: what tests/linux/threads.c
    prints, with both C libraries, is what it prints on the host."""
    m, files = linux
    for program in THREADS:
        want = host_run([program], files, os.path.join(LINUX, program))
        assert want[1] == 0 and "counter 30000 (want 30000)" in want[0], want
        assert ferrite_run(m, [program]) == want, program
        want = host_run([program, "exit"], files, os.path.join(LINUX, program))
        assert want == ("main leaves\nthe last thread ends the program\n", 0), want
        assert ferrite_run(m, [program, "exit"]) == want, program


def test_mremap_as_on_the_host(linux):
    """mremap grows a mapping in place, moves it when the pages after it
    are taken, shrinks it, moves it to a fixed address, grows a piece cut
    by munmap without showing the bytes cut away, grows a file's shared
    and private mappings, and says EINVAL, EFAULT and ENOMEM where Linux
    does; realloc keeps every byte of a block grown forty times: what
    tests/linux/remap.c prints, with both C libraries, is what it prints
    on the host."""
    m, files = linux
    for program in REMAP:
        want = host_run([program], files, os.path.join(LINUX, program))
        assert want[1] == 0 and "realloc to 2816 KiB: every byte kept\n" in want[0], want
        assert ferrite_run(m, [program]) == want, program


def host_probe(files):
    """What tests/linux/locks.c's probe says on the host while its holder
    holds its locks."""
    hold = subprocess.Popen([LOCKS, "hold", "lk.db"], cwd=files, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert hold.stdout.readline() == "hold: locked\n"
        return host_run(["locks", "probe", "lk.db", str(hold.pid)], files, LOCKS)
    finally:
        hold.kill()
        hold.wait()
        os.unlink(os.path.join(files, "lk.db"))


def start_in_background(m, line, says):
    """Type `line &` into osh: the program's pid, once it said `says`."""
    start = len(m.output)
    m.send(line + " &\n")
    pid = m.expect(r"\[(\d+)\] started", timeout=STEP, start=start).group(1)
    m.expect(BACKGROUND_LINE % re.escape(says), timeout=STEP, start=start)
    return pid


def test_record_locks_and_flock_between_programs(linux):
    """One program holds record locks and a flock: a second one meets
    them as on the host (F_GETLK's answers, F_SETLK's refusals and grants,
    its own locks cut and split, flock's EWOULDBLOCK, the mistakes); a
    third waits in F_SETLKW, then in flock, and takes each lock once the
    holder is ended -- its end drops them."""
    m, files = linux
    want = host_probe(files)
    assert want[1] == 0 and "getlk write 0+100: a write lock on 0+100 by the holder\n" in want[0]
    pid = start_in_background(m, "locks hold lk.db", "hold: locked")
    assert ferrite_run(m, ["locks", "probe", "lk.db", pid]) == want
    start = len(m.output)
    start_in_background(m, "locks wait lk.db", "wait: waiting for the write lock")
    assert ferrite_run(m, ["locks", "probe", "lk.db", pid]) == want  # still the holder's
    assert "wait: got" not in m.output[start:]
    reply(m, "kill %s" % pid)
    m.expect(BACKGROUND_LINE % "wait: got the write lock", timeout=STEP, start=start)
    m.expect(BACKGROUND_LINE % "wait: got the flock", timeout=STEP, start=start)
    assert ferrite_run(m, ["busybox", "rm", "lk.db"]) == ("", 0)


def test_a_signal_s_default_action_ends_the_program(linux):
    """raise(SIGTERM) with no handler: the program ends, and osh says by
    which signal; an ignored-by-default one (SIGCHLD) does nothing."""
    m, _ = linux
    for program in SIGNALS:
        out = reply(m, "%s die 15" % program)
        assert "still here" not in out and "killed: SIGTERM" in out, out
        assert reply(m, "echo $?").strip() == str(128 + 15)
        assert ferrite_run(m, [program, "die", "17"]) == ("still here after signal 17\n", 0)


def test_ctrl_c_raises_sigint_and_a_restarting_read_goes_on(linux):
    m, _ = linux
    for program in SIGNALS:
        start = len(m.output)
        m.send(program + " wait\n")
        m.expect(r"ready\n", timeout=STEP, start=start)
        for n in (1, 2):
            at = len(m.output)
            m.send("\x03")
            m.expect(r"\^C\n(?:.*\n)*got SIGINT\n", timeout=STEP, start=at)
        m.send("line\n")
        m.expect(r"read 5 byte\(s\) after 2 SIGINT\n", timeout=STEP, start=start)
        m.expect(PROMPT, timeout=STEP, start=start)


# busybox vi driven by keystrokes: each step's keys, then what vi shows
# once it took them (its status line: mode, name, [Modified], line/lines).
# Steps wait for vi to answer, as a person does: keys typed in one burst
# with ESC would be read as an escape sequence, as on a Linux terminal.
VI_TEXT = "one\ntwo\nthree\n"
VI_STEPS = [
    ("", r"- vi\.txt 1/3 33%"),
    ("dd", r"Delete 1 lines \(4 chars\)"),
    ("A and more", r"I vi\.txt \[Modified\] 1/2 50%"),
    ("\x1b", r"- vi\.txt \[Modified\] 1/2 50%"),
    ("jofour", r"I vi\.txt \[Modified\] 3/3 100%"),
    ("\x1b", r"- vi\.txt \[Modified\] 3/3 100%"),
    (":%s/o/0/g\n", r"3 substitutions on 2 lines"),
]
VI_SAVED = "tw0 and m0re\nthree\nf0ur\n"


class HostTerminal:
    """A program on a pseudo-terminal of the host (24 x 80, TERM=vt100),
    with Machine's send and expect."""

    def __init__(self, argv, cwd):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(argv, executable=BUSYBOX, cwd=cwd, env=ENV,
                                     stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self.output = ""

    def send(self, text):
        os.write(self.master, text.encode("latin-1"))

    def expect(self, pattern, timeout=STEP, start=0):
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.output, start)
            if found:
                return found
            left = deadline - time.monotonic()
            assert left > 0, "host vi: no %r in %r" % (pattern, self.output[start:])
            if select.select([self.master], [], [], left)[0]:
                try:
                    self.output += os.read(self.master, 4096).decode("latin-1")
                except OSError:  # the program ended: the pty hung up
                    pass

    def close(self):
        assert self.proc.wait(timeout=STEP) == 0
        os.close(self.master)


def drive_vi(term, steps, start):
    """Type each step's keys into vi on `term` and wait for its answer,
    the first one's from output offset `start`."""
    for keys, shown in steps:
        term.send(keys)
        start = term.expect(shown, timeout=STEP, start=start).end()


def test_ctrl_d_ends_the_input_of_a_line_read(linux):
    """In canonical mode Ctrl-D hands over the line typed so far, without
    a newline, and on an empty line it is the end of input: busybox sh's
    `read` takes two lines, then the third, unended, and stops."""
    m, _ = linux
    line = ("busybox sh -c 'echo ready; n=0; while read -r l; do n=$((n+1)); "
            "echo \"got [$l]\"; done; echo \"[$l] after $n lines\"'")
    start = len(m.output)
    m.send(line + "\n")
    echoed = re.escape(line) + r"\nready\n"
    expect_clean(m, echoed, start)
    m.send("one\ntwo\nthree\x04")  # "three" goes to read without a newline
    expect_clean(m, echoed + r"[\s\S]*three", start)
    m.send("\x04")                     # the end of input
    out = expect_clean(m, echoed + r"([\s\S]*?)" + PROMPT, start).group(1)
    assert out == "one\ngot [one]\ntwo\ngot [two]\nthree[three] after 2 lines\n", out
    assert reply(m, "echo $?") == "0\n"


def test_a_line_read_without_echo_is_not_shown(linux):
    """Canonical mode without ECHO (busybox sh's `read -s`, a password):
    the kernel edits the line and shows none of it, not even its Enter;
    with ECHO (a plain `read`) it shows it as typed."""
    m, _ = linux
    for flag, typed, shown in (("-s ", "s3cret", ""), ("", "plain", "plain\n")):
        line = "busybox sh -c 'read %s-p \"pw: \" x; echo \"got $x\"'" % flag
        start = len(m.output)
        m.send(line + "\n")
        expect_clean(m, re.escape(line) + r"\npw: ", start)
        m.send(typed + "\x7fx\n")  # Backspace is edited away, unseen too
        out = expect_clean(m, re.escape(line) + r"\n([\s\S]*?)" + PROMPT, start).group(1)
        want = "pw: " + (shown[:-1] + "\b \bx\n" if shown else "") + "got %sx\n" % typed[:-1]
        assert out == want, (flag, out)


def test_vi_edits_a_file_as_on_the_host(linux, tmp_path):
    """busybox vi, on the console in raw mode: the same keystrokes make the
    same file in Ferrite and on the host (a pseudo-terminal there)."""
    m, _ = linux
    host_dir = tmp_path / "host"
    host_dir.mkdir()
    (host_dir / "vi.txt").write_text(VI_TEXT)
    host = HostTerminal(["busybox", "vi", "vi.txt"], host_dir)
    drive_vi(host, VI_STEPS, 0)
    host.send(":wq\n")
    host.close()
    assert (host_dir / "vi.txt").read_text() == VI_SAVED

    assert ferrite_run(m, ["busybox", "sh", "-c", "printf 'one\\ntwo\\nthree\\n' > vi.txt"])[1] == 0
    start = len(m.output)
    m.send("busybox vi vi.txt\n")
    drive_vi(m, VI_STEPS, start)
    start = len(m.output)
    m.send(":wq\n")
    m.expect(PROMPT, timeout=STEP, start=start)
    assert ferrite_run(m, ["busybox", "cat", "vi.txt"]) == (VI_SAVED, 0)
    assert ferrite_run(m, ["busybox", "rm", "vi.txt"]) == ("", 0)  # the files as the host's


def busybox_as_on_the_host(linux, table):
    """Each of busybox's invocations in `table`, in order, in Ferrite and
    on the host: the same output and status."""
    m, files = linux
    for args in table:
        argv = ["busybox"] + args
        want = host_run(argv, files, BUSYBOX)
        got = ferrite_run(m, argv)
        if args[0] in UNORDERED:
            want = (sorted(want[0].splitlines()), want[1])
            got = (sorted(got[0].splitlines()), got[1])
        assert got == want, "%s:\n ferrite %r\n host    %r" % (argv, got, want)


@pytest.mark.slow(60)
def test_busybox_applets_print_what_they_print_on_the_host(linux):
    busybox_as_on_the_host(linux, APPLETS)


def test_an_applet_runs_by_a_name_of_its_own(linux):
    """A second name for busybox's object: busybox picks the applet from
    argv[0], which osh makes the command's word (docs/linux.md)."""
    m, files = linux
    assert reply(m, "ln bin/busybox bin/sed") == ""
    argv = ["sed", "-n", "2,3p", "t/fruit.txt"]
    assert ferrite_run(m, argv) == host_run(argv, files, BUSYBOX) == ("apple 12\ncherry 7\n", 0)


def test_uptime_is_the_running_time_since_genesis(linux):
    """sysinfo's uptime is the monotonic clock's, the running time since
    genesis that osh's uptime shows; no load figures."""
    m, _ = linux
    running = int(re.search(r"\((\d+) s of running time\)", reply(m, "uptime")).group(1))
    out, status = ferrite_run(m, ["busybox", "uptime"])
    shown = re.fullmatch(r" *\d\d:\d\d:\d\d up +(?:(\d+):(\d\d)|(\d+) min),(?: +0 users,)? +"
                         r"load average: 0\.00, 0\.00, 0\.00\n", out)
    assert status == 0 and shown, out
    minutes = int(shown.group(3)) if shown.group(3) else int(shown.group(1)) * 60 + int(shown.group(2))
    assert minutes * 60 <= running + 60 and running < minutes * 60 + 120, (running, out)
    traced = reply(m, "trace busybox uptime")
    assert re.search(r"^sysinfo\(0x[0-9a-f]+\) += 0$", traced, re.M), traced


def test_free_sees_the_heap_as_memory(linux):
    """/proc/meminfo and sysinfo both say the heap's pages are the memory
    and its free pages the free memory: busybox free (which reads both, at
    two moments) shows the heap's size as osh's mem does, free memory as
    /proc/meminfo says it within what changed between the reads, and no
    swap; the file is read-only."""
    m, _ = linux
    out, status = ferrite_run(m, ["busybox", "free"])
    mem = re.search(r"^Mem:\s+(\d+)\s+(\d+)\s+(\d+)\s+0\s+0\s+(\d+)$", out, re.M)
    assert status == 0 and mem, out
    total, used, free, available = map(int, mem.groups())
    assert used + free == total and abs(available - free) < total // 50, out
    assert re.search(r"^Swap:\s+0\s+0\s+0$", out, re.M), out
    info = reply(m, "busybox cat /proc/meminfo")
    fields = dict((k, int(v)) for k, v in re.findall(r"^(\w+):\s+(\d+) kB$", info, re.M))
    assert fields["MemTotal"] == total and fields["SwapTotal"] == 0, info
    assert abs(fields["MemFree"] - free) < total // 50, (info, out)
    said = reply(m, "mem")        # heap SIZE: USED used, FREE free: its pages, as ours
    kib = [float(n) * {"KiB": 1, "MiB": 1024, "GiB": 1024 * 1024}[unit] for n, unit in
           re.findall(r"([\d.]+) (KiB|MiB|GiB) (?:used|free)", said)]
    assert len(kib) == 2 and abs(sum(kib) - total) < total // 50, (said, out)
    out, status = ferrite_run(m, ["busybox", "sh", "-c", "echo x > /proc/meminfo"])
    assert status != 0 and "Permission denied" in out, out


def test_proc_self_exe_is_the_program_s_path(linux):
    """readlink of /proc/self/exe: the program's path as the program sees
    it, bin/ and its argv[0] when that name holds the code it runs (as
    strace shows it too); nothing else under /proc."""
    m, files = linux
    assert reply(m, "busybox readlink /proc/self/exe") == "/bin/busybox\n"
    assert reply(m, "ln bin/busybox bin/readlink") == ""
    assert reply(m, "readlink /proc/self/exe") == "/bin/readlink\n"
    assert reply(m, "rm bin/readlink") == ""
    argv = ["busybox", "readlink", "/proc/self/nosuch"]
    assert ferrite_run(m, argv) == host_run(argv, files, BUSYBOX) == ("", 1)
    traced = reply(m, "trace busybox readlink /proc/self/exe")
    assert 'readlink("/proc/self/exe", "/bin/busybox", 4096) = 12\n' in traced, traced


# Steps that change names, run in order on both sides (each one's output
# and status compared): directories, copies, moves, links, removals.
NAME_STEPS = [
    ["mkdir", "w"],
    ["mkdir", "w"],                               # exists
    ["mkdir", "nodir/x"],                         # no parent
    ["ls", "-1a", "w"],                           # empty, yet there
    ["cp", "t/fruit.txt", "w/f"],
    ["cp", "t/lines.txt", "w/l"],
    ["ln", "w/f", "w/f2"],
    ["mv", "w/l", "w/m"],
    ["mv", "w/f2", "w/m"],                        # replaces m
    ["ls", "-1", "w"],
    ["cat", "w/m"],
    ["rmdir", "w"],                               # not empty
    ["rm", "w/f", "w/m"],
    ["rm", "w/m"],                                # gone
    ["rmdir", "w"],
    ["ls", "w"],
    ["mkdir", "-p", "w/a/b"],
    ["cp", "t/nums.txt", "w/a/b/n"],
    ["find", "w"],
    ["rm", "-r", "w"],
    ["test", "-e", "w"],
    # standard output to an object: made, emptied, appended to
    ["mkdir", "o"],
    ["echo", "one", ">", "o/e"],
    ["echo", "two", ">>", "o/e"],
    ["cat", "o/e"],
    ["echo", "three", ">", "o/e"],
    ["cat", "o/e"],
    ["cat", "t/nosuch.txt", "2>", "o/err"],
    ["cat", "t/fruit.txt", "t/nosuch.txt", ">", "o/out", "2>>", "o/err"],
    ["cat", "o/out", "o/err"],
    ["touch", "o/new", "t/fruit.txt"],
    ["ls", "-1", "o"],
    # gzip and gunzip, to and from objects and through standard input and output
    ["gzip", "-c", "t/lines.txt", ">", "o/l.gz"],
    ["md5sum", "o/l.gz"],
    ["gunzip", "-c", "o/l.gz"],
    ["gzip", "<", "t/blob.bin", ">", "o/b.gz"],
    ["gunzip", "<", "o/b.gz", ">", "o/b.bin"],
    ["cmp", "t/blob.bin", "o/b.bin"],
    ["cp", "t/fruit.txt", "o/f"],
    ["gzip", "o/f"],
    ["ls", "-1", "o"],
    ["gunzip", "o/f.gz"],
    ["cmp", "t/fruit.txt", "o/f"],
    ["sed", "-i", "s/apple/APPLE/", "o/f"],
    ["cat", "o/f"],
    # tar: create, list, extract
    ["tar", "-cf", "o/a.tar", "t/fruit.txt", "t/sub"],
    ["tar", "-tf", "o/a.tar"],
    ["mkdir", "o/x"],
    ["tar", "-xf", "o/a.tar", "-C", "o/x"],
    ["find", "o/x"],
    ["cmp", "t/sub/deep.txt", "o/x/t/sub/deep.txt"],
    ["tar", "-cf", "-", "t/nums.txt", "t/lines.txt", ">", "o/b.tar"],
    ["tar", "-tf", "-", "<", "o/b.tar"],
    ["tar", "-xf", "-", "-C", "o/x", "<", "o/b.tar"],
    ["md5sum", "o/x/t/nums.txt", "o/x/t/lines.txt", "o/x/t/fruit.txt"],
    # a directory copied keeping owners and modes, and moved
    ["cp", "-a", "t/sub", "o/sub"],
    ["mv", "o/sub", "o/moved"],
    ["find", "o/moved"],
    ["chmod", "644", "o/moved/deep.txt"],
    ["stat", "-c", "%n %a %F", "o/moved", "o/moved/deep.txt"],
    ["rm", "-r", "o"],
    ["ls", "o"],
]


def test_busybox_changes_names_as_on_the_host(linux):
    busybox_as_on_the_host(linux, NAME_STEPS)


# Modes and times, run in order on both sides: chmod's forms, touch -d
# and -r, cp -p, and what ls -ln, stat and date -r show of them. (Times
# are given as @seconds, which no time zone changes; -n, as owners have
# no names in Ferrite.)
META_STEPS = [
    ["mkdir", "p"],
    ["cp", "t/fruit.txt", "p/f"],
    ["stat", "-c", "%a %s %n", "p/f"],
    ["chmod", "600", "p/f"],
    ["touch", "-d", "@1699964000", "p/f"],
    ["ls", "-ln", "p/f"],
    ["stat", "-c", "%a %A %s %Y %n", "p/f"],
    ["date", "-u", "-r", "p/f"],
    ["chmod", "u+x,g+w,o-r", "p/f"],
    ["stat", "-c", "%a %A %n", "p/f"],
    ["chmod", "a=r", "p/f"],
    ["ls", "-ln", "p/f"],
    ["chmod", "4755", "p/f"],
    ["stat", "-c", "%a %A %n", "p/f"],
    ["chmod", "-v", "0640", "p/f"],
    ["chmod", "g+s,o+t", "p/f"],
    ["stat", "-c", "%a %A %n", "p/f"],
    ["chmod", "640", "p/nosuch"],
    ["touch", "-r", "p/f", "p/g"],
    ["cp", "-p", "p/f", "p/h"],
    ["touch", "-d", "@946684800", "p/f"],
    ["stat", "-c", "%a %Y %n", "p/f", "p/g", "p/h"],
    ["ls", "-ln", "p/f", "p/g", "p/h"],
    ["ls", "-1t", "p"],
    ["find", "p", "-newer", "p/f", "-type", "f"],
    ["rm", "-r", "p"],
]


def test_busybox_modes_and_times_as_on_the_host(linux):
    busybox_as_on_the_host(linux, META_STEPS)


# Directories renamed, run in order on both sides: to a free name, into a
# directory, over an empty one (-T), and Linux's refusals.
DIR_STEPS = [
    ["mkdir", "-p", "r/a/b"],
    ["cp", "t/fruit.txt", "r/a/f"],
    ["cp", "t/nums.txt", "r/a/b/n"],
    ["mv", "r/a", "r/c"],
    ["find", "r"],
    ["cat", "r/c/b/n"],
    ["mkdir", "r/e"],
    ["mv", "r/c", "r/e"],
    ["find", "r"],
    ["mkdir", "r/empty"],
    ["mv", "-T", "r/e", "r/empty"],
    ["find", "r"],
    ["mkdir", "-p", "r/full/x"],
    ["mv", "-T", "r/empty", "r/full"],             # not empty
    ["mv", "r/full", "r/full/x/y"],                # into itself
    ["cp", "t/fruit.txt", "r/file"],
    ["mv", "-T", "r/full", "r/file"],              # a directory over a file
    ["mv", "-T", "r/file", "r/full"],              # a file over a directory
    ["mv", "r/nosuch", "r/z"],
    ["mv", "r/full", "r/nodir/z"],                 # no parent
    ["mv", "r/empty/c", "r/cc"],
    ["find", "r"],
    ["rm", "-r", "r"],
]


def test_busybox_renames_directories_as_on_the_host(linux):
    busybox_as_on_the_host(linux, DIR_STEPS)


def test_file_modes_and_times_as_on_the_host(linux):
    """tests/linux/meta.c, by glibc and by musl: umask at creation,
    chmod, fchmod and fchmodat kept, utimensat and futimens (UTIME_NOW,
    UTIME_OMIT, times before 1970), a write and a truncation moving the
    mtime to now, statx, and their errors: the same output as on the
    host."""
    m, files = linux
    for name in META:
        want = host_run([name], files, os.path.join(LINUX, name))
        assert ferrite_run(m, [name]) == want, name
        assert want[1] == 0 and "mtime after a write: now\n" in want[0], want


def test_pipes_select_and_poll_as_on_the_host(linux):
    """tests/linux/pipes.c, by glibc and by musl: a pipe within the
    program (pipe2 and its flags, FIONREAD, the end of file, EPIPE,
    O_NONBLOCK and EAGAIN, a full pipe, dup), and poll, ppoll, select
    and pselect6 on it, with timeouts run out and bad arguments: the same
    output as on the host."""
    m, files = linux
    for name in PIPES:
        want = host_run([name], files, os.path.join(LINUX, name))
        assert ferrite_run(m, [name]) == want, name
        assert want[1] == 0 and "in order 1" in want[0], want


def test_select_and_poll_end_when_bytes_are_typed(linux):
    """tests/linux/pipes.c's `tty`: the console's window size set and read
    back, FIONREAD of typed bytes (in raw mode, and of a line once its
    Enter is typed), and a finite select and poll (600 s) that end as
    bytes are typed -- long before their time, or this test would time
    out first."""
    m, _ = linux
    start = len(m.output)
    m.send("pipes-glibc tty\n")
    m.expect(r"type 3 bytes\n", timeout=STEP, start=start)
    m.send("xyz")
    m.expect(r"type 1 byte\n", timeout=STEP, start=start)
    m.send("q")
    m.expect(r"type a line\n", timeout=STEP, start=start)
    m.send("hello\n")
    end = m.expect(PROMPT, timeout=STEP, start=start).start()
    out = KERNEL_LINE.sub("", m.output[start:end])
    assert out[out.index("TIOCSWINSZ"):] == (
        "TIOCSWINSZ: 0\nTIOCGWINSZ: 0\nwindow 33 x 101\n"
        "TIOCGWINSZ of a pipe: -1 ENOTTY\nFIONREAD 0\n"
        "poll 100 ms, nothing typed: 0 revents 0\ntype 3 bytes\n"
        "select 600 s: 1, readable 1\nFIONREAD 3\nread 3: xyz\ntype 1 byte\n"
        "poll a pipe and the console 600 s: 1 revents 0 0x1\nread 1: q\n"
        "type a line\nFIONREAD 6\nhello\nread 6: hello\n"), out
    assert reply(m, "echo $?") == "0\n"


def test_redirection_in_the_background_and_without_blanks(linux):
    """osh's redirection beyond the tables (docs/shell.md): a background
    job's, operators that end the word before them, an object by #ID."""
    m, files = linux
    want = host_run(["busybox", "sort", "-r", "t/fruit.txt"], files, BUSYBOX)
    # the job's end is reported before the prompt after it ends: after
    # its own line, or after the wait
    text = reply(m, "busybox sort -r < t/fruit.txt > sorted &") + reply(m, "wait")
    assert re.fullmatch(r"\[(\d+)\] started\n\[\1\] done, status 0\n", text), text
    assert reply(m, "cat sorted") == want[0]
    ident = re.search(r"id: +(#\d+)", reply(m, "stat t/fruit.txt")).group(1)
    assert reply(m, "busybox sort -r<%s>>sorted" % ident) == ""
    assert reply(m, "cat sorted") == want[0] * 2
    assert reply(m, "rm sorted") == ""


def test_time_says_how_long_a_program_took(linux):
    """osh's `time NAME ARGS...` (docs/shell.md): the program runs in the
    foreground with its redirections, then a `real` line; $? is the
    program's. The time covers the program's whole run: a 0.3 s sleep
    takes at least 0.3 s (no upper bound: a test never judges speed)."""
    m, files = linux
    text = reply(m, "time busybox sleep 0.3")
    found = re.fullmatch(r"real (\d+)\.(\d{6}) s\n", text)
    assert found and int(found.group(1)) * 10**6 + int(found.group(2)) >= 300000, text
    assert reply(m, "echo $?") == "0\n"
    text = reply(m, "time busybox sort -r < t/fruit.txt > sorted")
    assert re.fullmatch(r"real \d+\.\d{6} s\n", text), text
    assert reply(m, "cat sorted") == host_run(["busybox", "sort", "-r", "t/fruit.txt"],
                                              files, BUSYBOX)[0]
    assert reply(m, "rm sorted") == ""
    text = reply(m, "time busybox false")
    assert re.fullmatch(r"real \d+\.\d{6} s\n", text) and reply(m, "echo $?") == "1\n", text
    text = reply(m, "time hello")              # one of Ferrite's own programs
    assert re.fullmatch(r"hello[^\n]*\n(?:[^\n]*\n)*real \d+\.\d{6} s\n", text), text
    for line, message, status in (
            ("time", "usage: time NAME [ARGS...]", 2),
            ("time ls", "time: ls is a builtin of osh; time runs a program, bin/NAME", 1),
            ("time nosuch", "osh: no program named 'bin/nosuch' (help lists the builtins)", 127),
            ("time busybox true &", "osh: time is a builtin; it cannot run in the background", 1)):
        assert (reply(m, line), reply(m, "echo $?")) == (message + "\n", "%d\n" % status), line


# Lines osh cannot run as they are (docs/shell.md, "Redirection"), and
# what it says; each runs nothing and sets $? 1.
REDIRECT_MISTAKES = [
    ("busybox cat <", "osh: '<' needs a name after it"),
    ("> made busybox cat <", "osh: '<' needs a name after it"),
    ("busybox cat >> &", "osh: '>>' needs a name after it"),
    ("busybox cat 2> < t/fruit.txt", "osh: '2>' needs a name after it"),
    ("> made", "osh: a redirection needs a program to run"),
    ("busybox cat < t/fruit.txt < t/nums.txt", "osh: standard input is redirected twice"),
    ("busybox echo > made >> other", "osh: standard output is redirected twice"),
    ("busybox wc < t/nosuch", "osh: no object named 't/nosuch'"),
    ("busybox echo x > bin/busybox", "osh: 'bin/busybox' is not a blob: only blobs can be written"),
    ("echo x > made", "osh: echo is a builtin; redirection (< >) is for Linux programs"),
    ("hello > made", "osh: 'hello' is a program of Ferrite's own; redirection (< >) is for Linux programs"),
]


def test_redirection_mistakes_are_named(linux):
    m, files = linux
    for line, message in REDIRECT_MISTAKES:
        assert (reply(m, line), reply(m, "echo $?")) == (message + "\n", "1\n"), line
    # Only the last made its object (as a Unix shell makes it before it
    # finds the program cannot run); the parser's refusals made nothing.
    assert reply(m, "ls made") == "made\n"
    assert reply(m, "ls other") == "ls: no name starts with 'other'\n"
    assert reply(m, "rm made") == ""


def test_the_call_names_are_linux_s():
    """kernel/linux/names.c against the host's <asm/unistd_64.h>."""
    header = open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").read()
    want = {int(n): name for name, n in re.findall(r"#define __NR_(\w+) (\d+)", header)
            if int(n) < 512}
    table = open(os.path.join(ROOT, "kernel", "linux", "names.c")).read()
    got = {int(n): name for n, name in re.findall(r'\[(\d+)\] = "(\w+)"', table)}
    assert got == want


def test_busybox_sh_carries_on_after_a_power_cut(machines, tmp_path):
    """Debian's busybox sh, interactive on the console (raw mode and its own
    line editing), keeps its variables across a power cut: what it printed
    was committed with the state that printed it (output commit), and the
    next power-on resumes the shell where it was."""
    image = tmp_path / "sh.nvm"
    m = machines(image=image, size="64M")
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    r = subprocess.run([OBJTOOL, str(image), "import", "bin/busybox", BUSYBOX, "--type", "code"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(PROMPT, timeout=STEP)
    m.send("busybox sh\n")
    start = m.expect(r"/ # ", timeout=STEP).end()
    m.send("x=41; y=$(( x * 2 ))\n")
    start = m.expect(r"/ # ", timeout=STEP, start=start).end()
    m.send("echo got $x $y\n")
    m.expect(r"got 41 82\n", timeout=STEP, start=start)
    m.power_cut()

    m = machines(image=image, append="panic=exit logcheck")
    m.expect(r"ferrite: resumed", timeout=STEP)
    start = len(m.output)
    m.send("echo after $((x + 1)) $y\n")
    m.expect(r"after 42 82\n", timeout=STEP, start=start)
    m.send("exit 7\n")
    m.expect(PROMPT, timeout=STEP, start=start)    # osh, which waited across the cut
    assert reply(m, "echo $?") == "7\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    # the Linux state (struct klinux, the open files) checked offline too
    r = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def linux_image(machines, tmp_path, programs, size="64M"):
    """A fresh image of `size` holding `programs` (bin/NAME -> host file),
    and a machine powered on on it, with the log checker, at osh's prompt."""
    image = tmp_path / "linux.nvm"
    m = machines(image=image, size=size)
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    for name, path in programs.items():
        r = subprocess.run([OBJTOOL, str(image), "import", name, path, "--type", "code"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(PROMPT, timeout=STEP)
    return image, m


def answer(m, line, prompt):
    """Type a line into a program that reads lines; what it printed before
    its next prompt (the line's echo, by the console, not included)."""
    start = len(m.output)
    m.send(line + "\n")
    return expect_clean(m, re.escape(line) + r"\n([\s\S]*?)" + re.escape(prompt),
                        start).group(1)


def power_cycle(machines, m, image):
    """Cut the power, and power on again with the log checker."""
    m.power_cut()
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(r"ferrite: resumed", timeout=STEP)
    return m


def check_image(image):
    r = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_signal_handler_survives_a_power_cut(machines, tmp_path):
    """A program whose SIGINT handler was set before a power cut, blocked
    in a read: after the power-on, Ctrl-C runs the handler and the read
    goes on (SA_RESTART) -- the dispositions and the blocked call are heap
    state like the rest."""
    image, m = linux_image(machines, tmp_path,
                           {"bin/signals": os.path.join(LINUX, "signals-musl")})
    start = len(m.output)
    m.send("signals wait\n")
    m.expect(r"ready\n", timeout=STEP, start=start)
    m = power_cycle(machines, m, image)
    for _ in range(3):
        at = len(m.output)
        m.send("\x03")
        m.expect(r"\^C\n(?:.*\n)*got SIGINT\n", timeout=STEP, start=at)
    at = len(m.output)
    m.send("line\n")
    m.expect(r"read 5 byte\(s\) after 3 SIGINT\n", timeout=STEP, start=at)
    m.expect(PROMPT, timeout=STEP, start=at)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_threads_waiting_on_a_futex_survive_a_power_cut(machines, tmp_path):
    """Six threads blocked in futex waits (a condition variable) and the
    first in a read: after the power-on the line read wakes them all, and
    each ends and is joined -- the threads and their waits are heap state."""
    for program in THREADS:
        image, m = linux_image(machines, tmp_path,
                               {"bin/threads": os.path.join(LINUX, program)})
        start = len(m.output)
        m.send("threads wait\n")
        m.expect(r"ready: 6 threads wait\n", timeout=STEP, start=start)
        m = power_cycle(machines, m, image)
        at = len(m.output)
        m.send("go\n")
        m.expect("".join(r"waiter %d woke\n" % n for n in range(6)), timeout=STEP, start=at)
        m.expect(PROMPT, timeout=STEP, start=at)
        assert reply(m, "echo $?").strip() == "0"
        m.send("poweroff\n")
        assert m.wait_exit(timeout=STEP) == 0
        check_image(image)
        image.unlink()


def test_a_held_lock_and_its_waiter_survive_a_power_cut(machines, tmp_path):
    """A program holding a record lock and a flock, and one waiting for
    them in F_SETLKW: after the power-on the lock is still held and the
    waiter still waits, until the holder is ended."""
    image, m = linux_image(machines, tmp_path, {"bin/locks": LOCKS})
    pid = start_in_background(m, "locks hold lk.db", "hold: locked")
    start_in_background(m, "locks wait lk.db", "wait: waiting for the write lock")
    m = power_cycle(machines, m, image)
    start = len(m.output)
    out, status = ferrite_run(m, ["locks", "probe", "lk.db", pid])
    assert status == 0 and "getlk write 0+100: a write lock on 0+100 by the holder\n" in out, out
    assert "wait: got" not in m.output[start:]
    reply(m, "kill %s" % pid)
    m.expect(BACKGROUND_LINE % "wait: got the write lock", timeout=STEP, start=start)
    m.expect(BACKGROUND_LINE % "wait: got the flock", timeout=STEP, start=start)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_a_vi_session_keeps_its_unsaved_text_across_a_power_cut(machines, tmp_path):
    """busybox vi with text typed and not written: after a power cut the
    same session goes on, and :wq writes what was typed before the cut."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX})
    start = len(m.output)
    m.send("busybox vi draft.txt\n")
    drive_vi(m, [("", r"- draft\.txt 1/1 100%"),
                 ("iunsaved words", r"I draft\.txt 1/1 100%"),
                 ("\x1b", r"- draft\.txt \[Modified\] 1/1 100%")], start)
    m = power_cycle(machines, m, image)
    start = len(m.output)
    m.send(":wq\n")
    m.expect(r"'draft\.txt' 1L, 14C", timeout=STEP, start=start)
    m.expect(PROMPT, timeout=STEP, start=start)
    assert ferrite_run(m, ["busybox", "cat", "draft.txt"]) == ("unsaved words\n", 0)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_a_lua_repl_keeps_its_globals_across_a_power_cut(machines, tmp_path):
    """tests/linux/lua-repl.c over Debian's liblua5.4.a: what a user typed
    into the interpreter is its state in memory, and so in the heap."""
    image, m = linux_image(machines, tmp_path, {"bin/lua": os.path.join(LINUX, "lua-repl")})
    m.send("lua\n")
    m.expect(r"Lua 5\.4\.\d+ REPL\n> ", timeout=STEP)
    assert answer(m, "x = 6 * 7", "> ") == ""
    assert answer(m, "t = {} for i = 1, 1000 do t[i] = i * i end", "> ") == ""
    assert answer(m, "string.format('%d %d %s', x, #t, math.type(t[10]))", "> ") == \
        "42 1000 integer\n"
    m = power_cycle(machines, m, image)
    assert answer(m, "x + t[1000]", "> ") == "1000042\n"
    assert answer(m, "error('boom')", "> ").startswith("error: ")
    m.send("os.exit(3)\n")
    m.expect(PROMPT, timeout=STEP)
    assert reply(m, "echo $?") == "3\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_sqlite_in_the_catalogue_and_a_transaction_across_a_power_cut(machines, tmp_path):
    """tests/linux/sql.c over Debian's libsqlite3.a (3.40): a database made
    in the catalogue passes PRAGMA integrity_check, and a transaction open
    at a power cut is still open, and commits, after the next power-on."""
    image, m = linux_image(machines, tmp_path, {"bin/sql": os.path.join(LINUX, "sql"),
                                                 "bin/busybox": BUSYBOX})
    m.send("sql kv.db\n")
    m.expect(r"SQLite 3\.40\.\d+ on kv\.db\nsql> ", timeout=STEP)
    steps = [
        ("create table kv(k text primary key, v integer);", ""),
        ("insert into kv with recursive n(i) as (select 1 union all select i + 1 from n "
         "where i < 500) select 'key' || i, i * i from n;", ""),
        ("select count(*), sum(v) from kv;", "500|41791750\n"),
        ("select v from kv where k = 'key321';", "103041\n"),
        ("pragma integrity_check;", "ok\n"),
        ("begin;", ""),
        ("update kv set v = -v where k like 'key1%';", ""),
        ("insert into kv values ('inside', 1);", ""),
        ("select count(*) from kv where v < 0;", "111\n"),
    ]
    for line, want in steps:
        assert answer(m, line, "sql> ") == want, line
    m = power_cycle(machines, m, image)
    steps = [
        ("select count(*) from kv where v < 0;", "111\n"),   # the transaction's own view
        ("insert into kv values ('after', 2);", ""),
        ("commit;", ""),
        ("select count(*), sum(v) from kv;", "502|%d\n" % (41791750 + 3 - 2 * sum(
            i * i for i in range(1, 501) if str(i).startswith("1")))),
        ("pragma integrity_check;", "ok\n"),
    ]
    for line, want in steps:
        assert answer(m, line, "sql> ") == want, line
    m.send(".quit\n")
    m.expect(PROMPT, timeout=STEP)
    # the database is a blob of the catalogue, its journal gone
    names = reply(m, "ls kv.db")
    assert names == "kv.db\n", names
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def until_it_has_run(m, name):
    """Wait (200 looks at most) until `ps` shows background program `name`
    charged a second of CPU; it must not have ended meanwhile."""
    for _ in range(200):
        ps = reply(m, "ps")
        row = re.search(r"^\s*\d+\s+\d+\s+\w+\s+(\d+)\s+\d+\s+%s$" % name, ps, re.M)
        assert row, "%s ended before the cut:\n%s" % (name, m.output)
        if int(row.group(1)) > 0:
            return


def test_md5sum_cut_in_the_middle_gives_the_host_s_sum(machines, tmp_path):
    """busybox md5sum reading a 96 MiB object four times over, cut by power
    while it reads: it goes on after the next power-on from where it was
    (its offset is in its open file, its partial sum in its memory) and
    prints the host's sum each time. The cut comes once `ps` shows it has
    run, long before its fourth pass (each pass takes about a second of
    CPU under TCG): so at least the last sum is printed after the cut. (A
    line the kernel had sent when QEMU was killed may be lost with QEMU's
    own buffers: the kernel counts it sent, as a terminal that saw it
    would have; so the lines before the last are not looked for.)"""
    data = tmp_path / "big.bin"
    block = os.urandom(1 << 20)
    data.write_bytes(b"".join(bytes([i]) + block[1:] for i in range(96)))
    want = subprocess.run(["md5sum", str(data)], capture_output=True, text=True).stdout.split()[0]
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="136M")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    r = subprocess.run([OBJTOOL, str(image), "import", "big.bin", str(data)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = machines(image=image)
    m.expect(PROMPT, timeout=STEP)
    m.send("busybox md5sum big.bin big.bin big.bin big.bin &\n")
    m.expect(r"\[\d+\] started", timeout=STEP)
    until_it_has_run(m, "busybox")
    m.power_cut()
    m = machines(image=image)
    m.expect(r"ferrite: resumed", timeout=STEP)
    start = m.expect(r"%s  big\.bin\n" % want, timeout=STEP).start()
    reply(m, "wait")                                # osh reports the job's end
    assert re.search(r"\[\d+\] done, status 0\n", m.output[start:]), m.output
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def kvbench_sums(args):
    """The 'table T reads U' kvbench prints on the host for args."""
    out = subprocess.run([KVBENCH] + args, capture_output=True, text=True, timeout=60).stdout
    return re.search(r"table \w+ reads \w+", out).group(0)


def test_kvbench_keeps_the_host_s_table_across_a_power_cut(machines, tmp_path):
    """tests/linux/kvbench.c, the key-value store make bench-peers times:
    its table and what its GETs read are the host's, under the log
    checker; and a run cut by power in the middle goes on after the next
    power-on to the host's table -- the store, its generator's state and
    its histogram are the process's memory, kept by the checkpoints alone.
    The cut comes once `ps` shows the run has had a second of CPU, about a
    quarter of its work under TCG."""
    image, m = linux_image(machines, tmp_path, {"bin/kvbench": KVBENCH})
    args = ["--keys", "20000", "--ops", "100000"]
    out, status = ferrite_run(m, ["kvbench"] + args)
    assert status == 0 and kvbench_sums(args) in out, out
    args = ["--keys", "20000", "--ops", "3000000"]
    want = kvbench_sums(args)
    m.send("kvbench %s &\n" % " ".join(args))
    m.expect(r"\[\d+\] started", timeout=STEP)
    until_it_has_run(m, "kvbench")
    m = power_cycle(machines, m, image)
    start = m.expect(r"kvbench: ops 3000000 .*%s" % want, timeout=STEP).start()
    reply(m, "wait")                                # osh reports the job's end
    assert re.search(r"\[\d+\] done, status 0\n", m.output[start:]), m.output
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def forge_pipe_readers(image):
    """A copy of an image holding one pipe, which that pipe counts one
    descriptor more naming its read end than it has. (The program that
    holds it waits, so the epoch the cut ended logged no byte of it.)"""
    img = bytearray(image)
    view = H.rolled_back(img)
    pipes = [h["data"] for h in (H.header(view, off) for off in H.object_headers(view).values())
             if H.TYPE_NAMES.get(h["type"]) == "kernel" and h["size"] == KLXPIPE.size and
             H.u32(view, h["data"]) == H.F.KLXPIPE_MAGIC]
    assert len(pipes) == 1, pipes
    at = pipes[0] + KLXPIPE.offset("readers")
    assert not any(o <= at < o + n for o, n in H.undo_covered(img))
    KLXPIPE.put(img, pipes[0], "readers", KLXPIPE.get(view, pipes[0], "readers") + 1)
    return bytes(img)


def forge_aspace_more(image, pid_name):
    """A copy of an image whose process `pid_name` holds more than the
    kaspace's own mappings, with its `more` object forgotten (0). (The
    program waits, so the epoch the cut ended logged no byte of it.)"""
    img = bytearray(image)
    view = H.rolled_back(img)
    procs = [o[1] for o in H.kernel_objects(view) if o[0] == "process"]
    heads = H.object_headers(view)
    for p in procs:
        name = bytes(view[p + H.KPROC.offset("name"):][:16]).split(b"\0")[0]
        if name.decode() == pid_name:
            asp = H.header(view, heads[H.KPROC.get(view, p, "aspace")])["data"]
            assert H.KASPACE.get(view, asp, "count") > H.F.KASPACE_INLINE_MAPS
            at = asp + H.KASPACE.offset("more")
            assert not any(o <= at < o + n for o, n in H.undo_covered(img))
            H.KASPACE.put(img, asp, "more", 0)
            return bytes(img)
    raise AssertionError("no process %s" % pid_name)


def test_two_hundred_mappings_survive_a_power_cut(machines, tmp_path):
    """tests/linux/remap.c's `hold`: 200 mappings (more than a kaspace
    holds itself: the rest are in its `more` object, kformat.h) keep
    their pages while the program waits for a line, across a power cut
    (the image checked clean at the cut, and a copy whose address space
    lost its `more` refused); after the next power-on the program reads
    them back, and cuts, protects and moves some."""
    image, m = linux_image(machines, tmp_path, {"bin/remap": os.path.join(LINUX, "remap-glibc")})
    m.send("remap hold\n")
    m.expect(r"200 mappings hold 200 pages; type a line\n", timeout=STEP)
    m.power_cut()
    check_image(image)
    forged = tmp_path / "forged.nvm"
    forged.write_bytes(forge_aspace_more(image.read_bytes(), "remap"))
    r = subprocess.run([OBJTOOL, str(forged), "check"], capture_output=True, text=True)
    assert r.returncode != 0 and "mappings, but no object for those past 32" in \
        r.stdout + r.stderr, r.stdout + r.stderr
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(r"ferrite: resumed", timeout=STEP)
    start = len(m.output)
    m.send("go\n")
    m.expect(r"after the line: 200 pages kept\n"
             r"a quarter unmapped, the others read: 50 of 50\n"
             r"mapping 150 moved: U\n", timeout=STEP, start=start)
    m.expect(PROMPT, timeout=STEP, start=start)
    assert reply(m, "echo $?") == "0\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_a_pipe_keeps_its_bytes_across_a_power_cut(machines, tmp_path):
    """tests/linux/pipes.c's `hold`: 20,000 bytes written into a pipe wait
    there while the program waits for a line, across a power cut (the
    image checked clean at the cut, the pipe's counts and ring with it,
    and a copy whose pipe counts a reader too many refused); after the
    next power-on the line comes and the program reads every byte back,
    in order."""
    image, m = linux_image(machines, tmp_path, {"bin/pipes": os.path.join(LINUX, "pipes-glibc")})
    m.send("pipes hold\n")
    m.expect(r"the pipe holds 20000 bytes; type a line\n", timeout=STEP)
    m.power_cut()
    check_image(image)
    forged = tmp_path / "forged.nvm"
    forged.write_bytes(forge_pipe_readers(image.read_bytes()))
    r = subprocess.run([OBJTOOL, str(forged), "check"], capture_output=True, text=True)
    assert r.returncode != 0 and "counts 2 readers and 1 writers; 1 and 1 descriptors name " \
        "its ends" in r.stdout + r.stderr, r.stdout + r.stderr
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(r"ferrite: resumed", timeout=STEP)
    start = len(m.output)
    m.send("go\n")
    m.expect(r"read back 20000 bytes after 'go', in order 1\n", timeout=STEP, start=start)
    m.expect(PROMPT, timeout=STEP, start=start)
    assert reply(m, "echo $?") == "0\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def test_an_mtime_moves_with_a_write_and_survives_a_power_cut(machines, tmp_path):
    """A file's mtime is the wall time of its last write, by the RTC (the
    host's clock, to QEMU): set far back by touch, moved to now by a
    write, kept with its mode across a power cut, and shown by objtool."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX})
    assert reply(m, "busybox touch -d @1000000000 f") == ""
    assert reply(m, "busybox stat -c '%a %Y' f") == "644 1000000000\n"
    before = time.time()
    assert reply(m, "busybox echo x >> f") == ""
    assert reply(m, "busybox chmod 640 f") == ""
    mode, mtime = reply(m, "busybox stat -c '%a %Y' f").split()
    assert mode == "640" and before - 5 <= int(mtime) <= time.time() + 5, (mode, mtime)
    m.power_cut()
    check_image(image)
    st = subprocess.run([OBJTOOL, str(image), "stat", "f", "--json"], capture_output=True,
                        text=True, check=True).stdout
    st = json.loads(st)
    assert st["mode"] == 0o640 and st["mtime_ns"] // 10**9 == int(mtime), st
    m = machines(image=image, append="panic=exit logcheck")
    m.expect(r"ferrite: resumed", timeout=STEP)
    assert reply(m, "busybox stat -c '%a %Y %s' f") == "640 %s 2\n" % mtime
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


def names_under(image, prefix):
    """The catalogue's names starting with prefix, by objtool."""
    rows = json.loads(subprocess.run([OBJTOOL, str(image), "ls", "--json"], capture_output=True,
                                     text=True, check=True).stdout)
    return sorted(r["name"] for r in rows if r["name"].startswith(prefix))


def test_a_directory_moves_whole_or_not_at_all(machines, tmp_path):
    """rename of a directory moves every name below it in one call, so in
    one epoch: power cut while `mv d e` runs, at three moments, the image
    holds all of d's names or all of e's, never some of each. A directory
    whose names need more log than the call may take is refused with
    ENOSPC, and nothing moves."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX}, size="128M")
    make = "i=0; while [ $i -lt %d ]; do echo $i > %s/f$i; i=$((i+1)); done"
    assert reply(m, "busybox mkdir d") == ""
    assert reply(m, "busybox sh -c '%s'" % (make % (20, "d"))) == ""
    def inside(d):
        return sorted([d + "/"] + ["%s/f%d" % (d, i) for i in range(20)])
    where = "d"
    for delay in (0.0, 0.1, 0.4):
        other = "e" if where == "d" else "d"
        m.send("busybox mv %s %s\n" % (where, other))
        time.sleep(delay)
        m.power_cut()
        check_image(image)
        got = (names_under(image, where + "/"), names_under(image, other + "/"))
        assert got in ((inside(where), []), ([], inside(other))), got
        if got[1]:
            where = other
        m = machines(image=image, append="panic=exit logcheck")
        m.expect(r"ferrite: resumed", timeout=STEP)
    assert reply(m, "busybox ls -1 " + where) == "".join("f%d\n" % i for i in sorted(range(20), key=str))
    assert reply(m, "busybox mkdir h") == ""
    assert reply(m, "busybox sh -c '%s'" % (make % (400, "h"))) == ""
    assert reply(m, "busybox mv h h2") == "mv: can't rename 'h': No space left on device\n"
    assert len(reply(m, "busybox ls h").split()) == 400
    assert reply(m, "busybox ls h2") == "ls: h2: No such file or directory\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


# make test's quick form: two seeds of 10,000 calls; make fuzz-linux sets
# the count (and a seed) through the environment.
FUZZ_CALLS = int(os.environ.get("FERRITE_LXFUZZ_CALLS") or 10000)
FUZZ_SEEDS = ([int(os.environ["FERRITE_LXFUZZ_SEED"])] if os.environ.get("FERRITE_LXFUZZ_SEED")
              else [1, 2])


@pytest.mark.slow(15)
@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_lxfuzz(machines, tmp_path, seed):
    """sysfuzz's Linux mode (tests/linux/lxfuzz.c, docs/fuzzing.md): random
    Linux calls with hostile arguments, under the log checker; the kernel
    stays up, the program's own memory and files are intact, the image
    checks clean."""
    image, m = linux_image(machines, tmp_path, {"bin/lxfuzz": os.path.join(LINUX, "lxfuzz")})
    m.send("lxfuzz %d %d\n" % (seed, FUZZ_CALLS))
    m.expect(r"lxfuzz: %d calls, \d+ errors, \d+ signals taken, ok\n" % FUZZ_CALLS, timeout=max(STEP, FUZZ_CALLS // 100))
    m.expect(PROMPT, timeout=STEP)
    assert reply(m, "echo $?") == "0\n"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)


# --- trace (kernel/linux/trace.c, docs/linux.md) ------------------------------

# A line of the trace: a call and its result, or the end of the program.
TRACE_LINE = re.compile(r"^(?:[a-z_0-9]+\(.*\) += .*|\+\+\+ exited with \d+ \+\+\+)\n", re.M)
# An address, which differs between Ferrite and the host.
ADDRESS = re.compile(r"0x[0-9a-f]{6,}")
# The calls whose lines the host's strace must show the same (addresses
# aside): the ones that do not depend on the machine.
SAME_AS_HOST = ("openat", "newfstatat", "write", "close", "exit_group")


def traced(m, argv):
    """`trace ARGV` typed into osh: the trace's lines, what the program
    printed itself (everything else), and $?."""
    out, status = ferrite_run(m, ["trace"] + argv)
    return [text.rstrip("\n") for text in TRACE_LINE.findall(out)], TRACE_LINE.sub("", out), status


def host_strace(argv, cwd, executable):
    """The host's strace of argv, as osh would start it there: its lines."""
    with tempfile.NamedTemporaryFile("w+", prefix="strace-") as log:
        subprocess.run(["strace", "-o", log.name, "--", executable] + argv[1:], cwd=cwd, env=ENV,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60, check=False)
        return log.read().splitlines()


def masked(lines):
    """Trace lines with their addresses made alike."""
    return [ADDRESS.sub("ADDR", text) for text in lines]


def line(call, result):
    """A call's line as strace prints it: its result from column 40 on."""
    return "%-39s = %s" % (call, result)


def ended(status):
    """The last two lines of a program's trace: exit_group, and its end."""
    return [line("exit_group(%d)" % status, "?"), "+++ exited with %d +++" % status]


# Each: busybox's arguments, and lines its trace must hold, exactly.
BUSYBOX_TRACES = [
    (["cat", "t/fruit.txt"], [
        line('openat(AT_FDCWD, "t/fruit.txt", O_RDONLY)', "3"),
        line("sendfile(1, 3, NULL, 16777216)", "-1 ENOSYS (Function not implemented)"),
        line('read(3, "banana 3\\napple 12\\ncherry 7\\napple"..., 65536)', "53"),
        line('write(1, "banana 3\\napple 12\\ncherry 7\\napple"..., 53)', "53"),
        line("close(3)", "0")]),
    (["cat", "t/nosuch.txt"], [
        line('openat(AT_FDCWD, "t/nosuch.txt", O_RDONLY)', "-1 ENOENT (No such file or directory)")]),
    (["ls", "nosuchdir"], [
        line('write(2, "ls: nosuchdir: No such file or d"..., 41)', "41")]),
]


def test_trace_shows_busybox_s_calls_as_strace_does(linux):
    """trace of Debian's busybox: the lines the issue names (a write with
    its bytes and count, an ENOENT, exit_group), each as the host's strace
    prints the same call; the program's own output and status unchanged."""
    m, files = linux
    for args, want in BUSYBOX_TRACES:
        argv = ["busybox"] + args
        calls, out, status = traced(m, argv)
        assert (out, status) == ferrite_run(m, argv) == host_run(argv, files, BUSYBOX), argv
        for one in want:
            assert one in calls, "%s: %r not in\n%s" % (argv, one, "\n".join(calls))
        assert calls[-2:] == ended(status), calls
        host = [one for one in host_strace(argv, files, BUSYBOX)
                if one.split("(")[0] in SAME_AS_HOST]
        assert host and set(masked(host)) <= set(masked(calls)), (argv, host, calls)


def test_trace_of_hello_built_by_gcc_and_musl(linux):
    """The hellos of glibc and musl: the write (glibc) or writev (musl) of
    each line, with its bytes; the memory calls with their flags; the
    program's own output unchanged."""
    m, files = linux
    argv = ["hello-glibc", "one", "two words"]
    calls, out, status = traced(m, argv)
    assert (out, status) == ferrite_run(m, argv)
    for one in [line('write(1, "hello from hello-glibc, 3 argume"..., 55)', "55"),
                line('write(1, "first variable: HOME=/\\n", 23)', "23"),
                line('write(1, "a line from malloc\\n", 19)', "19")] + ended(3):
        assert one in calls, "%r not in\n%s" % (one, "\n".join(calls))
    assert re.match(r"brk\(NULL\) + = 0x[0-9a-f]+$", calls[0]), calls
    assert calls[-2:] == ended(3), calls
    argv = ["hello-musl", "one", "two words"]
    calls, out, status = traced(m, argv)
    assert (out, status) == ferrite_run(m, argv)
    one = line('writev(1, [{iov_base="hello from hello-musl, 3 argumen"..., iov_len=53}, '
               '{iov_base="\\n", iov_len=1}], 2)', "54")
    assert one in calls, "%r not in\n%s" % (one, "\n".join(calls))
    assert any(re.match(r"mmap\(NULL, 4096, PROT_READ\|PROT_WRITE, MAP_PRIVATE\|MAP_ANONYMOUS, "
                        r"-1, 0\) = 0x[0-9a-f]+$", one) for one in calls), calls
    assert calls[-2:] == ended(3), calls


def test_trace_mistakes_are_said_clearly(linux):
    m, files = linux
    assert ferrite_run(m, ["trace"]) == ("usage: trace NAME [ARGS...]\n", 2)
    assert ferrite_run(m, ["trace", "nosuch"]) == \
        ("trace: no program named 'bin/nosuch' (help lists the builtins)\n", 127)
    assert ferrite_run(m, ["trace", "hello"]) == \
        ("trace: 'hello' is a program of Ferrite's own; trace shows the calls of Linux programs only\n", 1)
    assert ferrite_run(m, ["trace", "ls"]) == \
        ("trace: ls is a builtin of osh; trace runs a program, bin/NAME\n", 1)


def test_trace_through_the_host_link(linux):
    """tools/fe run: the program's console is a channel to the host, and the
    trace's lines go there too, in order with the program's output."""
    m, files = linux
    r = subprocess.run([os.path.join(ROOT, "tools", "fe"), "--image", str(m.image),
                        "--timeout", str(STEP), "run", "trace busybox cat t/fruit.txt"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    at = lines.index(line('read(3, "banana 3\\napple 12\\ncherry 7\\napple"..., 65536)', "53"))
    assert lines[at + 1:at + 8] == FILES["t/fruit.txt"].splitlines() + [
        line('write(1, "banana 3\\napple 12\\ncherry 7\\napple"..., 53)', "53")], lines
    assert lines[-2:] == ended(0), lines


def test_a_traced_program_is_traced_across_a_power_cut(machines, tmp_path):
    """busybox cat reading the console, blocked in its read when the power
    goes: after the next power-on it is still traced, and its read's line
    comes when a line is typed (after the line's echo), then what cat
    writes and the write's line."""
    image, m = linux_image(machines, tmp_path, {"bin/busybox": BUSYBOX})
    m.send("trace busybox cat\n")
    m.expect(r"sendfile\(1, 0, NULL, 16777216\) += -1 ENOSYS \(Function not implemented\)\n",
             timeout=STEP)
    m = power_cycle(machines, m, image)
    start = len(m.output)
    m.send("after the cut\n")
    m.expect(re.escape('after the cut\n%s\nafter the cut\n%s\n' % (
        line('read(0, "after the cut\\n", 65536)', "14"),
        line('write(1, "after the cut\\n", 14)', "14"))), timeout=STEP, start=start)
    m.send("\x03")                                  # Ctrl-C ends it
    m.expect(r"killed: interrupted \(Ctrl-C\)\n", timeout=STEP, start=start)
    m.expect(PROMPT, timeout=STEP, start=start)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    check_image(image)                              # KPROC_TRACE checked offline too


@pytest.mark.slow(15)
def test_trace_of_lxfuzz_s_hostile_calls(linux):
    """The trace reads every argument of lxfuzz's random and hostile calls
    (wrong pointers, huge lengths, unterminated strings) without harm:
    lxfuzz's own checks pass, and every call has its line."""
    m, files = linux
    calls, out, status = traced(m, ["lxfuzz", "7", "2000"])
    assert re.search(r"lxfuzz: 2000 calls, \d+ errors, \d+ signals taken, ok\n", out) and status == 0, out
    assert len(calls) > 2000 and calls[-1] == "+++ exited with 0 +++", calls[-5:]

