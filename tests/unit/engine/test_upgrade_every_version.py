"""A state of every past schema version upgrades to today's (issue 38), on SQLite here and on
PostgreSQL in tests/e2e/engine/test_upgrade_every_version_postgres.py: its data survive, and its schema is the one a new state gets. The old states are
built by tests/support/past_states.py from the frozen steps, each version's schema pinned."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Connection, MetaData, create_engine, func, select, text

from dispute_evidence.state.schema import SCHEMA_VERSION
from dispute_evidence.state.store import StateStore
from tests.support.past_states import ROWS, SCHEMAS, build, describe, fingerprint, whole

VERSIONS = range(1, SCHEMA_VERSION + 1)


def test_every_version_has_its_schema_pinned():
    assert sorted(SCHEMAS) == list(VERSIONS)  # a new version: pin what its steps build


def _as_shipped(c: Connection, version: int) -> None:
    assert fingerprint(describe(c)) == SCHEMAS[version], (
        f"the steps up to v{version} no longer build what v{version} shipped with: a "
        "migration step is frozen once released; change today's schema in a new step"
    )


def _count(c: Connection, tables: MetaData, name: str, row: dict[str, Any]) -> int:
    table = tables.tables[name]
    same = [table.c[k].is_(None) if v is None else table.c[k] == v for k, v in row.items()]
    return int(c.execute(select(func.count()).select_from(table).where(*same)).scalar_one())


def _upgraded(
    url: str, version: int, built: Callable[[Connection, int], None] | None = None
) -> dict[str, Any]:
    """Build the state `version` left at `url` (an empty database), check it with `built`,
    open it (the upgrade), check every row it held survived; returns its schema as the
    database reports it."""
    engine = create_engine(url)
    with engine.begin() as c:
        build(c, version)
    if built is not None:
        with engine.connect() as c:
            built(c, version)
    StateStore(url).close()
    with engine.connect() as c:
        tables = MetaData()
        tables.reflect(c)  # once, not once a row
        assert c.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == (
            str(SCHEMA_VERSION)
        )
        lost = [(name, row) for since, name, row in ROWS if since <= version
                if _count(c, tables, name, row) != 1]  # fmt: skip
        assert lost == [], f"v{version}: rows lost in the upgrade"
        if 6 <= version < 10:  # v10: the approval in force is the approvals log's first entry
            logged = {"provider_dispute_id": "dp_v6", "evidence_hash": "e6", "version": "ve6",
                      "approved_by": "alice", "at": "2026-01-02T03:04:05Z", "applied": 1}  # fmt: skip
            assert _count(c, tables, "approvals", logged) == 1
        found = describe(c)
    engine.dispose()
    return found


@pytest.fixture(scope="module")
def fresh_sqlite(tmp_path_factory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("fresh") / "new.sqlite3"
    StateStore(path).close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as c:
        found = describe(c)
    engine.dispose()
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_a_sqlite_state_of_each_past_version_is_as_shipped_and_upgrades_to_todays(
    tmp_path, version, fresh_sqlite
):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    assert _upgraded(url, version, built=_as_shipped) == fresh_sqlite


def test_a_new_sqlite_state_is_made_in_one_step_as_the_steps_make_it(tmp_path, monkeypatch):
    """Every new user's first run, and every test's, makes its state: in one step (~0.04 s),
    not 25 (~0.34 s, quiet), with the same tables, declared types, indexes, constraints and
    `meta` rows as the steps make."""
    from dispute_evidence.state import migrations

    stepped_url = f"sqlite:///{tmp_path / 'stepped.sqlite3'}"
    engine = create_engine(stepped_url)
    with engine.begin() as c:
        migrations.migrate(c)  # the 25 steps, one after another
    engine.dispose()

    def no_step(_c: Any) -> None:
        raise AssertionError("a new SQLite state ran a migration step")

    monkeypatch.setattr(migrations, "MIGRATIONS", dict.fromkeys(migrations.MIGRATIONS, no_step))
    StateStore(tmp_path / "new.sqlite3").close()
    assert whole(f"sqlite:///{tmp_path / 'new.sqlite3'}") == whole(stepped_url)


def test_a_new_sqlite_state_stopped_while_it_is_made_opens_whole_the_next_time(tmp_path):
    """Ctrl-C (or a kill) while a new SQLite state is made: SQLite's driver commits each
    CREATE made outside a transaction, so half of today's tables could be left under no
    version, which the steps then fail on and the next open calls damaged. Made whole or
    not at all, the next open makes it as a new one would be."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    made: list[str] = []

    def stop_half_way(_c: Any, _cursor: Any, sql: str, *_a: Any) -> None:
        if sql.lstrip().upper().startswith("CREATE"):
            made.append(sql)
            if len(made) == 23:  # of 46
                raise KeyboardInterrupt

    path = tmp_path / "s.sqlite3"
    event.listen(Engine, "before_cursor_execute", stop_half_way)
    try:
        with pytest.raises(KeyboardInterrupt):
            StateStore(path)
    finally:
        event.remove(Engine, "before_cursor_execute", stop_half_way)
    assert len(made) == 23
    StateStore(path).close()  # not StateDamaged
    StateStore(tmp_path / "new.sqlite3").close()
    assert whole(f"sqlite:///{path}") == whole(f"sqlite:///{tmp_path / 'new.sqlite3'}")
