"""A state written by an older version opens in this one: each migration step runs once."""

from __future__ import annotations

import sqlite3

from dispute_evidence.state.schema import SCHEMA_VERSION
from dispute_evidence.state.store import StateStore
from tests.support.old_state import as_version
from tests.support.source import tree_of, walked


def test_a_version_1_state_is_migrated_step_by_step(tmp_path):
    path = tmp_path / "old.sqlite3"
    StateStore(path).close()
    with sqlite3.connect(path) as c:  # what version 1 had: no later table or column
        c.execute("DROP TABLE open_problems")
        c.execute("DROP TABLE status_history")
        c.execute("DROP TABLE alerts_sent")
        c.execute("DROP TABLE generated_docs")
        c.execute("DROP TABLE run_lock")
        c.execute("DROP TABLE evidence_seen")
        for column in ("summary_input", "api_status", "api_status_at", "api_read_at", "api_due_by",
                       "approved_hash", "approved_by", "approved_at", "material_hash",
                       "generated_held"):  # fmt: skip
            c.execute(f"ALTER TABLE disputes DROP COLUMN {column}")
        c.execute("ALTER TABLE ingested_files DROP COLUMN inputs")
        c.execute("ALTER TABLE evidence_files DROP COLUMN kind")
        c.execute("ALTER TABLE disputes DROP COLUMN sent_to")
        c.execute("ALTER TABLE evidence_files DROP COLUMN sent_to")
        c.execute("ALTER TABLE evidence_files DROP COLUMN matched")
        as_version(c, 1)
        c.execute(
            "INSERT INTO disputes (provider_dispute_id, status) VALUES ('dp_old', 'submitted')"
        )
    with StateStore(path) as store:
        table = store.reports.dispute_rows()
        assert table["provider_dispute_id"].tolist() == ["dp_old"]  # kept
        assert "api_status" in table.columns and store.runs.open_problems() == []
        assert store.readback.status_history().empty
    with sqlite3.connect(path) as c:
        version = c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        columns = {r[1] for r in c.execute("PRAGMA table_info(disputes)")}
        read_with = {r[1] for r in c.execute("PRAGMA table_info(ingested_files)")}
        kinds = {r[1] for r in c.execute("PRAGMA table_info(evidence_files)")}
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert int(version) == SCHEMA_VERSION >= 7
    assert {"summary_input", "api_status", "api_due_by", "approved_hash"} <= columns
    assert "inputs" in read_with and "kind" in kinds  # v5
    assert "alerts_sent" in tables  # v6
    assert "sent_to" in columns and "sent_to" in kinds  # v7
    assert "matched" in kinds  # v8
    assert "generated_docs" in tables and "material_hash" in columns  # v9
    assert {"run_lock", "evidence_seen"} <= tables  # v11


def test_the_run_lock_and_seen_files_move_out_of_meta_into_their_tables(tmp_path):
    """v11: a state written by v10 kept them as packed text in `meta`; they keep their meaning."""
    import time

    path = tmp_path / "v10.sqlite3"
    StateStore(path).close()
    held_until = time.time() + 3600
    with sqlite3.connect(path) as c:
        c.execute("DROP TABLE run_lock")
        c.execute("DROP TABLE evidence_seen")
        as_version(c, 10)
        c.execute("INSERT INTO meta VALUES ('run_lock', ?)",
                  (f"otherhost:4242:r-old|{held_until}|2026-11-24T02:00:00Z",))  # fmt: skip
        c.execute("INSERT INTO meta VALUES ('evidence_seen', ?)",
                  ('["inbox/a.pdf|10|1.5", "inbox/b.pdf|20|2.5"]',))  # fmt: skip
    with StateStore(path) as store:
        assert store.runs.seen_evidence() == {"inbox/a.pdf|10|1.5", "inbox/b.pdf|20|2.5"}
        assert store.locks.run_lock_expires() == held_until
        who = store.locks.acquire_run_lock("thishost:1:r-new")
        assert who == "run r-old (started 2026-11-24T02:00:00Z)"
        assert (
            store.runs.get_meta("run_lock") is None and store.runs.get_meta("evidence_seen") is None
        )


def test_locks_and_leases_keep_the_time_the_store_is_given(tmp_path):
    """The store's wall clock decides: a lease or lock runs out when that clock says so."""
    now = [1_000_000.0]
    with StateStore(tmp_path / "s.sqlite3", wall=lambda: now[0]) as store:
        assert store.locks.acquire_run_lock("hostA:1:r1", ttl=120) is None
        assert store.locks.run_lock_expires() == 1_000_120.0
        assert store.locks.acquire_run_lock("hostB:1:r2", ttl=120) is not None  # still held
        now[0] += 121  # its holder stopped renewing it: the time ran out
        assert store.locks.acquire_run_lock("hostB:1:r2", ttl=120) is None


def test_locks_and_leases_keep_the_run_clock_by_default(tmp_path):
    """A store given no clock times its locks by the pipeline's (a simulation's calendar)."""
    from datetime import UTC, datetime

    from dispute_evidence import clock

    day = datetime(2027, 3, 1, 2, 0, tzinfo=UTC)
    with StateStore(tmp_path / "s.sqlite3") as store, clock.use(lambda: day):
        assert store.locks.acquire_run_lock("hostA:1:r1", ttl=120) is None
        assert store.locks.run_lock_expires() == day.timestamp() + 120


def test_each_migration_is_frozen_as_written(tmp_path):
    """v1 creates version 1's tables and columns, whatever today's tables are; each later
    step adds its own; the last one leaves the schema the store's tables describe."""
    from sqlalchemy import create_engine, inspect

    from dispute_evidence.state.migrations import MIGRATIONS
    from dispute_evidence.state.schema import metadata

    engine = create_engine(f"sqlite:///{tmp_path / 'steps.sqlite3'}")
    with engine.begin() as conn:
        MIGRATIONS[1](conn)
        v1 = {t: {c["name"] for c in inspect(conn).get_columns(t)} for t in ("disputes", "ingested_files", "evidence_files")}  # fmt: skip
        assert not {"summary_input", "api_status"} & v1["disputes"]
        assert "inputs" not in v1["ingested_files"] and "kind" not in v1["evidence_files"]
        assert not {"open_problems", "status_history"} & set(inspect(conn).get_table_names())
        for step in range(2, len(MIGRATIONS) + 1):
            MIGRATIONS[step](conn)
        for table in metadata.sorted_tables:
            if table.name != "meta":
                have = [c["name"] for c in inspect(conn).get_columns(table.name)]
                assert have == [c.name for c in table.columns], table.name
    engine.dispose()


def test_what_meta_held_as_json_moves_into_tables(tmp_path):
    """v13: the CE 3.0 verdicts, the API's views, the evidence kinds, the last picture and the
    review policy, kept by a v12 state as JSON in `meta`, keep their meaning in tables."""
    import json

    from dispute_evidence.engine.delivery.api_views import held_by_api_view
    from dispute_evidence.engine.prepare.case import _kept_ce3, api_views
    from dispute_evidence.engine.reporting.picture import Picture
    from dispute_evidence.engine.review.policy import kept_policy

    path = tmp_path / "v12.sqlite3"
    StateStore(path).close()
    packed = {
        "ce3_verdicts": {"dp_1": ["qualifies: prior orders 2001, 2002", True, True],
                         "dp_2": ["does not qualify: no prior order", False, False]},
        "api_dispute_views": {"dp_1": {"reason": "fraudulent", "amount": 1000.0,
                              "currency": "USD", "opened_on": "2026-11-01", "mismatch": ""},
                              "dp_2": {"reason": "general", "amount": None, "currency": "EUR",
                              "opened_on": "", "mismatch": "amount: 12.00 vs 13.00"}},
        "outcome_evidence_kinds": {"dp_1": ["e4fe8a2bf6fad049", "ynn"]},
        "last_picture": {"disputes": {"dp_1": "sent, files 2/2"}, "problems": ["a: b: c"]},
        "review_policy": {"hold": "all", "sweep_hours": 24.0, "since": "2026-11-02T00:00:00Z",
                          "by": "a run"},
    }  # fmt: skip
    with sqlite3.connect(path) as c:
        as_version(c, 12)
        c.executemany("INSERT INTO meta VALUES (?, ?)",
                      [(k, json.dumps(v)) for k, v in packed.items()])  # fmt: skip
    with StateStore(path) as store:
        ce3 = _kept_ce3(store)
        assert ce3["dp_1"].qualifies and ce3["dp_1"].with_ip_or_device
        assert not ce3["dp_2"].qualifies and ce3["dp_2"].why == "no prior order"
        assert api_views(store)["dp_1"].amount == 1000.0
        assert list(held_by_api_view(store)) == ["dp_2"]
        assert store.kept.evidence_kinds()["dp_1"].kinds == "ynn"
        before = Picture.from_kept(store.kept.last_picture())
        assert before == Picture({"dp_1": "sent, files 2/2"}, frozenset({"a: b: c"}))
        assert Picture({"dp_1": "sent, files 2/2"}).changes_since(before) == [
            "Problems: 0 new, 1 resolved"
        ]
        policy = kept_policy(store)
        assert policy is not None and (policy.hold, policy.sweep_hours, policy.by) == (
            "all", 24.0, "a run")  # fmt: skip
    with sqlite3.connect(path) as c:
        left = {k for (k,) in c.execute("SELECT key FROM meta")}
    assert not left & set(packed)


def test_a_state_with_no_report_yet_has_no_picture(tmp_path):
    from dispute_evidence.engine.reporting.picture import Picture

    with StateStore(tmp_path / "s.sqlite3") as store:
        assert store.kept.last_picture() is None
        store.kept.keep_picture(Picture({}, frozenset()).kept(), "2026-11-25T00:00:00Z")
        assert Picture.from_kept(store.kept.last_picture()) == Picture()  # empty, yet kept


V15_DISPUTES = (
    "provider_dispute_id TEXT, order_number TEXT, amount FLOAT, currency TEXT, reason TEXT, "
    "response_due_by TEXT, network_reason_code TEXT, dispute_date TEXT, "
    "_file TEXT, _sheet TEXT, _row BIGINT, _seq BIGINT"
)


def test_a_version_15_state_keeps_its_disputes_and_gains_statements_and_products(tmp_path):
    """v18 (issue 37 items 4, 5): the disputes records gain `statement` with their rows kept;
    statement files and products exports get tables of their own."""
    from sqlalchemy import create_engine, inspect

    from dispute_evidence.state.schema import RECORD_TABLES

    path = tmp_path / "v15.sqlite3"
    StateStore(path).close()
    with sqlite3.connect(path) as c:
        c.execute("DROP TABLE rec_disputes")
        c.execute(f"CREATE TABLE rec_disputes ({V15_DISPUTES})")
        c.execute("INSERT INTO rec_disputes (provider_dispute_id, order_number, amount, _file, "
                  "_row, _seq) VALUES ('dp_1', '1001', 12.5, 'd.csv', 2, 1)")  # fmt: skip
        as_version(c, 15)
        assert not {"rec_statements", "rec_products"} & {
            r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    with StateStore(path) as store:
        records = store.records.load_records(["disputes", "statements", "products"])
    assert records["disputes"][["provider_dispute_id", "amount", "statement"]].values.tolist() == [
        ["dp_1", 12.5, ""]
    ]
    assert records["statements"].empty and records["products"].empty
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as c:
        for kind in ("disputes", "statements", "products"):
            have = [col["name"] for col in inspect(c).get_columns(f"rec_{kind}")]
            assert have == [col.name for col in RECORD_TABLES[kind].columns], kind
        assert not [t for t in inspect(c).get_table_names() if t.endswith("_v17")]
    engine.dispose()


def test_no_step_builds_todays_tables():
    """Each step spells out its own tables: one that made today's (state/schema.py) would give
    an old state columns added later, and the later step adding them would then fail."""
    import ast
    import inspect as source_of

    from sqlalchemy import MetaData, Table

    from dispute_evidence.state import (
        migrations,
        schema,
        step_tools,
        steps_first,
        steps_records,
        steps_unpack,
    )

    steps = (migrations, step_tools, steps_first, steps_unpack, steps_records)
    trees = [tree_of(source_of.getsource(module)) for module in steps]
    used = {n.id for tree in trees for n in walked(tree) if isinstance(n, ast.Name)}
    todays = {name for name, v in vars(schema).items() if isinstance(v, Table | MetaData)}
    assert used & todays == {"meta"}  # the key-value table every version had, unchanged
