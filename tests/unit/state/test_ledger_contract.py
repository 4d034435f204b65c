"""The ledger contract (tests/support/ledger_contract.py) on the real store over SQLite and on
the in-memory fake the submitter's unit tests use: the fake may stand in for the store only
while both pass the same checks. PostgreSQL: tests/e2e/engine/test_postgres.py."""

from __future__ import annotations

import pytest

from dispute_evidence.state.store import StateStore
from tests.support.ledger_contract import CONTRACT, Clock, fake_seeded, store_seeded


@pytest.fixture(params=["sqlite", "fake"])
def seeded(request, tmp_path):
    clock = Clock()
    if request.param == "fake":
        yield fake_seeded(clock)
        return
    store = StateStore(tmp_path / "state.sqlite3", wall=clock)
    try:
        yield store_seeded(store, clock)
    finally:
        store.close()


@pytest.mark.parametrize("check", CONTRACT, ids=[c.__name__ for c in CONTRACT])
def test_the_ledger_keeps_its_contract(seeded, check):
    check(seeded)
