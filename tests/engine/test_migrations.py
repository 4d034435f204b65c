"""A state written by an older version opens in this one: each migration step runs once."""

from __future__ import annotations

import sqlite3

from dispute_evidence.engine.schema import SCHEMA_VERSION
from dispute_evidence.engine.state import StateStore


def test_a_version_1_state_is_migrated_step_by_step(tmp_path):
    path = tmp_path / "old.sqlite3"
    StateStore(path).close()
    with sqlite3.connect(path) as c:  # what version 1 had: no later table or column
        c.execute("DROP TABLE open_problems")
        c.execute("DROP TABLE status_history")
        c.execute("DROP TABLE alerts_sent")
        c.execute("DROP TABLE generated_docs")
        for column in ("summary_input", "api_status", "api_status_at", "api_read_at", "api_due_by",
                       "approved_hash", "approved_by", "approved_at", "material_hash",
                       "generated_held"):  # fmt: skip
            c.execute(f"ALTER TABLE disputes DROP COLUMN {column}")
        c.execute("ALTER TABLE ingested_files DROP COLUMN inputs")
        c.execute("ALTER TABLE evidence_files DROP COLUMN kind")
        c.execute("ALTER TABLE disputes DROP COLUMN sent_to")
        c.execute("ALTER TABLE evidence_files DROP COLUMN sent_to")
        c.execute("ALTER TABLE evidence_files DROP COLUMN matched")
        c.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        c.execute(
            "INSERT INTO disputes (provider_dispute_id, status) VALUES ('dp_old', 'submitted')"
        )
    with StateStore(path) as store:
        table = store.dispute_rows()
        assert table["provider_dispute_id"].tolist() == ["dp_old"]  # kept
        assert "api_status" in table.columns and store.open_problems() == []
        assert store.status_history().empty
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


def test_each_migration_is_frozen_as_written(tmp_path):
    """v1 creates version 1's tables and columns, whatever today's tables are; each later
    step adds its own; the last one leaves the schema the store's tables describe."""
    from sqlalchemy import create_engine, inspect

    from dispute_evidence.engine.schema import MIGRATIONS, metadata

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
