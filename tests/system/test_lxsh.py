"""Forking busybox sh scripts in Ferrite, each compared with the host byte
for byte (issue 32): pipelines, subshells, command substitution, traps,
`wait`, signals between processes and exit statuses.

Each script is tests/linux/sh/NAME.sh, its first lines saying what it
proves. The image holds Debian's /bin/busybox (busybox-static, never
rebuilt) as bin/busybox, with bin/sh a second name of it (for `#!/bin/sh`),
and each script as t/sh/NAME.sh. One machine runs them all, one after
another, in one osh session: `busybox sh t/sh/NAME.sh`, then `echo $?`.
The host runs the same busybox the same way, in a directory holding the
same t/sh/, with the environment osh gives a Linux program (test_linux's
ENV): the two must print the same bytes (standard output and standard
error, both on the console in Ferrite and on one pipe on the host) and end
with the same status. The host runs each script twice and the two runs
must agree, so a script whose output is not deterministic fails as such,
not as Ferrite's fault.

Scripts find busybox's applets without PATH: Debian's busybox is built
with FEATURE_SH_STANDALONE, so ash runs an applet by its name, in a fork
of itself (a NOEXEC applet) or by execve("/proc/self/exe") -- on both
sides alike. PATH matters only for the commands the scripts make
themselves (path_lookup.sh). Each script works below scratch/NAME, which it
makes afresh and removes at its end, with relative paths only: the
current directory is the catalogue's root in Ferrite and the host's
directory on the host.

A script that does not end within SCRIPT_TIMEOUT, or a kernel that stops,
fails that script's test; the machine is then powered off and started
again from the image as the fixture made it (a power cut alone would not
do: a Linux program carries on after the next power-on), so the scripts
after it still run.
"""

import contextlib
import difflib
import os
import shutil
import signal
import subprocess

import pytest

from ferrite import PROMPT, time_scale
from test_linux import BUSYBOX, ENV, KERNEL_LINE, OBJTOOL

SH_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "linux", "sh")
SCRIPTS = sorted(n[:-3] for n in os.listdir(SH_DIR) if n.endswith(".sh"))
STEP = 120
# A script's whole run in Ferrite, under TCG: a bound that catches a hang,
# never a measure of speed.
SCRIPT_TIMEOUT = 300


@contextlib.contextmanager
def no_signal_ignored():
    """While the host runs a script: no signal ignored in this process, so
    none in the script (osh starts a program with every signal's default
    action). A shell that starts pytest in the background makes it ignore
    SIGINT, and a signal ignored when a shell starts cannot be trapped:
    `trap ... INT` would do nothing. An ignored signal is given a handler
    that does nothing, which execve makes the default in the child (this
    runs in the main thread; a preexec_fn would be unsafe beside the
    machines' reader threads)."""
    ignored = []
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            if signal.getsignal(sig) == signal.SIG_IGN:
                signal.signal(sig, lambda *_: None)
                ignored.append(sig)
        except (OSError, ValueError):
            pass
    try:
        yield
    finally:
        for sig in ignored:
            signal.signal(sig, signal.SIG_IGN)


def host_sh(name, cwd):
    """`busybox sh t/sh/NAME.sh` on the host, in cwd: (output, status)."""
    with no_signal_ignored():
        p = subprocess.run(["busybox", "sh", "t/sh/%s.sh" % name], executable=BUSYBOX,
                           cwd=cwd, env=ENV, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=SCRIPT_TIMEOUT)
    return p.stdout.decode("latin-1"), p.returncode


class Session:
    """The osh session the scripts run in, on a machine started from the
    fixture's image; started again from that image after a hang."""

    def __init__(self, module_machines, image, pristine):
        self.module_machines = module_machines
        self.image = image
        self.pristine = pristine
        self.m = None
        self.said = ""

    def boot(self):
        shutil.copyfile(self.pristine, self.image)
        # The log checker proves, at every commit, that the kernel logged
        # each heap byte it wrote: a fork's and an exec's state included.
        self.m = self.module_machines(image=self.image, append="panic=exit logcheck")
        self.m.expect(PROMPT, timeout=STEP)
        assert self.answer("ln bin/busybox bin/sh", STEP) == ""

    def answer(self, line, timeout):
        """Type a line into osh: what follows its echo, up to the next
        prompt, without the kernel's lines (test_linux's reply, with a
        bound of our own); None if no prompt came in time."""
        m = self.m
        start = pos = len(m.output)
        m.send(line + "\n")
        while True:
            try:
                prompt = m.expect(PROMPT, timeout=timeout, start=pos)
            except AssertionError:
                return None
            text = KERNEL_LINE.sub("", m.output[start:prompt.start()])
            at = text.find(line + "\n")
            if at >= 0:
                return text[at + len(line) + 1:]
            pos = prompt.end()

    def run(self, name):
        """Run t/sh/NAME.sh: (output, status), or a string saying why
        there is none (then the machine is started afresh). The kernel's
        own lines while it ran (a call Ferrite lacks, named) are left in
        self.said."""
        start = len(self.m.output)
        out = self.answer("busybox sh t/sh/%s.sh" % name, SCRIPT_TIMEOUT)
        status = self.answer("echo $?", STEP) if out is not None else None
        self.said = "".join(KERNEL_LINE.findall(self.m.output[start:]))
        if status is not None:
            return out, int(status)
        m = self.m
        if m.proc.poll() is not None:
            why = "the machine stopped (QEMU exited %s)" % m.proc.returncode
            report = m.panic_report()
            if report:
                why += "\n" + report
                m.expect_panic = True   # reported here, not again at teardown
        else:
            why = "no prompt within %d s" % (SCRIPT_TIMEOUT * time_scale())
        why += "\n--- the console since the script started:\n" + m.output[start:][-6000:]
        m.close()
        self.boot()
        return why


@pytest.fixture(scope="module")
def lxsh(module_machines, tmp_path_factory):
    """A Session whose image holds busybox and the scripts; the host's
    directory holding the same t/sh/."""
    tmp = tmp_path_factory.mktemp("lxsh")
    image = tmp / "lxsh.nvm"
    pristine = tmp / "pristine.nvm"
    files = tmp / "files"
    (files / "t" / "sh").mkdir(parents=True)
    m = module_machines(image=image, size="128M")
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    imports = [("bin/busybox", BUSYBOX, "code")]
    for name in SCRIPTS:
        host = files / "t" / "sh" / (name + ".sh")
        shutil.copyfile(os.path.join(SH_DIR, name + ".sh"), host)
        imports.append(("t/sh/%s.sh" % name, str(host), "blob"))
    for name, path, kind in imports:
        r = subprocess.run([OBJTOOL, str(image), "import", name, path, "--type", kind],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    shutil.copyfile(image, pristine)
    session = Session(module_machines, image, pristine)
    session.boot()
    return session, str(files)


def diff(want, got):
    return "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                        "host", "ferrite"))


# slow: the module's whole run (about a minute under TCG, the host's runs
# included), so conftest hands its group out first.
@pytest.mark.slow(60)
@pytest.mark.parametrize("name", SCRIPTS)
def test_script_prints_what_it_prints_on_the_host(lxsh, name):
    session, files = lxsh
    want = host_sh(name, files)
    again = host_sh(name, files)
    assert again == want, "%s.sh is not deterministic on the host:\n%s" % (
        name, diff(want[0], again[0]))
    got = session.run(name)
    assert not isinstance(got, str), "%s.sh: %s" % (name, got)
    assert got == want, "%s.sh: status %d in Ferrite, %d on the host\n%s%s" % (
        name, got[1], want[1], diff(want[0], got[0]),
        session.said and "--- the kernel said:\n" + session.said)
