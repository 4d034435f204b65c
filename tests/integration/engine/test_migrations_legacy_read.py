"""A version 18 state without typed facts reads its payloads by the legacy path, through a
run against the sandbox (the migrations: tests/unit/engine/test_migrations.py)."""

from __future__ import annotations

import sqlite3

import orjson

from dispute_evidence.state.store import StateStore
from tests.support.old_state import as_version


def test_a_version_18_state_without_facts_reads_its_payloads_by_the_legacy_path(
    sandbox_factory, tmp_path
):
    """v19 (issue 36): disputes gain `facts`, the typed facts their payload is derived from. A
    state written before keeps payloads only: the case, the report and the next send read them
    by the legacy path (evidence/wire.py) to the same facts, and the next build keeps them."""
    from dispute_evidence.engine.prepare.case import case_reader
    from dispute_evidence.engine.prepare.kept_facts import facts_of
    from dispute_evidence.evidence.wire import legacy_facts_from_payload
    from tests.conftest import seed_rows
    from tests.support.engine_helpers import engine_pass, make_inbox

    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    path = tmp_path / "state.sqlite3"
    with StateStore(path) as store:
        engine_pass(store, sb.base_url, inbox)
        kept = facts_of(store, store.disputes.payloads())
        cases = {
            pid: case_reader(store)(pid, body) for pid, body in store.disputes.payloads().items()
        }
    assert set(kept) == {"dp_test_0", "dp_test_1"}
    with sqlite3.connect(path) as c:  # as v18 left it: no facts column
        c.execute("ALTER TABLE disputes DROP COLUMN facts")
        c.execute("UPDATE meta SET value = 'older rules' WHERE key = 'built_inputs'")
        as_version(c, 18)
    with StateStore(path) as store:
        assert store.disputes.kept_facts() == {}  # the column is back, empty
        payloads = store.disputes.payloads()
        assert facts_of(store, payloads) == kept  # read from the payloads: the same facts
        assert {p: case_reader(store)(p, b) for p, b in payloads.items()} == cases
        assert kept["dp_test_0"] == legacy_facts_from_payload(orjson.loads(payloads["dp_test_0"]))
        # the new build rules rebuild once: the payloads, unchanged, are not sent again, and
        # their facts are kept from now on
        engine_pass(store, sb.base_url, inbox)
        assert set(store.disputes.kept_facts()) == {"dp_test_0", "dp_test_1"}
        assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1  # sent once, not again
