"""test_boot.py -- powering Ferrite on: both boot paths, the NVM line for
several sizes and RAM layouts, the error paths, and a kernel write to the NVM
that survives a power cut."""

import os

import pytest

import kvmprobe
from ferrite import EXIT_PANIC, ROOT, Machine, accel

# Under the development machines' nested KVM, CPUID leaf 7 is the host's
# whatever -cpu says, so a CPU without CLFLUSHOPT can only be had under TCG.
tcg_only = pytest.mark.skipif(accel() != "tcg", reason="CPU models are exact only under TCG")

# Up to the end of the line, so a line still arriving never matches in part.
NVM_LINE = r"nvm: (\d+) MiB at (0x[0-9a-f]+) \(NFIT SPA range (\d+)\), flush: (\S+)[^\n]*\n"


def nvm_line(m):
    """Wait for the NVM line; (MiB, base) as numbers."""
    match = m.expect(NVM_LINE)
    return int(match.group(1)), int(match.group(2), 16)


@pytest.mark.parametrize("size,mib", [("64M", 64), ("1G", 1024), ("8G", 8192)])
def test_kernel_boot_finds_nvm_of_each_size(machines, image, size, mib):
    m = machines(image=image, size=size, boot="kernel", modules=False)
    m.expect(r"Ferrite \S+, a persistent-object microkernel \(multiboot1\)")
    assert nvm_line(m) == (mib, 0x100000000)
    m.expect(r"ferrite> ")
    assert os.path.getsize(image) == mib << 20


def test_nvm_moves_above_4g_ram(machines, image):
    m = machines(image=image, size="1G", ram="4G", boot="kernel", modules=False)
    assert nvm_line(m) == (1024, 0x140000000)
    m.expect(r"ferrite> ")


def test_iso_boot_through_grub_multiboot2(machines, image):
    m = machines(image=image, size="1G", boot="iso")
    m.expect(r"Ferrite \S+, a persistent-object microkernel \(multiboot2\)")
    assert nvm_line(m) == (1024, 0x100000000)
    m.expect(r"heap: bin/osh: \d+ bytes")  # the programs come as GRUB modules
    m.expect(r"osh> ")


def test_no_nvdimm_is_a_clear_error(machines):
    m = machines(no_nvm=True, append="panic=exit")
    m.expect(r"nvm: no NVM: no NVDIMM \(the ACPI tables have no NFIT, "
             r"or it lists no persistent-memory range\) and no virtio-pmem device")
    m.expect(r"-device nvdimm")  # says how to start QEMU correctly, either way
    m.expect(r"-device virtio-pmem-pci")
    assert m.wait_exit() == EXIT_PANIC


def test_too_small_nvm_is_a_clear_error(machines, image):
    m = machines(image=image, size="4M", append="panic=exit")
    m.expect(r"nvm: the NVDIMM has 4096 KiB, less than the 16384 KiB Ferrite needs")
    assert m.wait_exit() == EXIT_PANIC


def test_power_on_counter_survives_power_cuts(machines, image):
    for expected in (1, 2, 3):
        m = machines(image=image, size="64M", modules=False)
        m.expect(r"heap: genesis: formatted" if expected == 1 else r"heap: opened")
        m.expect(r"ferrite: power-on %d," % expected)
        m.expect(r"ferrite> ")
        m.power_cut()


def test_acpi_poweroff_from_the_console(machines, image):
    m = machines(image=image, size="64M", modules=False)
    m.expect(r"ferrite> ")
    m.send("help\r")
    m.expect(r"commands: help, uptime, poweroff")
    m.send("poweroff\r")
    m.expect(r"ferrite: powering off")
    assert m.wait_exit() == 0
    again = machines(image=image, size="64M", modules=False)
    again.expect(r"ferrite: power-on 2,")


def test_unknown_command_line_option_is_reported(machines, image):
    m = machines(image=image, size="64M", append="bogus=1 loglevel=6",
                 modules=False)
    m.expect(r"warning: cmdline: unknown option 'bogus' ignored")
    m.expect(r"ferrite> ")


@pytest.mark.parametrize("extra,append,flush", [
    ((), "flush=clflush", "clflush"),
    pytest.param(("--cpu", "qemu64,-clflushopt,-clwb"), "", "clflush", marks=tcg_only),
    (("--persistence", "cpu"), "", "none"),
])
def test_flush_instruction_choice(machines, image, extra, append, flush):
    m = machines(image=image, size="64M", extra=extra, append=append or None)
    match = m.expect(NVM_LINE)
    assert match.group(4) == flush


@tcg_only
def test_flush_override_the_cpu_lacks_falls_back(machines, image):
    m = machines(image=image, size="64M", extra=("--cpu", "qemu64,-clflushopt,-clwb"),
                 append="flush=clwb")
    m.expect(r"warning: nvm: flush=clwb: this CPU has no clwb; using clflush")


def test_kvm_boot(machines, image, tmp_path):
    # Only where KVM is fast, or forced by `make test-kvm` (kvmprobe.py):
    # tests/run-all says which, and why, in a line of its own.
    run, why = kvmprobe.verdict_for_tests()
    if not run:
        pytest.skip(why)
    # One CPU whatever FERRITE_SMP says: under the PVM hypervisor of the
    # development machines guest code runs ~3,000x slower than under TCG,
    # and a two-CPU boot did not reach the prompt in ten minutes there. For
    # the same reason the smallest machine that shows it: a 16 MiB heap and
    # only the shell (genesis writes every module). The shell's banner and
    # prompt are a user program's system calls. (Typed input is not waited
    # for: on those machines its echo took from 45 s to 350 s, the same
    # kernel, from one hour to the next -- PVM's, not Ferrite's, to judge
    # by the spread; TCG answers in milliseconds.)
    modules = tmp_path / "modules"
    modules.mkdir()
    os.symlink(os.path.join(ROOT, "build", "user", "bin", "osh"), modules / "osh")
    m = machines(image=image, size="16M", accel_name="kvm", cpus=1, modules=modules)
    assert nvm_line(m) == (16, 0x100000000)
    m.expect(r"ferrite: genesis complete in \d+ us\n", timeout=600)
    m.expect(r"osh: the object shell; 'help' lists the commands\nosh> ", timeout=600)
