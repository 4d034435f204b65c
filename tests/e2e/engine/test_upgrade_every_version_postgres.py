"""A PostgreSQL state of every past schema version upgrades to today's (issue 38): the
PostgreSQL half of tests/unit/engine/test_upgrade_every_version.py, on a cluster of its own."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, text

from dispute_evidence.state.store import StateStore
from tests.e2e.engine.test_postgres import postgres_url  # noqa: F401 (the throwaway cluster)
from tests.support.past_states import describe, whole
from tests.unit.engine.test_upgrade_every_version import VERSIONS, _upgraded


def _empty(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(scope="module")
def fresh_postgres(postgres_url) -> dict[str, Any]:  # noqa: F811
    _empty(postgres_url)
    StateStore(postgres_url).close()
    engine = create_engine(postgres_url)
    with engine.connect() as c:
        found = describe(c)
    engine.dispose()
    return found


@pytest.mark.e2e  # a PostgreSQL cluster of its own (a process)
@pytest.mark.parametrize("version", VERSIONS)
def test_a_postgres_state_of_each_past_version_upgrades_to_todays(
    postgres_url,  # noqa: F811
    version,
    fresh_postgres,
):
    _empty(postgres_url)
    assert _upgraded(postgres_url, version) == fresh_postgres


@pytest.mark.e2e
def test_a_new_postgres_state_is_made_in_one_step_as_the_steps_make_it(
    postgres_url,  # noqa: F811
    monkeypatch,
):
    """A fleet merchant's first night makes its state: in one step (0.06 s), not 25 (0.34 s
    of its start-up, issue 48 item 2), with the same tables, indexes and constraints."""
    from dispute_evidence.state import migrations

    _empty(postgres_url)
    engine = create_engine(postgres_url)
    with engine.begin() as c:
        migrations.migrate(c)  # the 25 steps, one after another
    engine.dispose()
    stepped = whole(postgres_url)
    _empty(postgres_url)

    def no_step(_c: Any) -> None:
        raise AssertionError("a new PostgreSQL state ran a migration step")

    monkeypatch.setattr(migrations, "MIGRATIONS", dict.fromkeys(migrations.MIGRATIONS, no_step))
    StateStore(postgres_url).close()
    assert whole(postgres_url) == stepped


@pytest.mark.e2e
def test_a_new_postgres_state_is_made_in_a_few_round_trips(postgres_url):  # noqa: F811
    """A shard makes hundreds of new states a night, 16 at once (issue 48): its DDL goes in
    one script, compiled once a process, not a table check and a statement each (~80 round
    trips: 0.5 s median of a merchant's start-up with 16 at once, 0.08 s in one)."""
    from sqlalchemy import event

    _empty(postgres_url)
    sent: list[str] = []
    engine = create_engine(postgres_url)
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, sql, *_a: sent.append(sql))
    with engine.begin() as c:
        from dispute_evidence.state.schema import create_new

        assert create_new(c)
    engine.dispose()
    assert len(sent) <= 5, sent  # the catalogue's table names, the script, the version
