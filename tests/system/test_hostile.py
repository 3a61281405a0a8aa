"""test_hostile.py -- the real kernel powered on over hostile images.

The quick form of the campaign of tests/system/hostile.py (`make
fuzz-images` runs the long one): every kind of corruption a few times over
the two base images, each trial checked as hostile.py says (no panic, no
hang, a refusal leaves the image unchanged, objtool check sees what it can
see). Then the cases that made the kernel fault before it validated what
it reads at power-on, kept as regression tests: each is now a refusal with
a message naming the damage, and the image is left byte for byte as it was.
"""

import os
import struct

import pytest

import heapimage as H
import hostile

TRIALS = 56                   # 8 of each kind; about a second each under TCG
SEED = 20250301
JOBS = 2


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """The clean and the cut base image, made once for the module."""
    workdir = str(tmp_path_factory.mktemp("hostile"))
    return workdir, hostile.build_bases(workdir)


@pytest.mark.slow(22)
def test_quick_campaign(bases):
    workdir, images = bases
    failures = []
    results = hostile.campaign(TRIALS, SEED, JOBS, workdir, bases=images,
                               report=failures.append)
    print(hostile.summary(results))
    assert not failures, "\n\n".join(failures)
    kinds = {r["kind"] for r in results}
    assert kinds == set(hostile.CORRUPTIONS), kinds
    assert {r["outcome"] for r in results} >= {"refused", "stopped", "ran"}


def refused(workdir, base, corrupt, words):
    """Power on over `corrupt`(copy of base): refused, naming `words`, the
    image unchanged, and objtool check says the same words."""
    def forged(img, rng):
        corrupt(img)
        return words, True

    r = hostile.trial(base, "regression", 1, workdir, corrupt=forged)
    assert not r["failures"], (r["failures"], r["output"])
    assert r["outcome"] == "refused", r["output"]
    assert words in r["output"], r["output"]
    assert words in r["check"], r["check"]


def last_record(img):
    return H.log_records(img)[-1]


def test_a_forged_back_link_in_the_log_is_refused(bases):
    # Before: os_rollback followed the link and the kernel panicked
    # ("objstore: undo log record has a bad back link").
    workdir, (_, cut) = bases

    def forge(img):
        r = last_record(img)
        H.LOG.put(img, r["pos"], "prev_size", r["prev_size"] + H.CACHE_LINE)
        H.fix_record(img, r["pos"])
    refused(workdir, cut, forge, "back link does not lead to the previous record")


def test_a_process_naming_a_foreign_thread_is_refused(bases):
    # Before: load_ctx panicked ("has a damaged thread, address space or
    # handle table") when the scheduler first looked at the process.
    workdir, (clean, cut) = bases
    for base in (clean, cut):
        def forge(img):
            view = H.rolled_back(img)
            proc = [o for o in H.kernel_objects(view) if o[0] == "process"][-1][1]
            aspace = H.get(view, proc, H.KPROC, "aspace")
            H.KPROC.put(img, proc, "thread", aspace)
        refused(workdir, base, forge, "thread 0: #")


def test_a_traced_process_that_is_not_a_linux_program_is_refused(bases):
    # KPROC_TRACE (osh's trace) is only ever set on a Linux program, whose
    # calls trace.c reads; kcheck refuses it on any other process.
    workdir, (clean, _) = bases

    def forge(img):
        view = H.rolled_back(img)
        proc = [o for o in H.kernel_objects(view) if o[0] == "process"][-1][1]
        H.KPROC.put(img, proc, "flags", H.F.KPROC_TRACE)
    refused(workdir, clean, forge, "traced, stopped or vforked, yet not a Linux program")


def test_a_kernel_root_of_another_version_is_refused(bases):
    # Before: proc_init panicked on it, after the rollback had been committed.
    workdir, (_, cut) = bases

    def forge(img):
        root = H.kernel_objects(H.rolled_back(img))[0][1]
        H.KROOT.put(img, root, "version", 7)
    refused(workdir, cut, forge, "version 7; this kernel knows version 2")


def test_damaged_snapshot_metadata_is_refused(bases):
    # The snapshot area's header and every node in use are checked at power-on
    # (as the rollback leaves them), before anything is written. (A byte the
    # unfinished epoch logged is healed by the rollback: not those.)
    workdir, (clean, cut) = bases
    for base in (clean, cut):
        with open(base, "rb") as f:
            img = bytearray(f.read())
        kinds = H.metadata_ranges(H.rolled_back(img))
        epoch = H.SNAP_NODE.offset("epoch") + 1        # under the node's crc
        node = [o + epoch for o, _ in kinds["snapshot node"]
                if not hostile.healed(img, o + epoch)]
        free_top = kinds["snapshot area"][0][0] + H.SNAP_AREA.offset("free_top")
        assert node
        refused(workdir, base, lambda b: b.__setitem__(node[0], b[node[0]] ^ 0x10),
                "snapshot node")
        if not hostile.healed(img, free_top):          # under the header's crc
            refused(workdir, base, lambda b: b.__setitem__(free_top, b[free_top] ^ 1),
                    "snapshot area: checksum")
