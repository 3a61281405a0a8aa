"""test_selftest.py -- the in-kernel self-tests, and the exception dump."""

import re

import pytest

from ferrite import EXIT_PANIC, EXIT_SELFTEST_PASSED


def test_kernel_selftests_pass(machines, image):
    m = machines(image=image, size="64M", append="selftest panic=exit")
    status = m.wait_exit(timeout=120)
    summary = re.search(r"selftest: (\d+) passed, (\d+) failed", m.output)
    assert summary, m.output
    assert int(summary.group(2)) == 0, m.output
    assert int(summary.group(1)) >= 15, m.output
    assert status == EXIT_SELFTEST_PASSED, m.output


def test_selftest_prefix_selects_tests(machines, image):
    m = machines(image=image, size="64M", append="selftest=frame panic=exit")
    assert m.wait_exit() == EXIT_SELFTEST_PASSED, m.output
    ran = re.findall(r"selftest: ok   (\S+)", m.output)
    assert ran and all(name.startswith("frame") for name in ran), m.output


@pytest.mark.parametrize("kind,vector,words", [
    ("pf", 14, r"page fault at 0x0000000000000010: write, not present, kernel mode"),
    ("ud", 6, r"#UD invalid opcode"),
    ("de", 0, r"#DE divide error"),
    ("gp", 13, r"#GP general protection"),
])
def test_cpu_exception_prints_the_dump(machines, image, kind, vector, words):
    m = machines(image=image, size="64M", append="crash=%s panic=exit" % kind,
                 expect_panic=True)
    assert m.wait_exit() == EXIT_PANIC, m.output
    m.expect(r"CPU exception %d \(.*\), error code 0x[0-9a-f]+|CPU exception %d \(.*\), error code 0"
             % (vector, vector))
    m.expect(words)
    m.expect(r"rip [0-9a-f]{16} cs 0008")
    m.expect(r"cr0 [0-9a-f]{16} cr2 [0-9a-f]{16}")
    # The backtrace names the kernel's own code (higher half).
    bt = m.expect(r"backtrace:\n((?:  0xffffffff8[0-9a-f]+\n)+)")
    assert len(bt.group(1).splitlines()) >= 2, m.output
    m.expect(r"panic: CPU exception %d" % vector)


def test_panic_prints_reason_registers_and_backtrace(machines, image):
    m = machines(image=image, size="64M", append="crash=panic panic=exit",
                 expect_panic=True)
    assert m.wait_exit() == EXIT_PANIC, m.output
    m.expect(r"panic: crash=panic on the command line\n")
    m.expect(r"rip ffffffff8[0-9a-f]{7} cs 0008 rflags [0-9a-f]{16}\n")
    m.expect(r"rax [0-9a-f]{16} rbx [0-9a-f]{16} rcx [0-9a-f]{16}\n")
    bt = m.expect(r"backtrace:\n((?:  0xffffffff8[0-9a-f]+\n)+)")
    assert len(bt.group(1).splitlines()) >= 2, m.output
    m.expect(r"panic: system halted")


def test_iso_boot_carries_the_command_line(machines, image):
    """GRUB (multiboot2) passes --append through the launcher's cached ISO."""
    m = machines(image=image, size="64M", boot="iso", append="selftest=cmdline panic=exit")
    assert m.wait_exit(timeout=120) == EXIT_SELFTEST_PASSED, m.output
    m.expect(r"\(multiboot2\)\ncmdline: selftest=cmdline panic=exit\n")
    m.expect(r"selftest: 1 passed, 0 failed")
