"""dmesg.py -- what the kernel said: its message ring (fe-dmesg) and why
it panicked (fe-epitaph).

printk keeps the last bytes it printed in `printk_ring`, `printk_ring_head`
counting every byte ever written (kernel/core/printk.c), so the ring can
be read in order even after it wrapped, and during power-on it holds the
lines not sent yet. panic() stores its reason in `panic_epitaph`
(kernel/core/panic.c) before anything else, so a debugger has it as soon
as the panic began.
"""

import gdb

from .commands import FeCommand
from .target import FeError, array_bytes, cstring, read, symbol


class FeDmesg(FeCommand):
    """fe-dmesg [LINES]: the kernel's message ring (printk_ring), oldest
    first: what the console printed, and during power-on what it has not
    printed yet; the last LINES lines only, if given."""

    def __init__(self):
        """Register fe-dmesg."""
        super().__init__("fe-dmesg")

    def run(self, arg):
        """Read the ring's bytes up to printk_ring_head, in order."""
        if arg and not arg.isdigit():
            raise FeError(f"'{arg}' is not a line count (usage: fe-dmesg [LINES])")
        head = int(symbol("printk_ring_head"))
        ring = symbol("printk_ring")
        size = ring.type.sizeof
        base = int(ring.address)
        kept = min(head, size)
        start = (head - kept) % size
        first = read(base + start, min(kept, size - start)) if kept else b""
        data = first + (read(base, kept - len(first)) if kept > len(first) else b"")
        lost = head - kept
        if lost:
            # the oldest kept line is cut: start at the first whole one
            cut = data.find(b"\n") + 1
            lost += cut
            data = data[cut:]
        text = data.decode("utf-8", "replace")
        if arg:
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-int(arg):]) if int(arg) else ""
        elif lost:
            gdb.write(f"({lost} older bytes were overwritten)\n")
        gdb.write(text)
        if text and not text.endswith("\n"):
            gdb.write("\n")


class FeEpitaph(FeCommand):
    """fe-epitaph: why the kernel panicked (panic_epitaph), if it did."""

    def __init__(self):
        """Register fe-epitaph."""
        super().__init__("fe-epitaph")

    def run(self, arg):
        """Print panic_epitaph, or say there was no panic."""
        epitaph = symbol("panic_epitaph")
        text = cstring(array_bytes(epitaph))
        if text:
            gdb.write(f"panic: {text}\n")
        else:
            gdb.write("no panic in this power-on (panic_epitaph is empty)\n")
