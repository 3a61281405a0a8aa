"""numtext.py -- sizes written as Ferrite writes them, for the host's Python.

The rule's home is libc/numtext.c's size_text, which osh, objtool and the
kernel's libc share: the largest binary unit the bytes reach, whole when
exact ("64 MiB", "100 B"), else to a tenth rounded to nearest, ties to even
("10.5 KiB"). This is the same rule, in integers as the C is, for the
Python that writes sizes beside theirs: tools/fe's progress line and the
gdb helpers (tools/gdb/fegdb/). tests/system/test_numtext.py sets the two
side by side.
"""

UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


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
