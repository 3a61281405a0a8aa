"""catalogue.py -- the catalogue of names, walked as catalogue.c lays it
out, and fe-ls.

The catalogue is a B+-tree of whole-page nodes from root.catalogue_root
(format.h "the catalogue"): a node header, a sorted array of slots whose
low bits give where each entry lies, and an entry heap of {crc, value,
len, name}. A walk goes down only the subtrees that can hold the prefix
asked for, and is bounded by the names the root block counts, so a
damaged tree cannot make it loop.
"""

import struct

import gdb

import heapformat as F

from .commands import FeCommand
from .heap import Heap
from .target import FeError, lookup_type, typed_bytes
from .text import escaped


def catalogue(heap, prefix=b""):
    """(name, id) of every name starting with prefix, in order (a B+-tree walk)."""
    node_t = lookup_type("struct os_cat_node")
    entry_t = lookup_type("struct os_cat_entry")
    name_off = entry_t.sizeof
    budget = [int(heap.root["catalogue_count"]) * 2 + 64]

    def entries(data, node):
        """The (key, value) of every slot of a node, in slot order."""
        out = []
        for i in range(int(node["count"])):
            slot = struct.unpack_from("<Q", data, node_t.sizeof + F.OS_CAT_SLOT_SIZE * i)[0]
            off = slot & F.OS_CAT_SLOT_OFFSET_MASK
            if off + name_off > F.OS_PAGE_SIZE:
                raise FeError("a catalogue slot points past its node: the catalogue is damaged")
            e = typed_bytes(data, off, "struct os_cat_entry")
            n = int(e["len"])
            out.append((data[off + name_off:off + name_off + n], int(e["value"])))
        return out

    def visit(off, level, lo, hi):
        """Yield the wanted names under node off, whose keys lie in [lo, hi)."""
        budget[0] -= 1
        if budget[0] < 0:
            raise FeError("the catalogue has more nodes than its names allow: it is damaged")
        heap.check_page(off, "catalogue node")
        data = heap.page(off)
        node = typed_bytes(data, 0, "struct os_cat_node")
        if int(node["magic"]) != F.OS_CAT_MAGIC or \
                (level is not None and int(node["level"]) != level):
            raise FeError(f"no catalogue node at heap offset {off:#x}: the catalogue is damaged")
        items = entries(data, node)
        if int(node["level"]) == 0:
            for key, value in items:
                if key.startswith(prefix):
                    yield key, value
            return
        children = [int(node["first"])] + [value for _, value in items]
        keys = [key for key, _ in items]
        for c, child in enumerate(children):
            c_lo = keys[c - 1] if c > 0 else lo
            c_hi = keys[c] if c < len(keys) else hi
            if c_hi is not None and c_hi <= prefix:
                continue  # every key below c_hi sorts before any name with the prefix
            if c_lo is not None and c_lo > prefix and not c_lo.startswith(prefix):
                break     # every key from c_lo on sorts after them
            yield from visit(child, int(node["level"]) - 1, c_lo, c_hi)

    top = int(heap.root["catalogue_root"])
    if top:
        yield from visit(top, None, None, None)


def names_of(heap, oid):
    """Every name bound to object oid (a scan of the catalogue)."""
    return [name for name, value in catalogue(heap) if value == oid]


def resolve(heap, text):
    """An object id from '#ID', 'ID' or a catalogue name."""
    digits = text[1:] if text.startswith("#") else text
    if digits.isdigit():
        return int(digits)
    key = text.encode()
    for name, value in catalogue(heap, key):
        if name == key:
            return value
    raise FeError(f"no object named '{text}'")


class FeLs(FeCommand):
    """fe-ls [PREFIX]: the catalogue, in the columns of osh's `ls -l`."""

    def __init__(self):
        """Register fe-ls."""
        super().__init__("fe-ls")

    def run(self, arg):
        """Walk the catalogue B+-tree and print every name under the prefix."""
        heap = Heap()
        prefix = arg.encode()
        gdb.write(f"{'ID':<8} {'TYPE':<7} {'SIZE':>12} {'REFS':>4} {'EPOCH':>8}  NAME\n")
        shown = 0
        for name, oid in catalogue(heap, prefix):
            try:
                h = heap.header(oid)
                row = (f"{'#' + str(oid):<8} {heap.type_name(int(h['type'])):<7} "
                       f"{int(h['size']):>12} {int(h['refcount']):>4} "
                       f"{int(h['modified_epoch']):>8}  ")
            except FeError:
                row = f"{'#' + str(oid):<8} {'?':<7} {'?':>12} {'?':>4} {'?':>8}  "
            gdb.write(row + escaped(name) + "\n")
            shown += 1
        if not shown and prefix:
            gdb.write(f"fe-ls: no name starts with '{arg}'\n")
