"""ferrite.py -- driving Ferrite in QEMU from a test, through tools/run-qemu.

A Machine is one power-on: it starts the launcher with the serial console on
a pipe, collects everything the kernel prints, and lets a test wait for a
pattern, type, power-cut (SIGKILL) or wait for QEMU to exit. Every failure
message carries the whole console output, so a failing test explains itself.

A kernel panic on the console fails the test, whatever the test looked
for: the fixtures `machines` and `module_machines` power their machines off
at teardown (power_off_all) and fail the test if a console shows a panic
line, unless the Machine was started with expect_panic=True because the
test makes the kernel panic on purpose; code that drives a Machine itself
calls check_no_panic once it is powered off.
"""

import os
import re
import signal
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_QEMU = os.path.join(ROOT, "tools", "run-qemu")

# Generous: TCG on a loaded 2-core machine can be slow. Never a pass/fail
# criterion on speed, only a bound so a hung kernel fails instead of hanging.
DEFAULT_TIMEOUT = 60
PROMPT = r"osh> "
# A line a program started in the background (`counter ... &`) printed:
# osh draws its prompt when the command has started, so on a loaded machine
# the prompt may come just before any of the program's lines. %s: the line.
BACKGROUND_LINE = r"^(?:osh> )*%s\n"

# QEMU exit statuses from isa-debug-exit (see docs/qemu.md).
EXIT_SELFTEST_PASSED = 33
EXIT_SELFTEST_FAILED = 35
EXIT_PANIC = 37

# The first line panic() prints (kernel/core/panic.c), at the start of a
# line: "panic: REASON", or "panic while panicking: REASON".
PANIC_LINE = re.compile(r"^panic(?: while panicking)?: .*$", re.M)
PANIC_TAIL_LINES = 40       # the console lines a panic report ends with


def accel():
    """The accelerator the tests use: $FERRITE_ACCEL, default tcg."""
    return os.environ.get("FERRITE_ACCEL", "tcg")


def pmem():
    """The NVM's kind unless a test says: $FERRITE_PMEM (nvdimm or virtio),
    default run-qemu's (`FERRITE_PMEM=virtio tests/run-all -k fuzz` runs
    the fuzzers on virtio-pmem; tests that know the NVDIMM's sizes or
    messages then differ)."""
    return os.environ.get("FERRITE_PMEM")


def smp():
    """The CPUs a machine has unless a test says: $FERRITE_SMP, default 1
    (`FERRITE_SMP=2 make test` runs every test on two)."""
    return int(os.environ.get("FERRITE_SMP", "1"))


def time_scale(accel_name=None):
    """How much longer than under TCG a bound may need: $FERRITE_TIME_SCALE,
    else 10 for KVM driven by PVM (a software hypervisor: every VM exit and
    first touch of a page trapped by the outer one, boots and heap work up
    to ~100x slower than under TCG), else 1; times $FERRITE_TESTS_AT_ONCE,
    the tests tests/run-all runs side by side (each has a share of the
    CPUs). accel_name: the accelerator of the machine waited on (default
    accel()). Bounds only catch hangs, so scaling them never lets a wrong
    result pass."""
    at_once = float(os.environ.get("FERRITE_TESTS_AT_ONCE") or 1)
    given = os.environ.get("FERRITE_TIME_SCALE")
    if given:
        return float(given) * at_once
    if (accel_name or accel()) == "kvm" and os.path.isdir("/sys/module/kvm_pvm"):
        return 10.0 * at_once
    return at_once


def kvm_usable():
    """Whether /dev/kvm can be opened read-write."""
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return True


class Machine:
    """One power-on of Ferrite in QEMU."""

    def __init__(self, image=None, size=None, boot="kernel", append=None,
                 ram=None, no_nvm=False, extra=(), qemu_args=(),
                 accel_name=None, modules=None, expect_panic=False, cpus=None):
        """modules: a directory of boot modules, False for none, None for
        the launcher's default (build/user/bin when it exists).
        cpus: the CPU count, None for smp() (1 for a traced machine, whose
        tracer follows one CPU).
        expect_panic: the test makes the kernel panic on purpose, so
        check_no_panic lets a panic line pass."""
        self.expect_panic = expect_panic
        self.accel = accel_name or accel()
        args = [RUN_QEMU, "--boot", boot, "--accel", self.accel]
        if cpus is None:
            cpus = 1 if "--trace-nvm" in extra else smp()
        args += ["--smp", str(cpus)]
        self.cpus = cpus
        if modules is False:
            args.append("--no-modules")
        elif modules is not None:
            args += ["--modules", str(modules)]
        if no_nvm:
            args.append("--no-nvm")
        else:
            args += ["--image", str(image)]
        if size:
            args += ["--size", size]
        if ram:
            args += ["--ram", ram]
        if append:
            args += ["--append", append]
        args += list(extra)
        if pmem() and not no_nvm and "--pmem" not in extra:
            args += ["--pmem", pmem()]
        if qemu_args:
            args += ["--"] + list(qemu_args)
        self.args = args
        self.output = ""
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, cwd=ROOT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        """Collect the console output until QEMU closes it."""
        while True:
            chunk = self.proc.stdout.read1(4096)
            if not chunk:
                break
            text = chunk.decode("utf-8", "replace").replace("\r", "")
            with self._cond:
                self.output += text
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _explain(self, what):
        return "%s\n--- command: %s\n--- console output:\n%s" % (
            what, " ".join(self.args), self.output)

    def expect(self, pattern, timeout=DEFAULT_TIMEOUT, start=0):
        """Wait until the output (from offset `start`) matches `pattern`; the match.

        The output is searched as it arrives, often a byte or two at a
        time, so a "$" in `pattern` (re.M) also matches where the text
        received so far ends, in the middle of a line: a pattern that needs
        a whole line ends in "\\n" instead. (A progress pattern ending in
        "$" once took the first half of sysfuzz's last line for a progress
        line, then waited for the whole line until it timed out.)"""
        regex = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout * time_scale(self.accel)
        with self._cond:
            while True:
                m = regex.search(self.output, start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None
                                 and not self._reader.is_alive()):
                    raise AssertionError(self._explain(
                        "timed out or exited waiting for %r" % pattern))
                self._cond.wait(min(left, 0.5))

    def send(self, text):
        """Type `text` on the serial console."""
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def wait_exit(self, timeout=DEFAULT_TIMEOUT):
        """Wait for QEMU to exit by itself; its exit status."""
        try:
            status = self.proc.wait(timeout * time_scale(self.accel))
        except subprocess.TimeoutExpired:
            self.power_cut()
            raise AssertionError(self._explain("QEMU did not exit"))
        self._reader.join(5)
        return status

    def power_cut(self):
        """SIGKILL QEMU: the machine loses power at this instant."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self._reader.join(5)

    def close(self):
        """Make sure QEMU is gone (used by fixtures on teardown)."""
        self.power_cut()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def panic_report(self):
        """If the console shows a kernel panic and the machine was not
        started with expect_panic: the panic line, the command and the
        console's last lines; else None."""
        found = PANIC_LINE.search(self.output)
        if self.expect_panic or not found:
            return None
        tail = self.output.splitlines()[-PANIC_TAIL_LINES:]
        return ("the kernel panicked: %s\n--- command: %s\n"
                "--- the console's last %d lines:\n%s" % (
                    found.group(0), " ".join(self.args), len(tail),
                    "\n".join(tail)))

    def check_no_panic(self):
        """Raise AssertionError with panic_report's text if there is one."""
        report = self.panic_report()
        if report:
            raise AssertionError(report)


def power_off_all(machines):
    """Power off every machine; the panic reports of those whose console
    shows a kernel panic their test did not expect (a list, maybe empty)."""
    for m in machines:
        m.close()
    return [r for r in (m.panic_report() for m in machines) if r]


def untangle(text, typed=(), interloper=r"\d+\n"):
    """The console text as a background program's lines would read on a
    console of their own. A background program writes each of its lines in
    one call, so its lines are whole, but they may fall anywhere into osh's
    output: right after a prompt, or between any two characters of the echo
    of a line being typed. So every prompt is taken out, and the echo of
    each line in `typed` -- its characters in order, with whole lines
    matching `interloper` (by default a counter's numbers) anywhere between
    them -- is replaced by the interloping lines it held."""
    text = text.replace(PROMPT, "")
    for line in typed:
        gaps = "".join(re.escape(c) + "((?:%s)*)" % interloper
                       for c in line + "\n")
        text = re.sub(gaps, lambda m: "".join(m.groups()), text, count=1)
    return text


def run_launcher(*args, env=None):
    """Run tools/run-qemu to completion (for its refusals); (status, output)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([RUN_QEMU] + list(args), cwd=ROOT, env=full_env,
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def run(m, line, pattern, timeout=DEFAULT_TIMEOUT):
    """Type a command line into osh; wait for pattern, then for the prompt."""
    start = len(m.output)
    m.send(line + "\n")
    match = m.expect(pattern, timeout=timeout, start=start)
    m.expect(PROMPT, timeout=timeout, start=match.end())
    return match


def command(m, line, timeout=DEFAULT_TIMEOUT):
    """Type a command line that prints nothing; wait for the next prompt."""
    start = len(m.output)
    m.send(line + "\n")
    m.expect(PROMPT, timeout=timeout, start=start)


def traced_session(machines, image, trace, commands, kernel=None, extra=(),
                   qemu_args=(), timeout=300, size="32M"):
    """Power on with the NVM tracer (docs/persistence-model.md), run osh
    commands (line, pattern), power off; the console. size: the NVM's
    (--size; larger than the image grows its heap at this power-on)."""
    extra = ["--trace-nvm", str(trace)] + list(extra)
    if kernel:
        extra += ["--kernel", kernel]
    m = machines(image=image, size=size, extra=extra, qemu_args=qemu_args,
                 accel_name="tcg")
    m.expect(PROMPT, timeout=timeout)
    for line, pattern in commands:
        run(m, line, pattern, timeout=timeout)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=timeout) == 0
    return m.output
