"""test_sysfuzz.py -- the system-call fuzzer under `make test`: the quick
form of the campaign in sysfuzz.py (`make fuzz` runs the long one).

One power-on under the log checker: a few seeds of sysfuzz, each a family
of processes that kill and respawn each other; and one seed on two CPUs. After every run the heap
holds as many objects and names as before (no leak), the console shows no
panic and no FAIL line, and after poweroff objtool finds the image clean.
FUZZ_SEED replays with other seeds.

No sysfuzz run has yet found a kernel bug (docs/fuzzing.md), so there is
no seed to replay as a regression test. When one does, the commit of the
fix records its seed, count and processes, and a test here replays it.
"""

import os

import pytest

from sysfuzz import Campaign

QUICK_SEEDS = 3
QUICK_COUNT = 20000
QUICK_PROCS = 4


@pytest.mark.slow(21)
def test_sysfuzz_quick(tmp_path):
    first = int(os.environ.get("FUZZ_SEED") or 1)
    said = []
    campaign = Campaign(str(tmp_path), QUICK_SEEDS * QUICK_COUNT, first,
                        QUICK_PROCS, QUICK_COUNT, logcheck=True,
                        log=said.append)
    failures = campaign.run()
    assert not failures, "\n".join(said)
    assert campaign.fuzzed >= QUICK_SEEDS * QUICK_COUNT


def test_sysfuzz_two_cpus(tmp_path):
    """One seed's family of processes fuzzing on two CPUs at once, under
    the log checker: commits stop the other CPU while it fuzzes."""
    first = int(os.environ.get("FUZZ_SEED") or 1) + QUICK_SEEDS
    said = []
    campaign = Campaign(str(tmp_path), QUICK_COUNT, first, QUICK_PROCS,
                        QUICK_COUNT, logcheck=True, log=said.append, cpus=2)
    failures = campaign.run()
    assert not failures, "\n".join(said)
    assert campaign.fuzzed >= QUICK_COUNT
