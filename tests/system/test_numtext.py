"""test_numtext.py -- the host's Python writes sizes as the C does.

libc/numtext.c's size_text is how osh, objtool and the kernel's libc
write a size; tools/numtext.py is the same rule for tools/fe and the gdb
helpers. This test compiles libc/numtext.c for the host with a small
driver (size_text.c) and sets both side by side over every magnitude and
each unit's ties and edges. No QEMU.
"""

import os
import random
import subprocess
import sys

from ferrite import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import numtext  # noqa: E402


def test_python_and_c_write_every_size_alike(tmp_path):
    exe = tmp_path / "size_text"
    cc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                         "-I", os.path.join(ROOT, "include"),
                         "-idirafter", os.path.join(ROOT, "libc", "include"), "-o", str(exe),
                         os.path.join(ROOT, "tests", "system", "size_text.c"),
                         os.path.join(ROOT, "libc", "numtext.c")],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    rnd = random.Random(1)
    sizes = [0, 1, 1023, 1024, 1025, (1 << 64) - 1]
    sizes += [rnd.getrandbits(rnd.randrange(1, 65)) for _ in range(3000)]
    for shift in (10, 20, 30, 40):
        for k in (1, 3, 1023, 1024, 2047):
            sizes += [(k << shift) + (q << (shift - 2)) + d for q in range(4) for d in (-1, 0, 1)]
    c = subprocess.run([str(exe)] + [str(n) for n in sizes], capture_output=True,
                       text=True, check=True).stdout.splitlines()
    assert len(c) == len(sizes)
    differ = [(n, want, numtext.size_text(n)) for n, want in zip(sizes, c)
              if numtext.size_text(n) != want]
    assert differ == []
    assert numtext.size_text(1024 + 256) == "1.2 KiB" and numtext.size_text(64 << 20) == "64 MiB"
