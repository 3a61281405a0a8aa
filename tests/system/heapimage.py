"""heapimage.py -- reading and forging a Ferrite heap image from a test.

The structures are read with struct, as objstore/include/objstore/format.h
and kernel/kformat/kformat.h lay them out, so a test can find every metadata
byte (metadata_ranges), the kernel's objects (kernel_objects), the records
of an unfinished transaction (log_records), and change any of them with
its checksum made good again (the fix_* functions): a forgery that only
the meaning of the bytes can give away. Used by test_objtool_corrupt.py
and the hostile-image campaign (hostile.py).
"""

import struct

PAGE = 4096

# struct os_superblock
SB_LAYOUT_MAJOR = 8
SB_HEAP_SIZE = 32
SB_GEOMETRY = 40              # root, log, log_size, desc, stack, data, page_count
SB_GEOMETRY_FIELDS = ("root_offset", "log_offset", "log_size", "desc_offset",
                      "stack_offset", "data_offset", "page_count")
SB_SNAP = 104                 # snap_offset, snap_size (layout 2.0)
SB_CRC = 252                  # CRC-32C of the 252 bytes before it
SB_CRC_END = 256              # [0, 256): everything the crc covers, and the crc
SB_EPOCH = 256                # committed_epoch, not covered
# struct os_root
ROOT_SIZE = 256
ROOT_CRC = 252
ROOT_FREE_TOP = 48
ROOT_APP_ROOTS = 104
ROOT_PAGES_UNFORMATTED = 168  # layout 2.1: the never-used tail's length
# struct os_page_desc, struct os_obj_header, struct os_cat_node, struct os_cat_entry
DESC_SIZE = 32
HEADER_SIZE = 64
HEADER_CRC = 60
CAT_HEADER = 32
CAT_CRC = 28
CAT_ENTRY_HDR = 13
# struct os_log_entry
LOG_HEADER = 32
LOG_UNDO, LOG_FRESH, LOG_REDO, LOG_COMMIT = 1, 2, 3, 4
LOG_DATA_KINDS = (LOG_UNDO, LOG_REDO)    # records that carry their range's bytes
CACHE_LINE = 64
# struct os_snap_area, struct os_snap_node
SNAP_AREA_SIZE = 192
SNAP_NODE_SIZE = 128
SNAP_NODES = 64
SNAP_NODE_GEN = 56
SNAP_NODE_PARENT = 60
SNAP_NODE_CRC = 124
SNAP_AREA_TABLE_GEN = 20
SNAP_AREA_HEAD = 32
SNAP_TABLE_PAGES = 2
SNAP_ENTRIES_PER_PAGE = 512

TYPE_NAMES = {1: "blob", 2: "code", 3: "process", 4: "thread", 5: "aspace",
              6: "channel", 7: "catalogue", 8: "anon", 9: "handles", 10: "kernel"}


def _crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), as objstore/crc32c.c computes it."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def u16(b, off):
    return struct.unpack_from("<H", b, off)[0]


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def put(b, off, fmt, value):
    struct.pack_into("<" + fmt, b, off, value)


def geometry(img):
    """The superblock's geometry: {field: value} plus heap_size and epoch."""
    g = dict(zip(SB_GEOMETRY_FIELDS, struct.unpack_from("<7Q", img, SB_GEOMETRY)))
    g["heap_size"] = u64(img, SB_HEAP_SIZE)
    g["epoch"] = u64(img, SB_EPOCH)
    g["snap_offset"], g["snap_size"] = struct.unpack_from("<2Q", img, SB_SNAP)
    return g


# --- checksums made good again ----------------------------------------------

def fix_superblock(b):
    put(b, SB_CRC, "I", crc32c(b[:SB_CRC]))


def fix_root(b):
    root = geometry(b)["root_offset"]
    put(b, root + ROOT_CRC, "I", crc32c(b[root:root + ROOT_CRC]))


def fix_header(b, off):
    put(b, off + HEADER_CRC, "I", crc32c(b[off:off + HEADER_CRC]))


def fix_cat_entry(b, off):
    length = b[off + 12]
    put(b, off, "I", crc32c(b[off + 4:off + CAT_ENTRY_HDR + length]))


def _record_checksum(header_crc0, data):
    """objstore/tx.c record_checksum: CRC-32C of the header, mixed with a
    Fletcher-style sum of the data."""
    a, b = len(data), 0
    padded = data + b"\0" * (-len(data) % 4)
    for (w,) in struct.iter_unpack("<I", padded):
        a = (a + w) & 0xFFFFFFFFFFFFFFFF
        b = (b + a) & 0xFFFFFFFFFFFFFFFF
    mix_b = ((b ^ (b >> 32)) & 0xFFFFFFFF) * 0x9E3779B1 & 0xFFFFFFFF
    return crc32c(header_crc0) ^ ((a ^ (a >> 32)) & 0xFFFFFFFF) ^ mix_b


def record_size(kind, length):
    data = length if kind in LOG_DATA_KINDS else 0
    return (LOG_HEADER + data + CACHE_LINE - 1) // CACHE_LINE * CACHE_LINE


def fix_record(b, pos_in_heap):
    """Recompute the crc of the log record at heap offset pos_in_heap."""
    header = bytearray(b[pos_in_heap:pos_in_heap + LOG_HEADER])
    put(header, 28, "I", 0)
    length, kind = u32(header, 8), u16(header, 12)
    data = bytes(b[pos_in_heap + LOG_HEADER:pos_in_heap + LOG_HEADER + length]) \
        if kind in LOG_DATA_KINDS else b""
    put(b, pos_in_heap + 28, "I", _record_checksum(bytes(header), data))


def fix_snap_node(b, off):
    put(b, off + SNAP_NODE_CRC, "I", crc32c(b[off:off + SNAP_NODE_CRC]))


# --- the snapshot area (layout 2.0) -------------------------------------------

def snapshot_nodes(img):
    """The snapshot nodes in use: [{index, off, name, epoch, parent, flags,
    count, dir}], by node index; [] without an area."""
    g = geometry(img)
    if not g["snap_size"]:
        return []
    area = g["snap_offset"]
    gen = u32(img, area + SNAP_AREA_TABLE_GEN)
    out = []
    for i in range(SNAP_NODES):
        off = area + PAGE + SNAP_NODE_SIZE * i
        if u32(img, off + SNAP_NODE_GEN) != gen:
            continue
        name, epoch, _time, _gen, parent, flags, count, dirpage = \
            struct.unpack_from("<40sQQIHHII", img, off)
        out.append({"index": i, "off": off, "name": name.split(b"\0", 1)[0].decode(),
                    "epoch": epoch, "parent": parent, "flags": flags,
                    "count": count, "dir": dirpage})
    return out


def snapshot_entries(img, node):
    """A node's list: [(heap page number, heap offset of its copy)]."""
    g = geometry(img)
    area = g["snap_offset"]
    map_pages, stack_pages = u32(img, area + 8), u32(img, area + 12)
    data = area + (1 + SNAP_TABLE_PAGES + map_pages + stack_pages) * PAGE
    out = []
    for i in range(node["count"]):
        slot = u32(img, data + (node["dir"] - 1) * PAGE + 4 * (i // SNAP_ENTRIES_PER_PAGE))
        at = data + (slot - 1) * PAGE + 8 * (i % SNAP_ENTRIES_PER_PAGE)
        page, copy = u32(img, at), u32(img, at + 4)
        out.append((page, data + (copy - 1) * PAGE))
    return out


# --- the undo log ----------------------------------------------------------

def log_records(img):
    """The records of the unfinished transaction, as the kernel finds them:
    [{pos (heap offset), offset, length, kind, prev_size}], oldest first."""
    g = geometry(img)
    epoch, pos, out = g["epoch"] + 1, 0, []
    while pos + LOG_HEADER <= g["log_size"]:
        at = g["log_offset"] + pos
        offset, length, kind, _res, rec_epoch, prev, crc = \
            struct.unpack_from("<QIHHQII", img, at)
        if rec_epoch != epoch:
            break
        size = record_size(kind, length)
        if size > g["log_size"] - pos:
            break
        header = bytearray(img[at:at + LOG_HEADER])
        put(header, 28, "I", 0)
        data = bytes(img[at + LOG_HEADER:at + LOG_HEADER + length]) \
            if kind in LOG_DATA_KINDS else b""
        if _record_checksum(bytes(header), data) != crc:
            break
        out.append({"pos": at, "offset": offset, "length": length,
                    "kind": kind, "prev_size": prev})
        pos += size
    return out


def rolled_back(img):
    """A copy of the image as its rollback leaves it (the epoch not advanced)."""
    b = bytearray(img)
    for r in reversed(log_records(img)):
        if r["kind"] == LOG_UNDO:
            start = r["pos"] + LOG_HEADER
            b[r["offset"]:r["offset"] + r["length"]] = img[start:start + r["length"]]
    return b


def undo_covered(img):
    """The heap ranges the rollback restores: [(offset, length)]."""
    return [(r["offset"], r["length"]) for r in log_records(img) if r["kind"] == LOG_UNDO]


# --- objects and the catalogue --------------------------------------------

def object_headers(img):
    """{id: header offset} from the id index."""
    g = geometry(img)
    root = g["root_offset"]
    index_root, index_depth = u64(img, root + 16), u32(img, root + 24)
    found = {}

    def page(off, level, base):
        for i in range(512):
            e = u64(img, off + 8 * i)
            if not e:
                continue
            if level:
                page(e, level - 1, (base + i) * 512)
            else:
                found[base + i] = e

    if index_root:
        page(index_root, index_depth - 1, 0)
    return found


def header(img, off):
    """An object header: {id, type, refcount, size, data, depth, placement}."""
    oid, typ, _flags, refs, size, data, depth, placement = \
        struct.unpack_from("<QHHIQQBB", img, off)
    return {"id": oid, "type": typ, "refcount": refs, "size": size,
            "data": data, "depth": depth, "placement": placement}


def catalogue_nodes(img):
    """Every catalogue node: [{off, level, count, first, entries: [(entry
    offset, value)]}], parents before children."""
    g = geometry(img)
    cat_root = u64(img, g["root_offset"] + 32)
    nodes = []

    def node(off):
        level, count, first = img[off + 4], u16(img, off + 6), u64(img, off + 16)
        entries = []
        for i in range(count):
            at = off + (u64(img, off + CAT_HEADER + 8 * i) & 0xfff)
            entries.append((at, u64(img, at + 4)))
        nodes.append({"off": off, "level": level, "count": count,
                      "first": first, "entries": entries})
        if level:
            node(first)
            for _, child in entries:
                node(child)

    if cat_root:
        node(cat_root)
    return nodes


def metadata_ranges(img):
    """{kind: [(offset, length), ...]} of the meaningful metadata bytes."""
    g = geometry(img)
    root_off = g["root_offset"]
    free_top = u64(img, root_off + ROOT_FREE_TOP)
    formatted = g["page_count"] - u64(img, root_off + ROOT_PAGES_UNFORMATTED)
    kinds = {
        "superblock": [(0, SB_CRC_END)],
        "root block": [(root_off, ROOT_SIZE)],
        "page descriptor": [(g["desc_offset"] + DESC_SIZE * p, DESC_SIZE)
                            for p in range(formatted)],
        "free-page stack": [(g["stack_offset"], 4 * free_top)],
        "object header": [(off, HEADER_SIZE) for off in object_headers(img).values()],
        "catalogue node": [],
    }
    for n in catalogue_nodes(img):
        off = n["off"]
        kinds["catalogue node"].append((off, CAT_HEADER + 8 * n["count"]))  # header, live slots
        for at, _ in n["entries"]:
            kinds["catalogue node"].append((at, CAT_ENTRY_HDR + img[at + 12]))  # a live entry
    if g["snap_size"]:
        area = g["snap_offset"]
        kinds["snapshot area"] = [(area, SNAP_AREA_SIZE)]
        gen = u32(img, area + SNAP_AREA_TABLE_GEN)
        nodes = [area + PAGE + SNAP_NODE_SIZE * i for i in range(SNAP_NODES)]
        in_use = [(n, SNAP_NODE_SIZE) for n in nodes if u32(img, n + SNAP_NODE_GEN) == gen]
        if in_use:
            kinds["snapshot node"] = in_use
    assert len(kinds["object header"]) == u64(img, root_off + 8)
    return kinds


# --- what owns a byte ----------------------------------------------------------

PLACE_SMALL, PLACE_PAGED = 1, 2
PAGE_SLAB = 1


def _radix_pages(img, top, depth):
    """(index pages, {page number in the object: data page offset}) of a
    paged object's radix tree."""
    index, data = [], {}

    def walk(off, level, base):
        if not level:
            data[base] = off
            return
        index.append(off)
        for i in range(OS_RADIX_FANOUT):
            e = u64(img, off + 8 * i)
            if e:
                walk(e, level - 1, (base << 9) | i)

    if top:
        walk(top, depth, 0)
    return index, data


OS_RADIX_FANOUT = 512


def object_names(img):
    """{id: [names]} from the catalogue."""
    names = {}
    for n in catalogue_nodes(img):
        if n["level"]:
            continue
        for at, oid in n["entries"]:
            name = bytes(img[at + CAT_ENTRY_HDR:at + CAT_ENTRY_HDR + img[at + 12]])
            names.setdefault(oid, []).append(name.decode("utf-8", "replace"))
    return names


KERNEL_MAGICS = {b"ROOT": "root", b"CONS": "console", b"CLCK": "clock"}


def _object_label(oid, h, names, owners):
    """'#ID TYPE' and what says more: its first name, the kernel object it
    is, the process it belongs to (owners: {id: pid})."""
    label = "#%d %s" % (oid, TYPE_NAMES.get(h["type"], "type %d" % h["type"]))
    if oid in names:
        label += " " + names[oid][0]
    elif h["type"] == 10 and h["placement"] == PLACE_SMALL:
        label += " " + KERNEL_MAGICS.get(bytes(owners["img"][h["data"]:h["data"] + 4]), "")
    whose = owners["pid"].get(oid)
    if isinstance(whose, int):
        label += " of pid %d" % whose
    elif whose:
        label += ", " + whose
    return label.rstrip()


def _process_objects(img):
    """{id: pid} of each live process's own objects: the process, its
    thread, address space, handle table and the anonymous objects its
    address space maps (its stack, heap or data); {id: what} of the
    console's rings."""
    pids = {}
    heads = object_headers(img)
    kroot_id = u64(img, geometry(img)["root_offset"] + ROOT_APP_ROOTS)
    if kroot_id not in heads:
        return pids

    def data(oid):
        return header(img, heads[oid])["data"] if oid in heads else None

    root = data(kroot_id)
    console = data(get(img, root, KROOT, "console"))
    if console is not None:
        pids[get(img, console, KCONSOLE, "out_ring")] = "the console's output ring"
        pids[get(img, console, KCONSOLE, "in_ring")] = "the console's input ring"
    for slot in range(KROOT_MAX_PROCS):
        proc = get(img, root, KROOT, "procs", slot)
        p = data(proc)
        if p is None:
            continue
        pid = get(img, p, KPROC, "pid")
        pids[proc] = pid
        for field in ("thread", "aspace", "handles"):
            pids[get(img, p, KPROC, field)] = pid
        asp = data(get(img, p, KPROC, "aspace"))
        for i in range(min(get(img, asp, KASPACE, "count"), 32) if asp else 0):
            at = asp + KMAPPING_AT + i * KMAPPING_SIZE
            for field in ("object", "shadow"):
                oid = get(img, at, KMAPPING, field)
                if oid and heads.get(oid) and header(img, heads[oid])["type"] == 8:
                    pids.setdefault(oid, pid)
    return pids


class Owners:
    """What holds each byte of a heap image: the metadata region, or the
    object (id, type, first name) whose header, bytes or index pages are
    there. Built once from the image (the id index, every object's radix
    tree, the catalogue); owner(offset) says it in a few words."""

    def __init__(self, img):
        g = self.g = geometry(img)
        self.regions = [
            (0, SB_EPOCH, "superblock"),
            (SB_EPOCH, PAGE, "superblock (committed epoch)"),
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
            self.blocks.append((off, off + HEADER_SIZE, label + " (header)"))
            if h["placement"] == PLACE_SMALL:
                self.blocks.append((h["data"], h["data"] + self._block_size(img, h["data"]),
                                    label))
            elif h["placement"] == PLACE_PAGED:
                index, data = _radix_pages(img, h["data"], h["depth"])
                for page in index:
                    self.pages[page] = label + " (radix page)"
                for number, page in data.items():
                    self.pages[page] = "%s page %d" % (label, number)
        for n in catalogue_nodes(img):
            self.pages[n["off"]] = "catalogue node"
        root = g["root_offset"]
        index, _ = _radix_pages(img, u64(img, root + 16), u32(img, root + 24))
        for page in index:
            self.pages[page] = "id index page"
        self.blocks.sort()

    def _block_size(self, img, off):
        page = (off - self.g["data_offset"]) // PAGE
        desc = self.g["desc_offset"] + DESC_SIZE * page
        return 64 << img[desc + 1] if img[desc] == PAGE_SLAB else PAGE

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

# Field offsets of the kernel objects: {name: (offset, struct format)}.
KROOT = {"magic": (0, "I"), "version": (4, "I"), "next_pid": (8, "Q"),
         "line_len": (48, "H"), "line_ready": (50, "B"), "reap_queue": (304, "Q"),
         "reap_head": (312, "Q"), "reap_count": (320, "Q"), "procs": (328, "Q"),
         "console": (1864, "Q"), "running_slot": (1872, "I")}
KROOT_MAX_PROCS = 192
KPROC = {"magic": (0, "I"), "state": (4, "I"), "pid": (8, "Q"), "parent_pid": (16, "Q"),
         "thread": (24, "Q"), "aspace": (32, "Q"), "handles": (40, "Q"),
         "code": (48, "Q"), "slot": (56, "I"), "flags": (60, "I")}
KTHREAD = {"magic": (0, "I"), "state": (4, "I"), "proc": (8, "Q"), "wait": (16, "I"),
           "rip": (64 + 128, "Q"), "rsp": (64 + 56, "Q"), "rflags": (64 + 136, "Q"),
           "fs_base": (64 + 144, "Q"), "mxcsr": (64 + 160 + 24, "I")}
KASPACE = {"magic": (0, "I"), "count": (4, "I")}
KMAPPING_AT, KMAPPING_SIZE = 16, 56
KMAPPING = {"start": (0, "Q"), "end": (8, "Q"), "object": (16, "Q"), "offset": (24, "Q"),
            "shadow": (40, "Q"), "prot": (48, "I"), "flags": (52, "H"), "maxprot": (54, "H")}
KHANDLES = {"magic": (0, "I"), "count": (4, "I")}
KHANDLE_AT, KHANDLE_SIZE = 16, 16
KHANDLE = {"object": (0, "Q"), "gen": (8, "I"), "rights": (12, "B"), "end": (13, "B")}
KCONSOLE = {"magic": (0, "I"), "out_ring": (8, "Q"), "in_ring": (16, "Q"),
            "out_queued": (24, "Q"), "in_queued": (32, "Q"), "in_read": (40, "Q"),
            "out_sent": (48, "Q")}
KCHANNEL = {"magic": (0, "I"), "queue0_object": (16, "Q"), "queue0_head": (24, "I"),
            "queue0_count": (28, "I"), "queue1_object": (32, "Q")}


def get(img, base, layout, field, index=0):
    off, fmt = layout[field]
    return struct.unpack_from("<" + fmt, img, base + off + index * struct.calcsize(fmt))[0]


def kernel_objects(img):
    """The kernel's objects a power-on reads: [(what, data offset, layout)]
    -- the kernel root, the console, each live process with its thread,
    address space (mappings) and handle table (handles)."""
    heads = object_headers(img)
    g = geometry(img)
    kroot_id = u64(img, g["root_offset"] + ROOT_APP_ROOTS)
    if not kroot_id:
        return []

    def data(oid):
        return header(img, heads[oid])["data"]

    root = data(kroot_id)
    assert get(img, root, KROOT, "magic") == 0x544f4f52
    out = [("kernel root", root, KROOT)]
    out.append(("console", data(get(img, root, KROOT, "console")), KCONSOLE))
    for slot in range(KROOT_MAX_PROCS):
        pid = get(img, root, KROOT, "procs", slot)
        if not pid:
            continue
        p = data(pid)
        out.append(("process", p, KPROC))
        out.append(("thread", data(get(img, p, KPROC, "thread")), KTHREAD))
        asp = data(get(img, p, KPROC, "aspace"))
        out.append(("address space", asp, KASPACE))
        for i in range(get(img, asp, KASPACE, "count")):
            out.append(("mapping", asp + KMAPPING_AT + i * KMAPPING_SIZE, KMAPPING))
        ht = data(get(img, p, KPROC, "handles"))
        out.append(("handle table", ht, KHANDLES))
        for i in range(120):
            at = ht + KHANDLE_AT + i * KHANDLE_SIZE
            if u64(img, at):
                out.append(("handle", at, KHANDLE))
    return out
