"""The state store's edge (state/errors.py): a database driver's error leaves the store as a
state error, named by meaning, so nothing above state/ catches sqlalchemy or reads its text."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from dispute_evidence.state.store import StateFull, StateStore


def _no_room_to_grow(dbapi_conn, _record) -> None:
    dbapi_conn.execute("PRAGMA max_page_count = 1")  # SQLite's own 'database or disk is full'


def test_a_full_sqlite_state_raises_state_full_naming_its_file(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = StateStore(path)
    store.close()  # the pool's connections were made before the limit
    event.listen(store.engine, "connect", _no_room_to_grow)
    with pytest.raises(StateFull) as full:
        store.runs.set_meta("note", "x" * 100_000)  # more pages than the file has
    assert full.value.where == str(path)
    assert f"cannot write {path}" in str(full.value)
    assert "database or disk is full" in str(full.value.__cause__)  # the driver's, kept as cause
    store.close()
