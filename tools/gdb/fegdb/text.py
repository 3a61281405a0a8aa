"""text.py -- how the helpers write names, sizes, numbers and times.

As osh and objtool write them, so that a helper's output can be set
beside theirs line for line (tests/system/test_gdb.py does). Sizes are
written by tools/numtext.py's size_text, libc's rule in Python.
"""

import datetime


def escaped(name):
    """A name as osh prints it: control bytes and backslashes as \\xNN."""
    out = bytearray()
    for c in name:
        if c < 0x20 or c == 0x7F or c == 0x5C:
            out += f"\\x{c:02x}".encode()
        else:
            out.append(c)
    return out.decode("utf-8", "replace")


def int_text(n):
    """A number: decimal, with hex beside it when it is large."""
    return f"{n} ({n:#x})" if n >= 0x10000 else str(n)


def utc_text(ns):
    """Wall-clock ns since 1970 as osh prints it, 'YYYY-MM-DD HH:MM:SS' (UTC); '-' for 0."""
    if not ns:
        return "-"
    return datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc) \
        .strftime("%Y-%m-%d %H:%M:%S")
