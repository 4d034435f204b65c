"""Shared fixtures: a real sandbox on loopback, seeded with known disputes; and the tiers."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread  # noqa: E402
from dispute_evidence.sandbox.workload import TOKEN, seed_rows  # noqa: E402
from tests.support.examples import FAST_EXAMPLES, FAST_PROFILE  # noqa: E402
from tests.workers import (  # noqa: E402, F401  (hooks: which tests share an xdist worker)
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
    write_groups,
)

__all__ = ["TOKEN", "seed_rows"]  # tests import them from here too

# The inner loop's property tests draw a fifth of their examples (`make test-fast` loads this
# profile; `make test` draws them all): tests/support/examples.py.
settings.register_profile(FAST_PROFILE, max_examples=FAST_EXAMPLES)


# Tiers (issue 38), one folder each: `tests/unit/` (no socket, no subprocess, no Prefect
# server; `make test-fast` runs only these), `tests/integration/` (a server over loopback: the
# sandbox, a Prefect server, a local receiver), `tests/e2e/` (processes: the CLI as a
# subprocess, chromium, tesseract, PostgreSQL, fleet workers). Below each, the area
# (`engine/`, `flows/`, ...); helpers shared across tiers live in `tests/support/` (no tests).
# A test's folder is its tier, marked `unit`, `integration` or `e2e` (so `-m unit` still
# works). What a test needs is checked against its folder: the fixtures it uses (below) or its
# own or its module's marker (`integration`, `e2e`, or `sandbox_server`, `prefect`, `fleet`,
# `slow`) name the tier it needs, and a test in a lower tier's folder fails at collection; a
# unit test that opens a socket or starts a process anyway fails when it does
# (`pytest_runtest_makereport` below). A test outside the tier folders gets the tier it needs.
SERVER_FIXTURES = {
    "prefect_harness": "prefect",
    "sandbox": "sandbox_server",
    "sandbox_factory": "sandbox_server",
}
TIER_OF_MARKER = {
    "prefect": "integration",
    "sandbox_server": "integration",
    "integration": "integration",
    "fleet": "e2e",
    "slow": "e2e",
    "e2e": "e2e",
}
TIERS = ("unit", "integration", "e2e")  # lowest first
TESTS = Path(__file__).parent


def folder_tier(item: pytest.Item) -> str | None:
    """The tier folder `item` lives in (tests/unit/..., ...), None outside them."""
    try:
        top = item.path.relative_to(TESTS).parts[0]
    except ValueError:
        return None
    return top if top in TIERS else None


def needed_tier(item: pytest.Item) -> str:
    """The tier `item`'s fixtures and markers need: the highest they name, else unit."""
    fixtures = getattr(item, "fixturenames", ())
    for fixture, marker in SERVER_FIXTURES.items():
        if fixture in fixtures:
            item.add_marker(getattr(pytest.mark, marker))
    if item.path.parent.name == "fleet":
        item.add_marker(pytest.mark.fleet)
    named = {TIER_OF_MARKER[m.name] for m in item.iter_markers() if m.name in TIER_OF_MARKER}
    return max(named, key=TIERS.index, default="unit")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    misplaced = []
    timeout = float(config.getoption("timeout", None) or config.getini("timeout") or 0)
    for item in items:
        needed, folder = needed_tier(item), folder_tier(item)
        if folder is not None and TIERS.index(needed) > TIERS.index(folder):
            misplaced.append(f"{item.nodeid}: needs {needed}, lives in tests/{folder}/")
        item.add_marker(getattr(pytest.mark, folder or needed))
        if harness_waits(item, timeout):  # the server's start within its budget
            item.add_marker(pytest.mark.timeout(timeout + HARNESS_START))
    if misplaced:
        raise pytest.UsageError(
            "tests in a lower tier's folder than they need (move the module to tests/<tier>/, "
            "or drop what makes it need more):\n  " + "\n  ".join(misplaced)
        )
    write_groups(config, items)


# What a unit test may not do, as Python's audit hooks name it: open a socket (from the test's
# own thread: threads that earlier tests left in this worker, Prefect's say, may still talk)
# or start a process (from any thread). The document reader's worker process is the one
# exception: documents/reading.py reads every file in it (a sandbox with its own memory and
# CPU limits, importing nothing), so it is part of the unit that reads documents.
SOCKET_EVENTS = ("socket.connect", "socket.bind")
PROCESS_EVENTS = ("subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.system",
                  "os.exec")  # fmt: skip
READ_WORKER = "_read_worker.py"
_seen: list[str] = []
_watching: list[int] = []  # the thread running the current unit test, while it runs


def _audit(event: str, args: tuple[object, ...]) -> None:
    if not _watching:
        return
    if (
        event in PROCESS_EVENTS
        and READ_WORKER not in repr(args[:2])
        or event in SOCKET_EVENTS
        and threading.get_ident() == _watching[0]
    ):
        _seen.append(f"{event}{args[:2]!r}")


sys.addaudithook(_audit)


def _is_unit(item: pytest.Item) -> bool:
    return item.get_closest_marker("unit") is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Watches a unit test's whole run: its fixtures of any scope, its call, its teardown."""
    _seen.clear()
    if _is_unit(item):
        _watching.append(threading.get_ident())
    try:
        return (yield)
    finally:
        _watching.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """A unit test that opened a socket or started a process fails, naming what it did: mark it
    (or its module) with the tier it needs."""
    report = yield
    if _seen and _is_unit(item):
        what = f"{_seen[0]} ({len(_seen)} in all)"
        _seen.clear()
        report.outcome = "failed"
        report.longrepr = (
            f"a unit test (make test-fast) may not open a socket or start a process; its "
            f"{call.when} did {what}: mark it integration (a socket) or e2e (a process)"
        )
    return report


def harness_waits(item: pytest.Item, timeout: float) -> bool:
    """A Prefect-harness test on pytest's own timeout (not one it marked itself)."""
    uses = "prefect_harness" in getattr(item, "fixturenames", ())
    return bool(timeout) and uses and item.get_closest_marker("timeout") is None


# Seconds the session's Prefect server may take to start. The first test of its group waits
# for it within pytest's timeout, so that test is given this much more: a `make test` on a
# machine 3x slower than usual spent 224 s of a test's 300 s starting the server, and the test
# timed out, though it passed alone; a later one spent 263 s in that test's setup, and CI's
# machine was a quarter slower still. A hung start still ends, at this.
HARNESS_START = 480


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test server for the session (tests/workers.py keeps its users on one worker).
    Its first start migrates a new database: 27 s on a loaded 2-core machine, and past 60 s
    with `make test` and benchmarks beside it, when every test of the group errored at once."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=HARNESS_START):
        yield


@pytest.fixture
def sandbox_factory() -> Iterator[object]:
    started = []

    def start(config: SandboxConfig | None = None, rows: list[dict[str, object]] | None = None):
        sb = run_sandbox_in_thread(
            config or SandboxConfig(tokens=(TOKEN,)), rows if rows is not None else seed_rows()
        )
        started.append(sb)
        return sb

    yield start
    for sb in started:
        sb.stop()


@pytest.fixture
def sandbox(sandbox_factory):
    return sandbox_factory()


@pytest.fixture(autouse=True)
def close_state_stores(monkeypatch):
    """Every state store a test opens is closed when the test ends (no connection left to GC)."""
    from dispute_evidence.state.store import StateStore

    opened: list[StateStore] = []
    original = StateStore.__init__

    def tracking_init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(StateStore, "__init__", tracking_init)
    yield
    for store in opened:
        store.close()
