"""test_heapformat.py -- the host's readers of the heap format agree with the C.

tools/heapformat/ gives the Python that reads heap images (heapimage.py,
and the gdb helpers' constants) every offset, size and constant of the
format from the C compiler: describe.c prints what it made of format.h
and kformat.h, `make` writes it to build/heapformat/layout.json. No
number is copied, so none can drift. Two things still can, and these
tests catch both, on images objtool makes (no QEMU):

  - a header gains a field that describe.c does not list: the fields it
    lists then no longer tile their structure (a field carved out of
    `reserved` leaves a hole), and no reader can name the new one;
  - the walks written in Python (the id index and the objects' radix
    trees, the catalogue's B+-tree, the snapshot area) read something
    else than objstore does: heapimage's reading of an image is set
    against objtool's own (`--json`), and fields forged through the
    layouts, checksums made good, must be what objtool then reads.
"""

import json
import os
import re
import subprocess

import heapimage as H
from ferrite import ROOT
from heapimage import F

OBJTOOL = os.path.join(ROOT, "build", "objtool")
PROBLEMS = 7    # objtool check: problems found

# Every structure of format.h and kformat.h, and the ABI ones in them.
STRUCTURES = {"os_superblock", "os_root", "os_page_desc", "os_log_entry", "os_obj_header",
              "os_cat_node", "os_cat_entry", "os_snap_area", "os_snap_node", "os_snap_entry",
              "kroot", "kconsole", "kclock", "fe_exit_info", "kproc", "arch_user_regs",
              "kthread", "kmapping", "kaspace", "khandle", "khandles", "kmsg_header",
              "kchan_queue", "kchannel", "klxfile", "klxpipe", "klayer"}


def objtool(*args, rc=0):
    p = subprocess.run([OBJTOOL] + [str(a) for a in args], capture_output=True, text=True)
    assert p.returncode == rc, (args, p.returncode, p.stdout, p.stderr)
    return p.stdout


def holes(description):
    """Where the fields described do not tile a structure exactly:
    ['kproc: bytes 60..64 not described', ...]."""
    out = []
    for name, s in description["structs"].items():
        at = 0
        for f in sorted(s["fields"], key=lambda f: f["offset"]):
            if f["offset"] != at:
                out.append(f"{name}: bytes {at}..{f['offset']} not described"
                           if f["offset"] > at else f"{name}: {f['name']} overlaps at {at}")
            if f.get("struct"):
                inner = description["structs"][f["struct"]]["size"]
                if f["size"] != inner * f["count"]:
                    out.append(f"{name}: {f['name']} is not {f['count']} x struct {f['struct']}")
            at = f["offset"] + f["size"]
        if at != s["size"]:
            out.append(f"{name}: bytes {at}..{s['size']} not described")
    return out


def test_every_structure_is_described_whole():
    with open(F.LAYOUT_FILE) as f:
        description = json.load(f)
    assert set(description["structs"]) == STRUCTURES
    assert holes(description) == []
    # The check sees a field left out: drop each structure's middle field.
    for name, s in description["structs"].items():
        doctored = json.loads(json.dumps(description))
        fields = doctored["structs"][name]["fields"]
        del fields[len(fields) // 2]
        assert holes(doctored), name


def make_image(tmp_path):
    """An image with paged objects of one page and of many (an index page),
    600 names (a catalogue of more than one level, a two-level id index),
    names removed and renamed, and a snapshot with changes after it."""
    image = tmp_path / "a.nvm"
    objtool("create", "--size", "16M", image)
    (tmp_path / "big").write_bytes(os.urandom(70000))
    (tmp_path / "small").write_bytes(b"small\n")
    objtool(image, "import", "bin/big", tmp_path / "big")
    objtool(image, "import", "etc/small", tmp_path / "small")
    objtool(image, "fill", "names/n", 600, "--size", 5000)
    objtool(image, "rm", "names/n007", "names/n300")
    objtool(image, "snapshot", "take", "s1")
    objtool(image, "mv", "names/n001", "moved")
    objtool(image, "import", "bin/big2", tmp_path / "big")
    return image


def test_heapimage_reads_what_objtool_reads(tmp_path):
    image = make_image(tmp_path)
    img = image.read_bytes()
    g = H.geometry(img)
    root = H.ROOT.unpack(img, g["root_offset"])
    heads = H.object_headers(img)
    names = H.object_names(img)
    assert root["index_depth"] == 2 and any(n["level"] for n in H.catalogue_nodes(img))

    info = json.loads(objtool(image, "info", "--json"))
    assert (info["size"], info["data_pages"], info["committed_epoch"]) == \
        (g["heap_size"], g["page_count"], g["epoch"])
    formatted = g["page_room"] - root["pages_unformatted"]
    assert info["pages_free"] == root["free_top"] + g["page_count"] - formatted
    assert info["page_capacity"] == g["page_room"] >= g["page_count"]
    assert info["objects"] == root["object_count"] == len(heads) == 601
    assert info["names"] == root["catalogue_count"] == sum(map(len, names.values()))

    listed = json.loads(objtool(image, "ls", "--json"))
    assert {(e["name"], e["id"]) for e in listed} == \
        {(n, oid) for oid, ns in names.items() for n in ns}
    for e in listed:
        h = H.header(img, heads[e["id"]])
        assert (H.TYPE_NAMES[h["type"]], h["size"], h["refcount"], h["modified_epoch"]) == \
            (e["type"], e["size"], e["refcount"], e["modified_epoch"]), e
    for name in ("bin/big", "etc/small", "moved", "names/n599"):
        st = json.loads(objtool(image, "stat", name, "--json"))
        h = H.header(img, heads[st["id"]])
        assert h["placement"] == {"paged": F.OS_PLACE_PAGED, "small": F.OS_PLACE_SMALL}[
            st["placement"]]
        assert len(H.object_pages(img, h)) == st["pages"], (name, st)

    # The snapshot: its name and epoch, and a list of heap pages below the area.
    shown = re.findall(r"^(\S+) +(\d+)  ", objtool(image, "snapshots"), re.M)
    nodes = H.snapshot_nodes(img)
    assert [(n["name"], str(n["epoch"])) for n in nodes] == shown == [("s1", shown[0][1])]
    entries = H.snapshot_entries(img, nodes[0])
    assert len(entries) == nodes[0]["count"] > 0
    area = range(g["snap_offset"] // H.PAGE, (g["snap_offset"] + g["snap_size"]) // H.PAGE)
    assert all(0 < page < g["heap_size"] // H.PAGE and page not in area for page, _ in entries)


def test_fields_forged_through_the_layouts_are_what_objtool_reads(tmp_path):
    image = make_image(tmp_path)
    b = bytearray(image.read_bytes())
    g = H.geometry(b)
    heads = H.object_headers(b)
    small = json.loads(objtool(image, "stat", "etc/small", "--json"))["id"]
    # A header's refcount (as if the kernel held two references more) and
    # an app root, their checksums made good: objtool reads the new values,
    # and its check finds nothing wrong -- every checksum covers what
    # objstore says it covers.
    H.HEADER.put(b, heads[small], "refcount", 3)
    H.fix_header(b, heads[small])
    H.ROOT.put(b, g["root_offset"], "app_roots", small, index=3)
    H.fix_root(b)
    image.write_bytes(b)
    assert json.loads(objtool(image, "stat", "etc/small", "--json"))["refcount"] == 3
    info = json.loads(objtool(image, "info", "--json"))
    assert info["app_roots"] == [{"index": 3, "id": small, "type": "blob"}], info
    assert json.loads(objtool(image, "check", "--json"))["clean"] is True
    # The same change with the checksum left as it was is found.
    H.HEADER.put(b, heads[small], "refcount", 4)
    image.write_bytes(b)
    problems = json.loads(objtool(image, "check", "--json", rc=PROBLEMS))["problems"]
    assert any(p["problem"].startswith(f"object #{small}: header crc ") for p in problems), \
        problems
