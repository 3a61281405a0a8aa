"""linuxguest.py -- the Linux + busybox guest the benchmarks compare Ferrite
with, on the same QEMU: a Debian kernel, a busybox initramfs made on the
fly, and the modules a virtio-blk disk with ext4 needs.

The kernel is a Debian one: a given path, else the newest /boot/vmlinuz-*,
else the vmlinuz of the package linux-image-amd64 names, fetched once with
`apt-get download` into build/bench/linux/ and unpacked there (never
installed on the host: the benchmarks need the image, not a kernel the
host would boot). From the same package come the few modules in MODULES
and what they depend on (the `depends=` of each one's .modinfo), read
from lib/modules/VERSION beside the kernel, or the host's /lib/modules
for an installed kernel. Debian 12's modules are plain ELF files, which
busybox's insmod loads as they are; a compressed one (.ko.xz, .ko.zst)
is refused with the reason rather than guessed at.

The initramfs is a newc cpio written here: /bin/busybox (Debian's
busybox-static, tools/deps.sh --bench), /dev/console, the caller's files
and its /init. QEMU runs with the machine Ferrite's launcher gives it (pc,
-cpu max under TCG, 256 MiB, serial on stdio, no display, no default
devices, the qboot firmware) but without an NVDIMM.

A DiskGuest is that machine with a program's files in its initramfs and
an ext4 disk on /mnt: a raw image made by the host's mkfs.ext4
(e2fsprogs), on virtio-blk with QEMU's default cache=writeback, so that
the guest's flush is the host's fdatasync.

Used by linux-boot-time (the boot's wall time), run-lxprog-bench (Linux
programs, side by side with Ferrite) and run-peers-bench (a key-value
store, durable on every write).
"""

import glob
import os
import re
import select
import shutil
import stat
import subprocess
import sys
import threading
import time

from benchdata import OUT_DIR

BUSYBOX = "/bin/busybox"
FETCH_DIR = os.path.join(OUT_DIR, "linux")
# a virtio-blk disk with ext4 on it; crc32c_generic is ext4's soft
# dependency (its checksums), which .modinfo's depends= does not name
KICK = 2  # seconds: see Guest.run
MODULES = ("virtio_pci", "virtio_blk", "crc32c_generic", "ext4")
# where the package keeps them, for `tar -x --wildcards`
MODULE_PATTERNS = ("./lib/modules/*/kernel/drivers/virtio/*",
                   "./lib/modules/*/kernel/drivers/block/virtio_blk.ko*",
                   "./lib/modules/*/kernel/fs/ext4/*", "./lib/modules/*/kernel/fs/jbd2/*",
                   "./lib/modules/*/kernel/fs/mbcache.ko*", "./lib/modules/*/kernel/lib/crc16.ko*",
                   "./lib/modules/*/kernel/crypto/crc32c_generic.ko*",
                   "./lib/modules/*/modules.builtin")


# /init of a DiskGuest: busybox's applets, the modules, the disk on /mnt,
# then a shell reading the console
DISK_INIT = b"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /mnt
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.list); do insmod /modules/$m.ko || echo "lxguest: insmod $m failed"; done
mount -t ext4 /dev/vda /mnt || echo "lxguest: no ext4 on /dev/vda"
echo "lxguest: mitigations: $(cd /sys/devices/system/cpu/vulnerabilities && grep -H . meltdown spectre_v2 | tr '\\n' ' ')"
echo "lxguest: ready, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
exec sh -c 'cat /dev/console | sh'
"""
DISK_SIZE = 256 << 20


def cpio_entry(name, mode, data=b"", rdev=(0, 0), ino=1):
    """One newc cpio entry: the header, the name and the data, each padded to 4 bytes."""
    name = name.encode() + b"\0"
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name), 0)
    out = b"070701" + b"".join(b"%08x" % f for f in fields) + name
    out += b"\0" * (-len(out) % 4) + data
    return out + b"\0" * (-len(out) % 4)


def make_initramfs(path, init, files=()):
    """Write the initramfs: /dev/console, /bin/busybox, /init (the bytes
    `init`), and `files`: (name, bytes, executable) each, directories
    made for them."""
    with open(BUSYBOX, "rb") as f:
        busybox = f.read()
    entries = [("dev", stat.S_IFDIR | 0o755, b"", (0, 0)),
               ("dev/console", stat.S_IFCHR | 0o600, b"", (5, 1)),
               ("bin", stat.S_IFDIR | 0o755, b"", (0, 0)),
               ("bin/busybox", stat.S_IFREG | 0o755, busybox, (0, 0)),
               ("init", stat.S_IFREG | 0o755, init, (0, 0))]
    made = {"dev", "bin"}
    for name, data, executable in files:
        parts = name.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in made:
                made.add(d)
                entries.append((d, stat.S_IFDIR | 0o755, b"", (0, 0)))
        entries.append((name, stat.S_IFREG | (0o755 if executable else 0o644), data, (0, 0)))
    with open(path, "wb") as f:
        for ino, (name, mode, data, rdev) in enumerate(entries, 1):
            f.write(cpio_entry(name, mode, data, rdev, ino))
        f.write(cpio_entry("TRAILER!!!", 0, ino=0))


def debian_kernel_package():
    """The linux-image-VERSION package that linux-image-amd64 depends on, or None."""
    out = subprocess.run(["apt-cache", "depends", "linux-image-amd64"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "Depends:" and f[1].startswith("linux-image-"):
            return f[1]
    return None


def fetch_kernel(directory, who):
    """Fetch the Debian kernel package into directory, keep its vmlinuz and
    the modules MODULE_PATTERNS name; the vmlinuz's path, or (None, why)."""
    package = debian_kernel_package()
    if not package:
        return None, "apt-cache knows no linux-image-amd64 (run apt-get update?)"
    os.makedirs(directory, exist_ok=True)
    print("%s: apt-get download %s (not installed)" % (who, package), file=sys.stderr)
    p = subprocess.run(["apt-get", "download", package], cwd=directory,
                       capture_output=True, text=True)
    debs = glob.glob(os.path.join(directory, package + "_*.deb"))
    if p.returncode != 0 or not debs:
        return None, "apt-get download %s failed: %s" % (package, p.stderr.strip()[-200:])
    unpack = subprocess.run("dpkg-deb --fsys-tarfile '%s' | tar -x -C '%s' --wildcards ./boot %s"
                            % (debs[0], directory,
                               " ".join("'%s'" % w for w in MODULE_PATTERNS)),
                            shell=True, capture_output=True, text=True)
    for deb in debs:
        os.unlink(deb)
    kernels = sorted(glob.glob(os.path.join(directory, "boot", "vmlinuz-*")))
    if unpack.returncode != 0 or not kernels:
        return None, "no vmlinuz in %s: %s" % (package, unpack.stderr.strip()[-200:])
    return kernels[-1], None


def find_kernel(given, fetch, who, modules=False):
    """(path of a Debian kernel, where it came from) or (None, why not).
    modules: the kernel must come with its modules (fetched again if an
    earlier fetch kept only the kernel)."""
    if given:
        return (given, "--kernel") if os.path.exists(given) else (None, given + " is missing")
    installed = sorted(glob.glob("/boot/vmlinuz-*"))
    if installed:
        return installed[-1], "installed on the host"
    fetched = sorted(glob.glob(os.path.join(FETCH_DIR, "boot", "vmlinuz-*")))
    if fetched and (not modules or module_dir(fetched[-1])):
        return fetched[-1], "Debian's package, fetched earlier into build/bench/linux"
    if not fetch:
        return None, "no /boot/vmlinuz-* and --no-fetch"
    path, why = fetch_kernel(FETCH_DIR, who)
    return (path, "Debian's package, fetched into build/bench/linux") if path else (None, why)


def kernel_version(kernel):
    """The version in a vmlinuz-VERSION name."""
    return os.path.basename(kernel).split("vmlinuz-", 1)[-1]


def module_dir(kernel):
    """The lib/modules/VERSION directory of a kernel, or None."""
    version = kernel_version(kernel)
    for d in (os.path.join(os.path.dirname(os.path.dirname(kernel)), "lib", "modules", version),
              os.path.join("/lib/modules", version)):
        if os.path.isdir(os.path.join(d, "kernel")):
            return d
    return None


def modinfo_depends(data):
    """The module names a .ko's .modinfo section says it depends on."""
    # ELF64 little-endian: the section headers and their names
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize = int.from_bytes(data[0x3a:0x3c], "little")
    shnum = int.from_bytes(data[0x3c:0x3e], "little")
    shstrndx = int.from_bytes(data[0x3e:0x40], "little")

    def section(i):
        h = data[shoff + i * shentsize:shoff + (i + 1) * shentsize]
        return (int.from_bytes(h[0:4], "little"), int.from_bytes(h[0x18:0x20], "little"),
                int.from_bytes(h[0x20:0x28], "little"))

    _, stroff, _ = section(shstrndx)
    for i in range(shnum):
        name, off, size = section(i)
        if data[stroff + name:data.index(b"\0", stroff + name)] == b".modinfo":
            for field in data[off:off + size].split(b"\0"):
                if field.startswith(b"depends="):
                    return [d for d in field[8:].decode().split(",") if d]
    return []


def modules_in_order(kernel):
    """[(name, bytes)] of MODULES and their dependencies, each after what
    it needs, built-in ones left out; or (None, why not)."""
    directory = module_dir(kernel)
    if not directory:
        return None, "no lib/modules/%s beside the kernel" % kernel_version(kernel)
    paths, builtin = {}, set()
    for path in glob.glob(os.path.join(directory, "kernel", "**", "*.ko*"), recursive=True):
        name = os.path.basename(path).split(".ko")[0].replace("-", "_")
        paths[name] = path
    try:
        with open(os.path.join(directory, "modules.builtin")) as f:
            builtin = {os.path.basename(line.strip())[:-3].replace("-", "_") for line in f}
    except OSError:
        pass
    order = []

    def need(name):
        name = name.replace("-", "_")
        if name in builtin or any(n == name for n, _ in order):
            return None
        if name not in paths:
            return "module %s is not in %s" % (name, directory)
        if not paths[name].endswith(".ko"):
            return "module %s is compressed (%s); busybox's insmod wants it plain" % (
                name, os.path.basename(paths[name]))
        with open(paths[name], "rb") as f:
            data = f.read()
        for dep in modinfo_depends(data):
            why = need(dep)
            if why:
                return why
        order.append((name, data))
        return None

    for m in MODULES:
        why = need(m)
        if why:
            return None, why
    return order, None


def busybox_static():
    """None if busybox-static provides /bin/busybox, else why not."""
    status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "busybox-static"],
                            capture_output=True, text=True).stdout
    if status != "installed" or not os.path.exists(BUSYBOX):
        return "busybox-static is not installed (tools/deps.sh --bench installs it)"
    return None


def qemu_command(kernel, initramfs, accel, extra=(), append=""):
    """QEMU's command line: Ferrite's launcher's machine, with Linux and the initramfs."""
    cpu = "max" if accel == "tcg" else "host,-arch-capabilities"
    return ["qemu-system-x86_64", "-machine", "pc", "-accel", accel, "-cpu", cpu,
            "-m", "256M", "-nodefaults", "-display", "none", "-no-reboot",
            "-serial", "stdio", "-monitor", "none",
            "-bios", "/usr/share/qemu/qboot.rom", "-kernel", kernel,
            "-initrd", initramfs,
            "-append", ("console=ttyS0 quiet panic=-1 " + append).strip()] + list(extra)


def busybox_version():
    """'busybox-static VERSION'."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "busybox-static"],
                         capture_output=True, text=True).stdout
    return "busybox-static " + (out or "unknown")


def qemu_version():
    """QEMU's version line."""
    exe = shutil.which("qemu-system-x86_64")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout if exe else ""
    return out.splitlines()[0].split("version ")[-1] if out else "unknown"


class Guest:
    """A Linux guest running: its console collected as it comes, a line
    typed to its shell and the output up to a marker waited for."""

    def __init__(self, command):
        self.command = command
        self.output = b""
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._serial = 0

    def _read(self):
        """Collect the console until QEMU closes it."""
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
            chunk = os.read(self.proc.stdout.fileno(), 65536) if ready else None
            with self._cond:
                if chunk == b"":
                    self._cond.notify_all()
                    return
                if chunk:
                    self.output += chunk.replace(b"\r", b"")
                    self._cond.notify_all()

    def expect(self, pattern, timeout, start=0, fatal=True):
        """Wait for a regular expression (bytes) in the output from `start`;
        the match (None after timeout if not fatal)."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = regex.search(self.output, start)
                if m:
                    return m
                if not fatal and time.monotonic() > deadline:
                    return None
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    sys.exit("linux guest: no %r after %d s:\n%s" % (
                        pattern, timeout, self.output[-3000:].decode("utf-8", "replace")))
                self._cond.wait(0.5)

    def run(self, line, timeout):
        """Type a shell line; what it printed (text), once a marker after it
        came. The marker is echoed split by quotes, so the echo of the
        typed line never matches it.

        The guest's serial port sends what a program writes to the
        terminal only up to the next interrupt it takes: under TCG, with
        the guest idle, the rest waits until the next byte typed (seen
        with Debian's 6.1 and QEMU 7.2: `uname`'s line came out when the
        next command was typed). So while waiting, an empty line is typed
        every KICK seconds -- an empty command to the shell, and an
        interrupt that sends the rest. Nothing timed waits for it: the
        programs time themselves."""
        self._serial += 1
        start = len(self.output)
        self.send("%s; echo '@@'\"end%d\"\n" % (line, self._serial))
        marker = rb"\n@@end%d\n" % self._serial
        deadline = time.monotonic() + timeout
        while True:
            m = self.expect(marker, KICK, start, fatal=False)
            if m:
                break
            if time.monotonic() > deadline:
                self.expect(marker, 0, start)           # says what came, and exits
            self.send("\n")
        text = self.output[start:m.start()].decode("utf-8", "replace")
        return text.split("\n", 1)[1] if "\n" in text else ""

    def send(self, text):
        """Type text on the guest's console."""
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def close(self):
        """Power the guest off (QEMU killed)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(5)


class DiskGuest(Guest):
    """The guest powered on with `files` ((name, bytes, executable) each) in
    its initramfs, `modules` ([(name, bytes)], modules_in_order's) loaded,
    and a fresh ext4 disk mounted on /mnt; its images in `work`. Exits the
    script (saying why, as `who`) if a module or the disk failed."""

    def __init__(self, kernel, modules, files, work, who, timeout):
        os.makedirs(work, exist_ok=True)
        initramfs = os.path.join(work, "initramfs.cpio")
        disk = os.path.join(work, "ext4.img")
        files = list(files) + [("modules.list", "".join(n + "\n" for n, _ in modules).encode(),
                                False)]
        files += [("modules/%s.ko" % n, ko, False) for n, ko in modules]
        make_initramfs(initramfs, DISK_INIT, files)
        if os.path.exists(disk):
            os.unlink(disk)
        with open(disk, "wb") as f:
            f.truncate(DISK_SIZE)
        r = subprocess.run(["mkfs.ext4", "-q", "-F", disk], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("%s: mkfs.ext4: %s" % (who, r.stderr))
        super().__init__(qemu_command(kernel, initramfs, "tcg", extra=(
            "-drive", "file=%s,if=none,id=disk,format=raw" % disk,
            "-device", "virtio-blk-pci,drive=disk")))
        ready = self.expect(rb"lxguest: ready, clocksource (\S+)\n", timeout)
        failed = re.findall(rb"lxguest: [^\n]*failed|lxguest: no ext4[^\n]*", self.output)
        if failed:
            sys.exit("%s: the Linux guest: %s" % (who, failed))
        self.clocksource = ready.group(1).decode()
        found = re.search(rb"lxguest: mitigations: ([^\n]*)\n", self.output)
        self.mitigations = found.group(1).decode().strip() if found else "unknown"


def disk_guest_missing():
    """None if a DiskGuest can be made here, else why not (busybox-static
    or mkfs.ext4 missing)."""
    return busybox_static() or (None if shutil.which("mkfs.ext4") else
                                "no mkfs.ext4 (e2fsprogs; tools/deps.sh --bench)")
