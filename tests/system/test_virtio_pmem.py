"""test_virtio_pmem.py -- the heap on a virtio-pmem device
(docs/virtio-pmem.md): genesis on it, a program that carries on across a
power cut, objtool's check of the image; a machine with both an NVDIMM
and a virtio-pmem device says which it uses and why (nvm= on the command
line, the heap found on one, the NVDIMM by default, a device that is not
usable); the launcher's refusals; and the NVM tracer on the virtio-pmem
region, replayed byte for byte.

A device whose configuration is wrong (a region not page aligned, over
RAM) cannot be had from QEMU, so virtio_pmem.c's checks of it are not
driven here.
"""

import os
import re
import subprocess
import sys

from ferrite import (BACKGROUND_LINE, EXIT_PANIC, EXIT_SELFTEST_PASSED, PROMPT,
                     ROOT, run_launcher, traced_session)

sys.path.insert(0, os.path.join(ROOT, "tools", "nvmtrace"))
import nvmtrace  # noqa: E402

OBJTOOL = os.path.join(ROOT, "build", "objtool")
TIMEOUT = 120
VIRTIO = ("--pmem", "virtio")
VIRTIO_LINE = (r"nvm: (\d+) MiB at (0x[0-9a-f]+) \(virtio-pmem 00:[0-9a-f]{2}\.\d\), "
               r"flush: requests\n")
FLUSH_LINE = r"virtio-pmem: a flush took (\d+) us\n"
CHOICE = r"nvm: an NVDIMM and a virtio-pmem device: using the %s: %s"
KERNEL_PROMPT = r"ferrite> "


def objtool_check(image):
    """objtool IMAGE check must find the image clean."""
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("check: clean"), p.stdout + p.stderr


def test_a_program_carries_on_across_a_power_cut(machines, image):
    m = machines(image=image, size="32M", extra=VIRTIO)
    assert m.expect(VIRTIO_LINE, timeout=TIMEOUT).groups() == ("32", "0x100000000")
    # the device holds the heap, its base copy and the journal (durable.c)
    m.expect(r"journal: new: heap 13 MiB, base copy 13 MiB, journal 4100 KiB\n",
             timeout=TIMEOUT)
    m.expect(r"heap: genesis: formatted 13 MiB", timeout=TIMEOUT)
    m.expect(FLUSH_LINE, timeout=TIMEOUT)
    m.expect(PROMPT, timeout=TIMEOUT)
    m.send("counter 1000 20 &\n")
    m.expect(BACKGROUND_LINE % 1010, timeout=TIMEOUT)
    m.power_cut()
    last = max(int(n) for n in re.findall(r"^(?:osh> )*(\d{4})$", m.output, re.M))

    m = machines(image=image, extra=VIRTIO)
    m.expect(VIRTIO_LINE, timeout=TIMEOUT)
    m.expect(r"ferrite: resumed at epoch \d+", timeout=TIMEOUT)
    m.expect(FLUSH_LINE, timeout=TIMEOUT)
    m.expect(BACKGROUND_LINE % (last + 10), timeout=TIMEOUT)  # the counter went on
    assert "heap: genesis" not in m.output
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    objtool_check(image)


def test_the_flush_requests_keep_their_contract(machines, image):
    # selftest=virtio (virtio_pmem_selftest.c): a second start while one is
    # in flight is refused, a poll says done once, the queue goes round
    # several times, the counters count.
    m = machines(image=image, size="16M", modules=False, extra=VIRTIO,
                 append="selftest=virtio panic=exit")
    assert m.wait_exit(timeout=TIMEOUT) == EXIT_SELFTEST_PASSED, m.output
    assert re.search(r"selftest: 33 flushes, the last \d+ us", m.output)
    assert "selftest: 1 passed, 0 failed" in m.output


def both(machines, nvdimm, virtio, append=None, size="16M"):
    """Power on a machine with an NVDIMM on `nvdimm` and a virtio-pmem
    device on `virtio`, as far as the kernel's console; its output."""
    m = machines(image=nvdimm, size=size, modules=False, append=append,
                 extra=("--pmem", "both", "--image2", str(virtio)))
    m.expect(KERNEL_PROMPT, timeout=TIMEOUT)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0
    return m.output


def test_with_both_devices_the_kernel_says_which_and_why(machines, tmp_path):
    a, b, c, d = (tmp_path / name for name in ("a.nvm", "b.nvm", "c.nvm", "d.nvm"))
    out = both(machines, a, b, append="nvm=virtio")
    assert re.search(CHOICE % ("virtio-pmem device", "as nvm=virtio asks"), out)
    assert re.search(VIRTIO_LINE, out) and "heap: genesis" in out

    out = both(machines, a, b)                  # the heap is on b alone
    assert re.search(CHOICE % ("virtio-pmem device",
                               "it holds a Ferrite heap, the NVDIMM does not"), out)
    assert "heap: opened" in out

    out = both(machines, c, d)                  # two blank images
    assert re.search(CHOICE % ("NVDIMM", "neither holds a Ferrite heap, and the "
                                         "NVDIMM is the default"), out)
    assert re.search(r"nvm: 16 MiB at 0x100000000 \(NFIT SPA range", out)

    out = both(machines, c, b)                  # a heap on each
    assert re.search(CHOICE % ("NVDIMM", "both hold a Ferrite heap, and the NVDIMM "
                                         "is the default"), out)
    assert "heap: opened" in out

    out = both(machines, c, b, append="nvm=nvdimm")
    assert re.search(CHOICE % ("NVDIMM", "as nvm=nvdimm asks"), out)
    for image in (b, c):
        objtool_check(image)


def test_a_device_that_is_not_usable_is_said_and_the_other_used(machines, tmp_path):
    small, large = tmp_path / "small.nvm", tmp_path / "large.nvm"
    for path, size in ((small, 16 << 20), (large, 32 << 20)):
        path.write_bytes(b"")
        os.truncate(path, size)       # blank images of their own sizes
    m = machines(image=small, modules=False, append="nvm.min=32M",
                 extra=("--pmem", "both", "--image2", str(large)))
    m.expect(r"nvm: the NVDIMM has 16384 KiB, less than the 32768 KiB Ferrite needs\n")
    m.expect(r"warning: nvm: the NVDIMM is not usable \(see above\); using the "
             r"virtio-pmem device\n")
    m.expect(VIRTIO_LINE)
    m.expect(KERNEL_PROMPT, timeout=TIMEOUT)


def test_nvm_virtio_without_the_device_stops(machines, image):
    m = machines(image=image, size="16M", modules=False, append="nvm=virtio panic=exit")
    m.expect(r"nvm: nvm=virtio, but there is no usable virtio-pmem device; "
             r"not using another device\n")
    assert m.wait_exit() == EXIT_PANIC
    assert "heap: genesis" not in m.output


def test_the_launcher_refuses_what_does_not_fit(tmp_path):
    image = str(tmp_path / "r.nvm")
    for args, reason in [
        (("--pmem", "virtio", "--persistence", "cpu"), "--persistence is the NFIT's"),
        (("--image2", image + "2"), "--image2 is the virtio-pmem device's image with --pmem both"),
        (("--pmem", "both", "--image2", image), "each device needs its own image"),
        (("--pmem", "both", "--boot", "kernel", "--trace-nvm", image + ".trace"),
         "--trace-nvm traces one NVM image"),
    ]:
        status, out = run_launcher("--dry-run", "--image", image, *args)
        assert status == 2 and reason in out, (args, out)
    for args, reason in [
        (("--no-nvm", "--pmem", "virtio"), "--pmem needs an NVM; drop --no-nvm"),
        (("--no-nvm", "--image2", image), "--image2 needs an NVM; drop --no-nvm"),
    ]:
        status, out = run_launcher("--dry-run", *args)
        assert status == 2 and reason in out, (args, out)
    status, out = run_launcher("--dry-run", "--image", image, "--pmem", "both")
    assert status == 0, out
    assert "-device nvdimm,id=nv0,memdev=nvm0" in out
    assert "mem-path=%s.virtio," % image in out
    assert "-device virtio-pmem-pci,id=pmem0,memdev=nvm1" in out


def test_a_traced_run_on_virtio_pmem_replays_to_the_final_image(machines, tmp_path):
    image, trace = tmp_path / "t.nvm", tmp_path / "t.trace"
    out = traced_session(machines, image, trace,
                         [("write notes/a on virtio-pmem", r""),
                          ("sync", r"sync: epoch \d+ committed\n")],
                         extra=list(VIRTIO))
    assert re.search(VIRTIO_LINE, out).group(2) == "0x100000000"  # where the plugin was told
    s = nvmtrace.summary(trace)
    assert s["unattributed"] == 0
    assert s["counts"][("store", "cached")] > 10000
    assert not any(kind == "write-back" for kind, _ in s["counts"])  # flush: none
    assert s["counts"][("kernel event", "pmem flush begins")] >= 1    # power-on's
    assert s["counts"][("kernel event", "pmem flush ends")] >= 1
    with open(image, "rb") as f:
        final = f.read()
    assert nvmtrace.replay(trace) == final
    objtool_check(image)
