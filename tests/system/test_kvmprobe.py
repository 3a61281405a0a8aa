"""test_kvmprobe.py -- the decision whether `make test` boots under KVM
(kvmprobe.py), from made-up findings, and the probe itself under TCG.

No test here needs KVM: the decision is a function of what was found (the
device, PVM, the probe's seconds), and the probe is the same code under
either accelerator.
"""

import kvmprobe
from kvmprobe import decide, probe_bound


def test_forced_runs_whatever_was_found():
    # make test-kvm: even without a device, the test runs (and then fails
    # with the launcher's reason, rather than being skipped in silence).
    assert decide(True, "/dev/kvm: No such file or directory", True, None, None)[0]
    run, why = decide(True, None, False, 1.0, 100.0)
    assert run and "make test-kvm" in why


def test_no_usable_device_is_skipped_with_its_reason():
    run, why = decide(False, "/dev/kvm: Permission denied", False, None, None)
    assert not run and "/dev/kvm: Permission denied" in why


def test_pvm_is_skipped_without_a_probe():
    run, why = decide(False, None, True, None, None)
    assert not run and "PVM" in why and "software hypervisor" in why


def test_a_slow_accelerator_is_skipped():
    # PVM's figures without its module: a genesis TCG does in 0.3 s took
    # 5.6 s; and one that never finished within the bound.
    run, why = decide(False, None, False, 0.3, 5.6)
    assert not run and "5.60 s" in why and "0.30 s" in why
    run, why = decide(False, None, False, 0.3, None)
    assert not run and "over %.2f s" % probe_bound(0.3) in why


def test_a_fast_accelerator_runs():
    run, why = decide(False, None, False, 0.4, 0.15)
    assert run and "0.15 s" in why
    # at the bound still runs, just past it does not
    bound = probe_bound(0.4)
    assert decide(False, None, False, 0.4, bound)[0]
    assert not decide(False, None, False, 0.4, bound + 0.01)[0]


def test_tcg_not_finishing_is_skipped():
    run, why = decide(False, None, False, None, None)
    assert not run and "TCG" in why


def test_the_verdict_given_by_run_all_is_taken(monkeypatch):
    monkeypatch.setenv(kvmprobe.VERDICT, "skip")
    monkeypatch.setenv(kvmprobe.WHY, "because")
    assert kvmprobe.verdict_for_tests() == (False, "because")
    monkeypatch.setenv(kvmprobe.VERDICT, "run")
    assert kvmprobe.verdict_for_tests()[0]
    monkeypatch.setenv(kvmprobe.VERDICT, "force")
    assert kvmprobe.verdict_for_tests()[0]


def test_the_report_line_says_why_and_how_to_force():
    line = kvmprobe.report_line(False, "no usable KVM (/dev/kvm: gone)")
    assert line.startswith("kvm: ") and "skipped" in line and "gone" in line
    assert "make test-kvm" in line
    assert "runs" in kvmprobe.report_line(True, "fast")


def test_the_probe_times_a_genesis_under_tcg():
    # The probe's machinery, on the accelerator every machine has: a
    # genesis is timed; with no time at all it does not finish.
    seconds = kvmprobe.probe("tcg", 120)
    assert seconds is not None and 0 < seconds < 120
    assert kvmprobe.probe("tcg", 0.0) is None
