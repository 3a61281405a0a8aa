"""conftest.py -- pytest fixtures for the system tests, and their order
when tests/run-all runs them in pytest-xdist's workers (--dist loadgroup).

Every test makes its own images (tmp_path), sockets (beside its image)
and ports, so any two can run at once. Two things are arranged here:

- The tests of a module that share a module-scoped fixture (the shell's
  osh, the host link's machine, the hostile campaign's images, ...) go to
  one worker together, in their order (an xdist_group per module), so
  that it is made once and each test finds what the ones before it left.
- Tests marked slow(SECONDS) -- about what they took in a clean-clone
  make test on 2 cores, two at a time (those of 15 s or more); only the
  order depends on it -- are handed out first, the longest first, with
  the rest of their group: a long test started last would leave the other
  worker idle while it finishes.
"""

import pytest

from ferrite import Machine, power_off_all


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow(seconds): takes that long, about; handed out first, "
        "the longest first (conftest.py)")
    config.addinivalue_line(
        "markers", "xdist_group(name): run on one pytest-xdist worker together")


def module_fixture(item):
    """Whether a test uses a module-scoped fixture (a machine, or images,
    its module's tests share)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Keep the tests that share a module's fixture on one worker; hand
    out slow tests first (with the rest of their group, if in one)."""
    groups = {}
    for item in items:
        if module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
            groups.setdefault(item.module.__name__, []).append(item)
    seconds = {item.nodeid: item.get_closest_marker("slow").args[0]
               for item in items if item.get_closest_marker("slow")}
    for members in groups.values():
        longest = max(seconds.get(item.nodeid, 0) for item in members)
        for item in members:
            seconds[item.nodeid] = longest
    items.sort(key=lambda item: -seconds.get(item.nodeid, 0))


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
