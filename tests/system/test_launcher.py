"""test_launcher.py -- tools/run-qemu refuses what it must, clearly."""

import fcntl

from ferrite import run_launcher


def test_size_mismatch_is_refused(image):
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    status, out = run_launcher("--image", str(image), "--size", "1G", "--dry-run")
    assert status == 2
    assert out.startswith("run-qemu: ") and "64" in out, out


def test_locked_image_is_refused(image):
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    with open(image, "rb+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        status, out = run_launcher("--image", str(image), "--boot", "kernel")
    assert status == 2
    assert "in use" in out, out


def test_unusable_kvm_is_refused(image):
    status, out = run_launcher("--image", str(image), "--accel", "kvm",
                               "--boot", "kernel",
                               env={"FERRITE_KVM_DEV": "/nonexistent/kvm"})
    assert status == 2
    assert "kvm" in out.lower() and "/nonexistent/kvm" in out, out


def test_bad_size_is_refused(image):
    status, out = run_launcher("--image", str(image), "--size", "3M", "--dry-run")
    assert status == 2
    assert "2 MiB" in out or "2M" in out, out


def test_dry_run_shows_the_nvdimm(image):
    status, out = run_launcher("--image", str(image), "--size", "64M", "--dry-run")
    assert status == 0, out
    assert "memory-backend-file" in out and "share=on" in out and "nvdimm" in out
    assert "isa-debug-exit" in out
