"""test_heap.py -- the kernel opens its persistent heap: genesis on a blank
NVM imports the boot modules as bin/NAME, later power-ons open the heap and
keep them, `import` replaces them, and an NVM the kernel must not write (a
heap of another layout major version, a damaged heap, foreign data) is
refused with a clear message and left byte for byte as it was. The host's
objtool reads what the kernel wrote."""

import hashlib
import os
import re
import subprocess

from ferrite import EXIT_PANIC, ROOT
from heapimage import SB, fix_superblock

OBJTOOL = os.path.join(ROOT, "build", "objtool")


def objtool(image, *args):
    """Run objtool on image; its stdout (it must succeed)."""
    p = subprocess.run([OBJTOOL, str(image)] + list(args), capture_output=True)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p.stdout


def modules_dir(tmp_path, name, files):
    """A directory of boot modules: {file name: bytes}."""
    d = tmp_path / name
    d.mkdir()
    for file_name, data in files.items():
        (d / file_name).write_bytes(data)
    return d


def digest(path):
    """SHA-256 of a whole file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def boot_and_settle(machines, image, **kwargs):
    """Power on, wait for the console, cut the power; the machine."""
    m = machines(image=image, **kwargs)
    m.expect(r"ferrite> ")
    m.power_cut()
    return m


def refused_untouched(machines, image, message):
    """The kernel says `message`, halts (exit 37 with panic=exit), and the
    image is byte for byte what it was."""
    before = digest(image)
    m = machines(image=image, append="panic=exit", modules=False)
    m.expect(message)
    assert m.wait_exit() == EXIT_PANIC, m.output
    assert "ferrite> " not in m.output
    assert digest(image) == before
    return m


TOOL = os.urandom(23456)
HELLO = b"hello, ferrite\n"


def test_genesis_imports_the_modules(machines, image, tmp_path):
    mods = modules_dir(tmp_path, "mods", {"tool": TOOL, "hello": HELLO})
    m = boot_and_settle(machines, image, size="64M", modules=mods)
    m.expect(r"heap: genesis: formatted 64 MiB \(log 4096 KiB\)")
    # Modules go in name order (the launcher sorts them).
    m.expect(r"heap: bin/hello: %d bytes\nheap: bin/tool: 23456 bytes\n" % len(HELLO))
    m.expect(r"ferrite: power-on 1,")
    assert objtool(image, "ls").decode().split() == ["bin/hello", "bin/tool"]
    assert objtool(image, "cat", "bin/tool") == TOOL
    assert objtool(image, "cat", "bin/hello") == HELLO
    assert b"type:      code" in objtool(image, "stat", "bin/tool")
    info = objtool(image, "info").decode()
    # [0] the kernel's root object, [1] the machine's clock rates (time.c),
    # [2] the rescue reserve (epoch/rescue.c), [3] the host link (hostlink.c)
    root = re.search(r"app roots: +\[0\] #(\d+) kernel, \[1\] #\d+ kernel, "
                     r"\[2\] #\d+ anon, \[3\] #\d+ kernel\n", info)
    assert root, info
    assert b"type:      kernel" in objtool(image, "stat", "#" + root.group(1))
    assert re.search(r"layout version: +2\.3\n", info)
    assert objtool(image, "check").startswith(b"check: clean")


def test_later_power_ons_open_the_heap_and_keep_the_programs(machines, image, tmp_path):
    mods = modules_dir(tmp_path, "mods", {"tool": TOOL})
    boot_and_settle(machines, image, size="64M", modules=mods)
    other = modules_dir(tmp_path, "other", {"tool": b"not this one", "new": b"nor this"})
    m = boot_and_settle(machines, image, modules=other)
    m.expect(r"heap: opened, epoch \d+, rolled back 0 records")
    m.expect(r"heap: 2 boot modules ignored")
    m.expect(r"ferrite: power-on 2,")
    assert "heap: bin/" not in m.output
    assert objtool(image, "ls").decode().split() == ["bin/tool"]
    assert objtool(image, "cat", "bin/tool") == TOOL


def test_import_replaces_the_programs(machines, image, tmp_path):
    mods = modules_dir(tmp_path, "mods", {"tool": TOOL, "hello": HELLO})
    boot_and_settle(machines, image, size="64M", modules=mods)
    objects = int(re.search(rb"objects: +(\d+)", objtool(image, "info")).group(1))
    new_tool = os.urandom(70000)
    newer = modules_dir(tmp_path, "newer", {"tool": new_tool, "extra": b"x"})
    m = boot_and_settle(machines, image, modules=newer, append="import")
    m.expect(r"heap: bin/extra: 1 bytes")
    m.expect(r"heap: import: bin/tool replaced \(70000 bytes\)")
    m.expect(r"ferrite: power-on 2,")
    assert objtool(image, "ls").decode().split() == ["bin/extra", "bin/hello", "bin/tool"]
    assert objtool(image, "cat", "bin/tool") == new_tool
    assert objtool(image, "cat", "bin/hello") == HELLO
    # The old bin/tool had no other reference: it is gone, not leaked.
    after = int(re.search(rb"objects: +(\d+)", objtool(image, "info")).group(1))
    assert after == objects + 1
    assert objtool(image, "check").startswith(b"check: clean")


def test_module_names_from_the_command_line(machines, image, tmp_path):
    a = tmp_path / "dir" / "single"
    b = tmp_path / "dir" / "path-ignored"
    c = tmp_path / "dir" / ("n" * 33)
    a.parent.mkdir()
    for path in (a, b, c):
        path.write_bytes(path.name.encode())
    # One word: its basename; several words: the second; too long: refused.
    initrd = f"{a},{b} second third,{c},{a} bad/name"
    m = boot_and_settle(machines, image, size="64M", modules=False,
                        qemu_args=("-initrd", initrd))
    m.expect(r"heap: bin/single: 6 bytes")
    m.expect(r"heap: bin/second: 12 bytes")
    m.expect(r"warning: heap: module '\S+/n{33}': no valid program name")
    m.expect(r"warning: heap: module '\S+ bad/name': no valid program name")
    assert objtool(image, "ls").decode().split() == ["bin/second", "bin/single"]


def test_genesis_finishes_on_a_heap_objtool_made(machines, image, tmp_path):
    subprocess.run([OBJTOOL, "create", "--size", "64M", str(image)], check=True,
                   capture_output=True)
    motd = tmp_path / "motd"
    motd.write_bytes(b"welcome\n")
    objtool(image, "import", "etc/motd", str(motd))
    mods = modules_dir(tmp_path, "mods", {"tool": TOOL})
    m = boot_and_settle(machines, image, modules=mods)
    m.expect(r"heap: opened, epoch \d+, rolled back 0 records")
    m.expect(r"heap: genesis: the heap has no kernel root object yet")
    m.expect(r"heap: bin/tool: 23456 bytes")
    m.expect(r"ferrite: power-on 1,")
    assert objtool(image, "ls").decode().split() == ["bin/tool", "etc/motd"]
    assert re.search(rb"app roots: +\[0\] #\d+ kernel", objtool(image, "info"))
    assert objtool(image, "check").startswith(b"check: clean")


def test_another_layout_major_version_is_left_untouched(machines, image, tmp_path):
    boot_and_settle(machines, image, size="64M", modules=False)
    # A whole, valid layout 3.0 superblock: the version and its checksum.
    with open(image, "r+b") as f:
        sb = bytearray(f.read(SB.size))
        SB.put(sb, 0, "layout_major", 3)
        SB.put(sb, 0, "layout_minor", 0)
        fix_superblock(sb)
        f.seek(0)
        f.write(sb)
    refused_untouched(machines, image,
                      r"heap: the NVM holds a Ferrite heap of layout version 3\.0; "
                      r"this kernel reads layouts 1\.x to 2\.x \(it writes 2\.3\)\n"
                      r"  not touching it")


def test_a_damaged_heap_is_left_untouched(machines, image):
    boot_and_settle(machines, image, size="64M", modules=False)
    with open(image, "r+b") as f:
        f.seek(SB.offset("heap_id"))
        byte = f.read(1)[0]
        f.seek(SB.offset("heap_id"))
        f.write(bytes([byte ^ 1]))
    refused_untouched(machines, image,
                      r"heap: the Ferrite heap on the NVM is damaged: .*\n"
                      r"  not touching it: `objtool IMAGE check`")


def test_foreign_data_is_left_untouched(machines, image):
    with open(image, "wb") as f:
        f.write(bytes(range(256)) * 16)
        f.truncate(64 << 20)
    refused_untouched(machines, image,
                      r"heap: the NVM holds data that is not a Ferrite heap")
