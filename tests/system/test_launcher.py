"""test_launcher.py -- tools/run-qemu refuses what it must, clearly."""

import fcntl

from ferrite import run_launcher


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


def test_modules_become_initrd_path_name_pairs(image, tmp_path):
    mods = tmp_path / "mods"
    mods.mkdir()
    for name in ("osh", "counter"):
        (mods / name).write_bytes(b"x")
    (mods / "subdir").mkdir()  # not a file: not a module
    status, out = run_launcher("--image", str(image), "--boot", "kernel",
                               "--modules", str(mods), "--dry-run")
    assert status == 0, out
    assert "-initrd '%s/counter counter,%s/osh osh'" % (mods, mods) in out, out
    status, out = run_launcher("--image", str(image), "--boot", "kernel",
                               "--no-modules", "--dry-run")
    assert status == 0 and "-initrd" not in out, out


def test_modules_qemu_cannot_carry_are_refused(image, tmp_path):
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "a,b").write_bytes(b"x")
    status, out = run_launcher("--image", str(image), "--boot", "kernel",
                               "--modules", str(mods), "--dry-run")
    assert status == 2 and "comma" in out, out
    for args in (("--boot", "kernel", "--modules", str(tmp_path / "none")),
                 ("--boot", "kernel", "--modules", str(mods), "--no-modules"),
                 ("--boot", "iso", "--modules", str(mods)),
                 ("--boot", "iso", "--no-modules")):
        status, out = run_launcher("--image", str(image), "--dry-run", *args)
        assert status == 2 and out.startswith("run-qemu: "), (args, out)


def test_icount_passes_a_shift_under_tcg_only(image):
    status, out = run_launcher("--image", str(image), "--boot", "kernel",
                               "--icount", "0", "--dry-run")
    assert status == 0, out
    assert " -icount shift=0 -rtc clock=vm " in out, out
    status, out = run_launcher("--image", str(image), "--boot", "kernel", "--dry-run")
    assert status == 0 and "-icount" not in out, out
    status, out = run_launcher("--image", str(image), "--boot", "kernel",
                               "--accel", "kvm", "--icount", "0", "--dry-run",
                               env={"FERRITE_KVM_DEV": "/dev/null"})
    assert status == 2, out
    assert out.startswith("run-qemu: --icount needs --accel tcg"), out
    for bad in ("11", "-1", "two"):
        status, out = run_launcher("--image", str(image), "--icount", bad, "--dry-run")
        assert status == 2 and "--icount" in out and "0 to 10" in out, (bad, out)
