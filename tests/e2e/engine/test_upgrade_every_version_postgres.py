"""A PostgreSQL state of every past schema version upgrades to today's (issue 38): the
PostgreSQL half of tests/unit/engine/test_upgrade_every_version.py, on a cluster of its own."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, text

from dispute_evidence.state.store import StateStore
from tests.e2e.engine.test_postgres import postgres_url  # noqa: F401 (the throwaway cluster)
from tests.support.past_states import describe
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
