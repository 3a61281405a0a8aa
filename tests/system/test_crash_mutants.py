"""test_crash_mutants.py -- the crash simulator catches the commit by redo's bugs.

Each mutant (`make crash-mutants`, objstore/objstore.mk) is the crash
simulator (tests/objstore/test_crash.c) built on an objstore with one
persistence bug of the commit with one wait planted on purpose
(FERRITE_MUTANT_NAME in objstore/tx.c and log.c). Its scenario `redo_sets`
must fail; it stops at the first failure (CRASHSIM_FIRST_FAILURE), so each
costs well under a second. The same scenario on the real objstore passes
(the unit run's test_os_crash runs it too; here it is the control).
docs/crash-testing.md lists the mutants and what catches them.
"""

import os
import subprocess

import pytest

from ferrite import ROOT

SCENARIO = "redo_sets"
MUTANTS = ["unfenced-redo-commit", "unreplayed-chains", "unflushed-redo",
           "replayed-done", "unflushed-apply"]
BOUND = 600   # seconds: catches a hang only (ASan, a loaded machine)


def run_scenario(binary):
    """Run `binary`'s scenario SCENARIO, stopping at its first failure."""
    assert os.path.exists(binary), "%s is missing: run make crash-mutants" % binary
    env = dict(os.environ, CRASHSIM_SCENARIO=SCENARIO, CRASHSIM_FIRST_FAILURE="1")
    return subprocess.run([binary], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=BOUND)


@pytest.mark.parametrize("mutant", MUTANTS)
def test_a_planted_bug_of_the_commit_by_redo_is_caught(mutant):
    p = run_scenario(os.path.join(ROOT, "build", "crash-mutant-" + mutant,
                                  "test_os_crash"))
    assert p.returncode == 1, p.stdout + p.stderr
    assert "crashsim: FAIL scenario %s, fence " % SCENARIO in p.stdout, p.stdout
    assert "crashsim: stopped at the first failure" in p.stdout, p.stdout


def test_the_scenario_passes_without_a_planted_bug():
    p = run_scenario(os.path.join(ROOT, "build", "tests", "unit", "test_os_crash"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "crashsim: scenario %s: " % SCENARIO in p.stdout, p.stdout
    assert "crashsim: FAIL" not in p.stdout, p.stdout
