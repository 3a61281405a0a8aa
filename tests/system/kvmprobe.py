"""kvmprobe.py -- whether `make test` boots Ferrite under KVM, and why not.

test_boot.py's test_kvm_boot is a smoke test of the KVM path: the launcher's
KVM command line, qboot, a genesis and osh's banner. Under hardware
virtualisation it takes a second. But /dev/kvm is not always hardware: on
some machines it is PVM, a software hypervisor, under which guest code runs
~3,000 times slower than under TCG (a 16 MiB genesis took 5.6 s where TCG
takes 0.06 s, and osh's banner did not come in ten minutes). `make test`
must not depend on how fast a hypervisor happens to be, so it runs the KVM
boot only where KVM is fast:

- /dev/kvm opens read-write;
- it is not PVM (/sys/module/kvm_pvm);
- a speed probe passes: the same small genesis (16 MiB, no programs, one
  CPU), launched under TCG and then under KVM; KVM must reach the kernel's
  "genesis complete" line within PROBE_FACTOR times TCG's wall time plus
  PROBE_SLACK seconds (hardware KVM is faster than TCG, not slower; the
  slack covers QEMU's own start). The KVM probe is cut off at that bound,
  so a slow accelerator costs the probe no more than it.

Otherwise the test is skipped, and tests/run-all says why in a line of its
own. `make test-kvm` runs it whatever the probe says
(FERRITE_KVM_BOOT=force). tests/run-all decides once and hands the verdict
to pytest (and to each of its workers) in FERRITE_KVM_BOOT and
FERRITE_KVM_BOOT_WHY; pytest run by hand decides for itself.
"""

import os
import select
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_QEMU = os.path.join(ROOT, "tools", "run-qemu")

KVM_DEV = "/dev/kvm"
PVM_MODULE = "/sys/module/kvm_pvm"
PROBE_FACTOR = 2.0
PROBE_SLACK = 1.0
# TCG's probe is the yardstick; it only waits this long for a hung one.
TCG_LIMIT = 120.0
GENESIS = b"ferrite: genesis complete in "

VERDICT = "FERRITE_KVM_BOOT"          # run, skip or force
WHY = "FERRITE_KVM_BOOT_WHY"


def kvm_device_problem(dev=KVM_DEV):
    """Why the KVM device cannot be used, or None if it opens read-write."""
    try:
        os.close(os.open(dev, os.O_RDWR | os.O_CLOEXEC))
    except OSError as e:
        return "%s: %s" % (dev, e.strerror)
    return None


def is_pvm():
    """Whether KVM here is PVM, a software hypervisor."""
    return os.path.isdir(PVM_MODULE)


def probe(accel, limit):
    """Wall seconds from launching a 16 MiB genesis (one CPU, no programs)
    under `accel` to the kernel's "genesis complete" line, or None if it
    did not come within `limit` seconds (or QEMU stopped first)."""
    with tempfile.TemporaryDirectory(prefix="ferrite-kvmprobe-") as tmp:
        args = [RUN_QEMU, "--boot", "kernel", "--accel", accel, "--smp", "1",
                "--image", os.path.join(tmp, "probe.nvm"), "--size", "16M",
                "--no-modules", "--no-link"]
        start = time.monotonic()
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                cwd=ROOT)
        try:
            seen = b""
            while GENESIS not in seen:
                left = start + limit - time.monotonic()
                if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                    return None
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    return None
                seen += chunk
            return time.monotonic() - start
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


def decide(forced, device_problem, pvm, tcg_seconds, kvm_seconds):
    """(run, why) for the KVM boot, from what was found: forced (make
    test-kvm), the KVM device's problem (None: usable), whether it is PVM,
    and the probe's seconds under TCG and KVM (None: did not finish; KVM's
    is not looked at unless the device is usable and not PVM)."""
    if forced:
        return True, "forced (make test-kvm), whatever the probe says"
    if device_problem:
        return False, "no usable KVM (%s)" % device_problem
    if pvm:
        return False, ("/dev/kvm is PVM, a software hypervisor ~3,000x slower "
                       "than TCG")
    if tcg_seconds is None:
        return False, "the speed probe did not finish under TCG"
    bound = probe_bound(tcg_seconds)
    if kvm_seconds is None or kvm_seconds > bound:
        return False, ("KVM failed the speed probe: a 16 MiB genesis took %s, "
                       "TCG %.2f s (KVM may take %.2f s)" % (
                           "over %.2f s" % bound if kvm_seconds is None
                           else "%.2f s" % kvm_seconds, tcg_seconds, bound))
    return True, ("KVM passed the speed probe: a 16 MiB genesis in %.2f s, "
                  "TCG %.2f s" % (kvm_seconds, tcg_seconds))


def probe_bound(tcg_seconds):
    """The most seconds KVM may take for the probe TCG did in tcg_seconds."""
    return PROBE_FACTOR * tcg_seconds + PROBE_SLACK


def verdict(forced=False):
    """(run, why): look at this machine, probing only what must be."""
    if forced:
        return decide(True, None, False, None, None)
    problem = kvm_device_problem()
    pvm = is_pvm()
    tcg = kvm = None
    if not problem and not pvm:
        tcg = probe("tcg", TCG_LIMIT)
        if tcg is not None:
            kvm = probe("kvm", probe_bound(tcg))
    return decide(False, problem, pvm, tcg, kvm)


def verdict_for_tests():
    """(run, why) as tests/run-all decided it (FERRITE_KVM_BOOT), else
    decided now."""
    given = os.environ.get(VERDICT)
    if given == "force":
        return verdict(forced=True)
    if given in ("run", "skip"):
        return given == "run", os.environ.get(WHY, "decided by tests/run-all")
    return verdict()


def report_line(run, why):
    """The line tests/run-all prints about the KVM boot."""
    if run:
        return "kvm: test_kvm_boot runs: %s" % why
    return ("kvm: test_kvm_boot skipped: %s (make test-kvm runs it anyway)"
            % why)
