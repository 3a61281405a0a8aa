"""heapimage.py -- reading and forging a Ferrite heap image from a test.

A test can find every metadata byte (metadata_ranges), the kernel's
objects (kernel_objects), the records of an unfinished transaction
(log_records), what holds any byte (Owners), and change any of them with
its checksum made good again (the fix_* functions): a forgery that only
the meaning of the bytes can give away. Used by test_objtool_corrupt.py,
the hostile-image campaign (hostile.py) and the tests that forge one
field.

No layout is written here. Every offset, size and constant comes from
tools/heapformat/heapformat.py (F below), which serves what the C compiler
made of objstore/include/objstore/format.h and kernel/kformat/kformat.h:
SB.offset("committed_epoch"), KPROC.put(img, at, "thread", oid). What
this file knows is how the structures lead to each other -- the walks --
which tests/system/test_heapformat.py checks against objtool's own
reading of the same images.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "heapformat"))

import heapformat as F  # noqa: E402

# The heap's structures (format.h).
SB = F.layout("os_superblock")
ROOT = F.layout("os_root")
DESC = F.layout("os_page_desc")
LOG = F.layout("os_log_entry")
HEADER = F.layout("os_obj_header")
CAT_NODE = F.layout("os_cat_node")
CAT_ENTRY = F.layout("os_cat_entry")
SNAP_AREA = F.layout("os_snap_area")
SNAP_NODE = F.layout("os_snap_node")
SNAP_ENTRY = F.layout("os_snap_entry")
# The kernel's objects (kformat.h).
KROOT = F.layout("kroot")
KCONSOLE = F.layout("kconsole")
KPROC = F.layout("kproc")
KTHREAD = F.layout("kthread")
KASPACE = F.layout("kaspace")
KMAPPING = F.layout("kmapping")
KHANDLES = F.layout("khandles")
KHANDLE = F.layout("khandle")
KCHANNEL = F.layout("kchannel")

PAGE = F.OS_PAGE_SIZE
CACHE_LINE = F.OS_CACHE_LINE
TYPE_NAMES = F.type_names()
crc32c = F.crc32c

# The superblock's geometry: where each region starts (format.h's map).
SB_GEOMETRY_FIELDS = ("root_offset", "log_offset", "log_size", "desc_offset",
                      "stack_offset", "data_offset", "page_count")
# Widths format.h gives as C types, not as named sizes: the free-page
# stack holds uint32_t page numbers; a snapshot directory page holds
# OS_SNAP_DIR_SLOTS uint32_t list-page numbers (+1), and fills its page.
STACK_ENTRY = 4
DIR_SLOT = PAGE // F.OS_SNAP_DIR_SLOTS
# The byte of an FXSAVE image (arch_user_regs.fpu) that holds MXCSR: the
# CPU's layout (Intel SDM, FXSAVE; kernel/arch/x86_64/user.c FXSAVE_MXCSR).
FXSAVE_MXCSR = 24
LOG_DATA_KINDS = (F.OS_LOG_UNDO, F.OS_LOG_REDO)    # records that carry their range's bytes


def u16(b, off):
    return struct.unpack_from("<H", b, off)[0]


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def put(b, off, fmt, value):
    struct.pack_into("<" + fmt, b, off, value)


def get(img, base, layout, field, index=0):
    """Field `field` (element `index`) of the structure `layout` at `base`."""
    return layout.get(img, base, field, index)


def end_of(layout, field):
    """Where a field ends: its offset plus its size."""
    off, f = layout.field(field)
    return off + f.size


def geometry(img):
    """The superblock's geometry: {field: value} plus heap_size, the
    snapshot area's place and the committed epoch (as `epoch`)."""
    g = {f: SB.get(img, 0, f) for f in SB_GEOMETRY_FIELDS + ("heap_size", "snap_offset",
                                                             "snap_size", "page_capacity")}
    g["epoch"] = SB.get(img, 0, "committed_epoch")
    # The descriptors' room: page_capacity (2.3), page_count before; the
    # never-used tail is counted to it (format.h).
    g["page_room"] = g["page_capacity"] or g["page_count"]
    return g


def thread_register(name):
    """(offset in struct kthread, format) of a saved user register: rip,
    rsp, rflags, fs_base (arch_user_regs), or mxcsr (in its FXSAVE image)."""
    if name == "mxcsr":
        return KTHREAD.offset("regs.fpu") + FXSAVE_MXCSR, "I"
    return KTHREAD["regs." + name]


# --- checksums made good again ----------------------------------------------

def fix_superblock(b):
    SB.put(b, 0, "crc", crc32c(b[:SB.crc_end()]))


def fix_root(b):
    root = geometry(b)["root_offset"]
    ROOT.put(b, root, "crc", crc32c(b[root:root + ROOT.crc_end()]))


def fix_header(b, off):
    HEADER.put(b, off, "crc", crc32c(b[off:off + HEADER.crc_end()]))


def fix_desc(b, off):
    DESC.put(b, off, "crc", crc32c(b[off:off + DESC.crc_end()]))


def fix_cat_node(b, off):
    CAT_NODE.put(b, off, "crc", crc32c(b[off:off + CAT_NODE.crc_end()]))


def fix_cat_entry(b, off):
    """An entry's crc covers the bytes after it: value, len and the name."""
    length = CAT_ENTRY.get(b, off, "len")
    CAT_ENTRY.put(b, off, "crc", crc32c(b[off + CAT_ENTRY.offset("value"):
                                           off + CAT_ENTRY.offset("name") + length]))


def _record_checksum(header_crc0, data):
    """objstore/log.c record_checksum: CRC-32C of the header, mixed with a
    Fletcher-style sum of the data."""
    a, b = len(data), 0
    padded = data + b"\0" * (-len(data) % 4)
    for (w,) in struct.iter_unpack("<I", padded):
        a = (a + w) & 0xFFFFFFFFFFFFFFFF
        b = (b + a) & 0xFFFFFFFFFFFFFFFF
    mix_b = ((b ^ (b >> 32)) & 0xFFFFFFFF) * 0x9E3779B1 & 0xFFFFFFFF
    return crc32c(header_crc0) ^ ((a ^ (a >> 32)) & 0xFFFFFFFF) ^ mix_b


def record_size(kind, length):
    """A log record's bytes: its header and data, padded to a cache line."""
    data = length if kind in LOG_DATA_KINDS else 0
    return (LOG.size + data + CACHE_LINE - 1) // CACHE_LINE * CACHE_LINE


def _record_crc(b, pos):
    """What the crc of the log record at heap offset pos should be."""
    header = bytearray(b[pos:pos + LOG.size])
    LOG.put(header, 0, "crc", 0)
    length, kind = LOG.get(header, 0, "length"), LOG.get(header, 0, "kind")
    data = bytes(b[pos + LOG.size:pos + LOG.size + length]) if kind in LOG_DATA_KINDS else b""
    return _record_checksum(bytes(header), data)


def fix_record(b, pos_in_heap):
    """Recompute the crc of the log record at heap offset pos_in_heap."""
    LOG.put(b, pos_in_heap, "crc", _record_crc(b, pos_in_heap))


def fix_snap_node(b, off):
    SNAP_NODE.put(b, off, "crc", crc32c(b[off:off + SNAP_NODE.crc_end()]))


# --- the snapshot area (layout 2.0) -------------------------------------------
#
# Area page 0 is its header, the next OS_SNAP_TABLE_PAGES the node table,
# then map_pages of head map, stack_pages of free stack, and the data pages
# (format.h, "the snapshot area").

def snapshot_node_offset(area, i):
    """The heap offset of node i of the area at `area`."""
    return area + PAGE + SNAP_NODE.size * i


def snapshot_nodes(img):
    """The snapshot nodes in use: [{index, off, name, epoch, parent, flags,
    count, dir}], by node index; [] without an area."""
    g = geometry(img)
    if not g["snap_size"]:
        return []
    area = g["snap_offset"]
    gen = SNAP_AREA.get(img, area, "table_gen")
    out = []
    for i in range(F.OS_SNAP_NODES):
        off = snapshot_node_offset(area, i)
        n = SNAP_NODE.unpack(img, off)
        if n["gen"] != gen:
            continue
        name = SNAP_NODE.bytes_of(img, off, "name")
        out.append({"index": i, "off": off, "name": name.split(b"\0", 1)[0].decode(),
                    "epoch": n["epoch"], "parent": n["parent"], "flags": n["flags"],
                    "count": n["count"], "dir": n["dir"]})
    return out


def snapshot_entries(img, node):
    """A node's list: [(heap page number, heap offset of its copy)]."""
    area = geometry(img)["snap_offset"]
    a = SNAP_AREA.unpack(img, area)
    data = area + (1 + F.OS_SNAP_TABLE_PAGES + a["map_pages"] + a["stack_pages"]) * PAGE
    per_page = F.OS_SNAP_ENTRIES_PER_PAGE
    out = []
    for i in range(node["count"]):
        slot = u32(img, data + (node["dir"] - 1) * PAGE + DIR_SLOT * (i // per_page))
        at = data + (slot - 1) * PAGE + SNAP_ENTRY.size * (i % per_page)
        e = SNAP_ENTRY.unpack(img, at)
        out.append((e["page"], data + (e["copy"] - 1) * PAGE))
    return out


# --- the undo log ----------------------------------------------------------

def log_records(img):
    """The records of the unfinished transaction, as the kernel finds them:
    [{pos (heap offset), offset, length, kind, prev_size}], oldest first."""
    g = geometry(img)
    epoch, pos, out = g["epoch"] + 1, 0, []
    while pos + LOG.size <= g["log_size"]:
        at = g["log_offset"] + pos
        r = LOG.unpack(img, at)
        if r["epoch"] != epoch:
            break
        size = record_size(r["kind"], r["length"])
        if size > g["log_size"] - pos:
            break
        if _record_crc(img, at) != r["crc"]:
            break
        out.append({"pos": at, "offset": r["offset"], "length": r["length"],
                    "kind": r["kind"], "prev_size": r["prev_size"]})
        pos += size
    return out


def rolled_back(img):
    """A copy of the image as its rollback leaves it (the epoch not advanced)."""
    b = bytearray(img)
    for r in reversed(log_records(img)):
        if r["kind"] == F.OS_LOG_UNDO:
            start = r["pos"] + LOG.size
            b[r["offset"]:r["offset"] + r["length"]] = img[start:start + r["length"]]
    return b


def undo_covered(img):
    """The heap ranges the rollback restores: [(offset, length)]."""
    return [(r["offset"], r["length"]) for r in log_records(img)
            if r["kind"] == F.OS_LOG_UNDO]


# --- objects and the catalogue --------------------------------------------

def _radix_walk(img, top, depth):
    """(index pages, {key: leaf}) of a radix tree of `depth` levels from
    `top` (format.h "index pages": the key's base-512 digits, most
    significant first)."""
    fanout, shift = F.OS_RADIX_FANOUT, F.OS_RADIX_SHIFT
    index, leaves = [], {}

    def walk(off, level, base):
        if not level:
            leaves[base] = off
            return
        index.append(off)
        for i in range(fanout):
            e = u64(img, off + 8 * i)
            if e:
                walk(e, level - 1, (base << shift) | i)

    if top:
        walk(top, depth, 0)
    return index, leaves


def object_headers(img):
    """{id: header offset} from the id index."""
    root = geometry(img)["root_offset"]
    return _radix_walk(img, ROOT.get(img, root, "index_root"),
                       ROOT.get(img, root, "index_depth"))[1]


def object_pages(img, h):
    """{page number in the object: data page offset} of a paged object
    (its header h), from its radix tree."""
    return _radix_walk(img, h["data"], h["depth"])[1]


def header(img, off):
    """An object header: {id, type, flags, refcount, size, data, depth,
    placement, modified_epoch, crc...}."""
    return HEADER.unpack(img, off)


def catalogue_nodes(img):
    """Every catalogue node: [{off, level, count, first, entries: [(entry
    offset, value)]}], parents before children."""
    cat_root = ROOT.get(img, geometry(img)["root_offset"], "catalogue_root")
    slots = CAT_NODE.offset("slot")
    nodes = []

    def node(off):
        n = CAT_NODE.unpack(img, off)
        entries = []
        for i in range(n["count"]):
            slot = u64(img, off + slots + F.OS_CAT_SLOT_SIZE * i)
            at = off + (slot & F.OS_CAT_SLOT_OFFSET_MASK)
            entries.append((at, CAT_ENTRY.get(img, at, "value")))
        nodes.append({"off": off, "level": n["level"], "count": n["count"],
                      "first": n["first"], "entries": entries})
        if n["level"]:
            node(n["first"])
            for _, child in entries:
                node(child)

    if cat_root:
        node(cat_root)
    return nodes


def entry_name(img, at):
    """The name bytes of the catalogue entry at heap offset `at`."""
    start = at + CAT_ENTRY.offset("name")
    return bytes(img[start:start + CAT_ENTRY.get(img, at, "len")])


def metadata_ranges(img):
    """{kind: [(offset, length), ...]} of the meaningful metadata bytes."""
    g = geometry(img)
    root_off = g["root_offset"]
    r = ROOT.unpack(img, root_off)
    formatted = g["page_room"] - r["pages_unformatted"]
    kinds = {
        "superblock": [(0, end_of(SB, "crc"))],
        "root block": [(root_off, ROOT.size)],
        "page descriptor": [(g["desc_offset"] + DESC.size * p, DESC.size)
                            for p in range(formatted)],
        "free-page stack": [(g["stack_offset"], STACK_ENTRY * r["free_top"])],
        "object header": [(off, HEADER.size) for off in object_headers(img).values()],
        "catalogue node": [],
    }
    slots = CAT_NODE.offset("slot")
    name = CAT_ENTRY.offset("name")
    for n in catalogue_nodes(img):
        off = n["off"]
        # the header and the live slots
        kinds["catalogue node"].append((off, slots + F.OS_CAT_SLOT_SIZE * n["count"]))
        for at, _ in n["entries"]:
            kinds["catalogue node"].append((at, name + CAT_ENTRY.get(img, at, "len")))
    if g["snap_size"]:
        area = g["snap_offset"]
        kinds["snapshot area"] = [(area, SNAP_AREA.size)]
        gen = SNAP_AREA.get(img, area, "table_gen")
        nodes = [snapshot_node_offset(area, i) for i in range(F.OS_SNAP_NODES)]
        in_use = [(n, SNAP_NODE.size) for n in nodes if SNAP_NODE.get(img, n, "gen") == gen]
        if in_use:
            kinds["snapshot node"] = in_use
    assert len(kinds["object header"]) == r["object_count"]
    return kinds


# --- what owns a byte ----------------------------------------------------------

def object_names(img):
    """{id: [names]} from the catalogue."""
    names = {}
    for n in catalogue_nodes(img):
        if n["level"]:
            continue
        for at, oid in n["entries"]:
            names.setdefault(oid, []).append(entry_name(img, at).decode("utf-8", "replace"))
    return names


KERNEL_MAGICS = {F.KROOT_MAGIC: "root", F.KCONSOLE_MAGIC: "console", F.KCLOCK_MAGIC: "clock"}


def _object_label(oid, h, names, owners):
    """'#ID TYPE' and what says more: its first name, the kernel object it
    is, the process it belongs to (owners: {id: pid})."""
    label = "#%d %s" % (oid, TYPE_NAMES.get(h["type"], "type %d" % h["type"]))
    if oid in names:
        label += " " + names[oid][0]
    elif h["type"] == F.OS_TYPE_KERNEL and h["placement"] == F.OS_PLACE_SMALL:
        label += " " + KERNEL_MAGICS.get(u32(owners["img"], h["data"]), "")
    whose = owners["pid"].get(oid)
    if isinstance(whose, int):
        label += " of pid %d" % whose
    elif whose:
        label += ", " + whose
    return label.rstrip()


def _kernel_root(img):
    """The kernel root's id (app root OS_APP_ROOT_KERNEL), 0 if none."""
    root = geometry(img)["root_offset"]
    return ROOT.get(img, root, "app_roots", F.OS_APP_ROOT_KERNEL)


def mapping_offsets(img, aspace):
    """The heap offsets of the mappings of the address space at `aspace`,
    in order: its own, then those in its `more` object's pages (kformat.h);
    a mapping in a missing page is left out."""
    count = min(KASPACE.get(img, aspace, "count"), F.KASPACE_MAX_MAPS)
    more = KASPACE.get(img, aspace, "more")
    heads = object_headers(img) if more else {}
    pages = object_pages(img, header(img, heads[more])) if more in heads else {}
    for i in range(count):
        if i < F.KASPACE_INLINE_MAPS:
            yield aspace + KASPACE.offset("map") + i * KMAPPING.size
            continue
        page, slot = divmod(i - F.KASPACE_INLINE_MAPS, F.KASPACE_MORE_PER_PAGE)
        if page in pages:
            yield pages[page] + slot * KMAPPING.size


def _process_objects(img):
    """{id: pid} of each live process's own objects: the process, its
    thread, address space, handle table and the anonymous objects its
    address space maps (its stack, heap or data); {id: what} of the
    console's rings."""
    pids = {}
    heads = object_headers(img)
    kroot_id = _kernel_root(img)
    if kroot_id not in heads:
        return pids

    def data(oid):
        return header(img, heads[oid])["data"] if oid in heads else None

    root = data(kroot_id)
    console = data(KROOT.get(img, root, "console"))
    if console is not None:
        pids[KCONSOLE.get(img, console, "out_ring")] = "the console's output ring"
        pids[KCONSOLE.get(img, console, "in_ring")] = "the console's input ring"
    for slot in range(F.KROOT_MAX_PROCS):
        proc = KROOT.get(img, root, "procs", slot)
        p = data(proc)
        if p is None:
            continue
        pid = KPROC.get(img, p, "pid")
        pids[proc] = pid
        for field in ("thread", "aspace", "handles"):
            pids[KPROC.get(img, p, field)] = pid
        asp = data(KPROC.get(img, p, "aspace"))
        if asp and KASPACE.get(img, asp, "more"):
            pids[KASPACE.get(img, asp, "more")] = pid
        for at in mapping_offsets(img, asp) if asp else ():
            for field in ("object", "shadow"):
                oid = KMAPPING.get(img, at, field)
                if oid and heads.get(oid) and \
                        header(img, heads[oid])["type"] == F.OS_TYPE_ANON:
                    pids.setdefault(oid, pid)
    return pids


class Owners:
    """What holds each byte of a heap image: the metadata region, or the
    object (id, type, first name) whose header, bytes or index pages are
    there. Built once from the image (the id index, every object's radix
    tree, the catalogue); owner(offset) says it in a few words."""

    def __init__(self, img):
        g = self.g = geometry(img)
        epoch = SB.offset("committed_epoch")
        self.regions = [
            (0, epoch, "superblock"),
            (epoch, PAGE, "superblock (committed epoch)"),
            (g["root_offset"], g["root_offset"] + PAGE, "root block"),
            (g["log_offset"], g["log_offset"] + g["log_size"], "undo log"),
            (g["desc_offset"], g["stack_offset"], "page descriptors"),
            (g["stack_offset"], g["data_offset"], "free-page stack"),
        ]
        self.pages = {}    # data page offset -> label
        self.blocks = []   # (start, end, label) of small blocks in slab pages
        names = object_names(img)
        owners = {"img": img, "pid": _process_objects(img)}
        for oid, off in object_headers(img).items():
            h = header(img, off)
            label = _object_label(oid, h, names, owners)
            self.blocks.append((off, off + HEADER.size, label + " (header)"))
            if h["placement"] == F.OS_PLACE_SMALL:
                self.blocks.append((h["data"], h["data"] + self._block_size(img, h["data"]),
                                    label))
            elif h["placement"] == F.OS_PLACE_PAGED:
                index, data = _radix_walk(img, h["data"], h["depth"])
                for page in index:
                    self.pages[page] = label + " (radix page)"
                for number, page in data.items():
                    self.pages[page] = "%s page %d" % (label, number)
        for n in catalogue_nodes(img):
            self.pages[n["off"]] = "catalogue node"
        root = g["root_offset"]
        index, _ = _radix_walk(img, ROOT.get(img, root, "index_root"),
                               ROOT.get(img, root, "index_depth"))
        for page in index:
            self.pages[page] = "id index page"
        self.blocks.sort()

    def _block_size(self, img, off):
        page = (off - self.g["data_offset"]) // PAGE
        d = DESC.unpack(img, self.g["desc_offset"] + DESC.size * page)
        if d["kind"] == F.OS_PAGE_SLAB:
            return 1 << (F.OS_SMALLEST_CLASS_SHIFT + d["size_class"])
        return PAGE

    def owner(self, offset):
        """The region or object that holds the byte at `offset`."""
        for start, end, label in self.regions:
            if start <= offset < end:
                return label
        page = offset - (offset - self.g["data_offset"]) % PAGE
        if page in self.pages:
            return self.pages[page]
        for start, end, label in self.blocks:
            if start <= offset < end:
                return "%s +%#x" % (label, offset - start) if offset > start else label
        if offset >= self.g["data_offset"] + PAGE * self.g["page_count"]:
            return "past the heap"
        return "free or unused slab space"


# --- the kernel's objects (kernel/kformat/kformat.h) --------------------------------

def kernel_objects(img):
    """The kernel's objects a power-on reads: [(what, data offset, layout)]
    -- the kernel root, the console, each live process with its thread,
    address space (mappings) and handle table (handles)."""
    heads = object_headers(img)
    kroot_id = _kernel_root(img)
    if not kroot_id:
        return []

    def data(oid):
        return header(img, heads[oid])["data"]

    root = data(kroot_id)
    assert KROOT.get(img, root, "magic") == F.KROOT_MAGIC
    out = [("kernel root", root, KROOT)]
    out.append(("console", data(KROOT.get(img, root, "console")), KCONSOLE))
    for slot in range(F.KROOT_MAX_PROCS):
        pid = KROOT.get(img, root, "procs", slot)
        if not pid:
            continue
        p = data(pid)
        out.append(("process", p, KPROC))
        out.append(("thread", data(KPROC.get(img, p, "thread")), KTHREAD))
        asp = data(KPROC.get(img, p, "aspace"))
        out.append(("address space", asp, KASPACE))
        for at in mapping_offsets(img, asp):
            out.append(("mapping", at, KMAPPING))
        ht = data(KPROC.get(img, p, "handles"))
        out.append(("handle table", ht, KHANDLES))
        for i in range(F.FE_HANDLE_SLOTS):
            at = ht + KHANDLES.offset("slot") + i * KHANDLE.size
            if KHANDLE.get(img, at, "object"):
                out.append(("handle", at, KHANDLE))
    return out
