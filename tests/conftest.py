"""Shared fixtures: a real sandbox on loopback, seeded with known disputes."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread  # noqa: E402
from dispute_evidence.sandbox.workload import TOKEN, seed_rows  # noqa: E402

__all__ = ["TOKEN", "seed_rows"]  # tests import them from here too


# `make test-fast` leaves out what needs a server (a Prefect server, the sandbox API over
# loopback, several workers): the tests that use those fixtures are marked here; a module that
# starts one itself says so with its own `pytestmark`.
SERVER_FIXTURES = {
    "prefect_harness": "prefect",
    "sandbox": "sandbox_server",
    "sandbox_factory": "sandbox_server",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        for fixture, marker in SERVER_FIXTURES.items():
            if fixture in fixtures:
                item.add_marker(getattr(pytest.mark, marker))
        if "tests/fleet/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.fleet)


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
    from dispute_evidence.engine.state import StateStore

    opened: list[StateStore] = []
    original = StateStore.__init__

    def tracking_init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(StateStore, "__init__", tracking_init)
    yield
    for store in opened:
        store.close()
