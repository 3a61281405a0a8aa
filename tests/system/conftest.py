"""conftest.py -- pytest fixtures for the system tests."""

import pytest

from ferrite import Machine


@pytest.fixture
def machines():
    """A factory of Machines; every one started is powered off at teardown."""
    started = []

    def start(**kwargs):
        m = Machine(**kwargs)
        started.append(m)
        return m

    yield start
    for m in started:
        m.close()


@pytest.fixture
def image(tmp_path):
    """The path of a fresh NVM image (created by the launcher on first use)."""
    return tmp_path / "test.nvm"
