"""Shared fixtures: a real sandbox on loopback, seeded with known disputes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread  # noqa: E402
from dispute_evidence.sandbox.ids import iso  # noqa: E402

TOKEN = "sk_test_fixture_token_93f1"


def seed_rows(n: int = 3, prefix: str = "dp_test_") -> list[dict[str, object]]:
    now = datetime.now(UTC)
    return [
        {
            "provider_dispute_id": f"{prefix}{i}",
            "initiated_at": iso(now - timedelta(days=3)),
            "response_due_by": iso(now + timedelta(days=10 + i)),
            "amount": 1000 + i,
            "currency": "USD",
            "reason": "fraudulent",
            "status": "needs_response",
            "provider": "stripe",
        }
        for i in range(n)
    ]


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
