"""conftest.py -- pytest fixtures for the system tests."""

import pytest

from ferrite import Machine, power_off_all


def _machines():
    """The body of the machine fixtures: a factory of Machines; at teardown
    every one started is powered off, then the test fails if a console
    shows a kernel panic (unless started with expect_panic=True)."""
    started = []

    def start(**kwargs):
        m = Machine(**kwargs)
        started.append(m)
        return m

    yield start
    panics = power_off_all(started)
    if panics:
        pytest.fail("\n\n".join(panics), pytrace=False)


@pytest.fixture
def machines():
    """A factory of Machines for one test (see _machines)."""
    yield from _machines()


@pytest.fixture(scope="module")
def module_machines():
    """A factory of Machines shared by a module's tests (see _machines); a
    panic fails the module's last test at its teardown."""
    yield from _machines()


@pytest.fixture
def image(tmp_path):
    """The path of a fresh NVM image (created by the launcher on first use)."""
    return tmp_path / "test.nvm"
