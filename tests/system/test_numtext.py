"""test_numtext.py -- the host's Python reads and writes sizes as the C does.

libc/numtext.c is how osh, objtool, the benchmarks and the kernel read a
size ("64M": parse_size) and write one ("1.5 MiB": size_text);
tools/numtext.py has the same two rules for run-qemu, fe, the gdb helpers
and the benchmarks' scripts. These tests compile libc/numtext.c for the
host with a small driver (numtext_cli.c) and set the two side by side.
No QEMU.
"""

import os
import random
import subprocess
import sys

import pytest

from ferrite import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import numtext  # noqa: E402


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Run the C driver: cli("text", [n...]) -> its lines."""
    exe = tmp_path_factory.mktemp("numtext") / "numtext_cli"
    cc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                         "-I", os.path.join(ROOT, "include"),
                         "-idirafter", os.path.join(ROOT, "libc", "include"), "-o", str(exe),
                         os.path.join(ROOT, "tests", "system", "numtext_cli.c"),
                         os.path.join(ROOT, "libc", "numtext.c")],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr

    def run(mode, args):
        out = subprocess.run([str(exe), mode] + [str(a) for a in args], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        assert len(out) == len(args)
        return out
    return run


def test_python_and_c_write_every_size_alike(cli):
    rnd = random.Random(1)
    sizes = [0, 1, 1023, 1024, 1025, (1 << 64) - 1]
    sizes += [rnd.getrandbits(rnd.randrange(1, 65)) for _ in range(3000)]
    for shift in (10, 20, 30, 40):
        for k in (1, 3, 1023, 1024, 2047):
            sizes += [(k << shift) + (q << (shift - 2)) + d for q in range(4) for d in (-1, 0, 1)]
    differ = [(n, want, numtext.size_text(n)) for n, want in zip(sizes, cli("text", sizes))
              if numtext.size_text(n) != want]
    assert differ == []
    assert numtext.size_text(1024 + 256) == "1.2 KiB" and numtext.size_text(64 << 20) == "64 MiB"


def python_parse(text):
    """numtext.parse_size's answer as the driver writes the C's."""
    try:
        return str(numtext.parse_size(text))
    except ValueError as e:
        return "range" if "64 bits" in str(e) else "invalid"


def test_python_and_c_read_every_size_alike(cli):
    texts = ["0", "1", "007", "4096", "64M", "64m", "3G", "1T", "2t", "1K", "1k",
             "16777215T", "16777216T", "17179869183G", "17179869184G",
             "18446744073709551615", "18446744073709551616", "99999999999999999999K",
             "", "K", " 1", "1 ", "+1", "-1", "0x10", "1.5K", "1KB", "1KiB", "1B", "1P",
             "1KK", "12abc", "\u0661", "1\u0661"]
    rnd = random.Random(2)
    for _ in range(500):
        texts.append("".join(rnd.choice("0123456789kKmMgGtTx -") for _ in range(rnd.randrange(1, 8))))
    differ = [(t, want, python_parse(t)) for t, want in zip(texts, cli("size", texts))
              if python_parse(t) != want]
    assert differ == []
    assert numtext.parse_size("64M") == 64 << 20
    with pytest.raises(ValueError):
        numtext.parse_size("64 M")
