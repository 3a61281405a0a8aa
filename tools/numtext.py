"""numtext.py -- sizes as Ferrite reads and writes them, for the host's Python.

The rules' home is libc/numtext.c, which osh, objtool, the benchmarks and
the kernel share: parse_size reads "<decimal>[KMGT]" (binary units, either
case, nothing else); size_text writes the largest binary unit the bytes
reach, whole when exact ("64 MiB", "100 B"), else to a tenth rounded to
nearest, ties to even ("10.5 KiB"). These are the same rules, in integers
as the C is, for the Python that reads and writes sizes beside them:
tools/run-qemu's --size and --ram, tools/fe's progress line, the gdb
helpers (tools/gdb/fegdb/) and the benchmarks' scripts.
tests/system/test_numtext.py sets each beside the C.
"""

import re

UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
_SIZE = re.compile(r"([0-9]+)([kKmMgGtT]?)")


def parse_size(text):
    """'64M', '1g', '4096' -> bytes (libc's parse_size); ValueError if the
    text is not such a size or it does not fit in 64 bits."""
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"{text!r} is not a size (a number with an optional K, M, G or T)")
    value = int(m.group(1)) << (10 * " kmgt".index(m.group(2).lower() or " "))
    if value >> 64:
        raise ValueError(f"{text!r} is more than 64 bits")
    return value


def size_text(n):
    """Bytes as '64 MiB', '10.5 KiB', '100 B' (libc's size_text)."""
    u = 0
    while u + 1 < len(UNITS) and n >> (10 * u) >= 1024:
        u += 1
    scale = 1 << (10 * u)
    whole, rest = divmod(n, scale)
    if rest == 0:
        return f"{whole} {UNITS[u]}"
    tenths, rest = divmod(rest * 10, scale)
    if rest * 2 > scale or (rest * 2 == scale and tenths % 2):
        tenths += 1
    if tenths == 10:
        whole, tenths = whole + 1, 0
    return f"{whole}.{tenths} {UNITS[u]}"
