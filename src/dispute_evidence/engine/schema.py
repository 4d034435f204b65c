"""State store schema, versioned, with step-by-step migrations (dlt style).

Dispute states:  pending -> submitted | rejected | not_found | past_due | incomplete
                 (a submitted dispute goes back to pending when its payload changes)
File states:     pending -> sending -> uploaded | rejected
                 ('sending' is written before the request: after a crash it means
                 "may have landed": list the dispute's files and match before re-sending)
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    text,
)
from sqlalchemy.engine import Connection

SCHEMA_VERSION = 4
metadata = MetaData()

meta = Table("meta", metadata, Column("key", String(64), primary_key=True), Column("value", Text))

runs = Table(
    "runs", metadata,
    Column("run_id", String(64), primary_key=True),
    Column("started_at", String(32), nullable=False),
    Column("finished_at", String(32)),
    Column("trigger", String(32)),
    Column("outcome", Text),
    Column("counts", Text),
)  # fmt: skip

ingested_files = Table(
    "ingested_files", metadata,
    Column("sha256", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("run_id", String(64)),
    Column("ingested_at", String(32)),
    Column("summary", Text),
)  # fmt: skip

disputes = Table(
    "disputes", metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("order_number", String(255)),
    Column("response_due_by", String(32)),
    Column("payload", LargeBinary),
    Column("payload_hash", String(64)),
    Column("submitted_hash", String(64)),
    Column("dispute_id", String(255)),
    Column("status", String(32), nullable=False, server_default="pending"),
    Column("detail", Text),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("last_error", Text),
    Column("lease_owner", String(64)),
    Column("lease_expires", Float),
    Column("updated_at", String(32)),
    Column("summary_input", String(64)),  # v3: what the current summary PDF was made from
    # v4: what the API says (read back): its status, when we saw it change, when last read,
    # and its deadline (which wins over the sheet's)
    Column("api_status", String(64)),
    Column("api_status_at", String(32)),
    Column("api_read_at", String(32)),
    Column("api_due_by", String(32)),
    Index("disputes_by_status", "status"),
)  # fmt: skip

evidence_files = Table(
    "evidence_files", metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("sha256", String(64), primary_key=True),
    Column("file_name", Text, nullable=False),
    Column("path", Text, nullable=False),
    Column("size", Integer, nullable=False),
    Column("mime", String(64)),
    Column("status", String(32), nullable=False, server_default="pending"),
    Column("remote_file_id", String(255)),
    Column("last_error", Text),
    Column("updated_at", String(32)),
    Index("files_by_status", "status"),
)  # fmt: skip

# v2: problems a person must fix, kept until the file that caused them is replaced (source:
# the inbox file's name) or, for problems of the evidence build (source "(build)"), rebuilt.
open_problems = Table(
    "open_problems", metadata,
    Column("source", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("run_id", String(64)),
    Index("problems_by_source", "source"),
)  # fmt: skip

# v4: every status the API showed for a dispute, when first seen (outcomes, win rates)
status_history = Table(
    "status_history", metadata,
    Column("provider_dispute_id", String(255), nullable=False),
    Column("status", String(64), nullable=False),
    Column("seen_at", String(32), nullable=False),
    Column("run_id", String(64)),
    Index("history_by_dispute", "provider_dispute_id"),
)  # fmt: skip

RECORD_TABLES = {
    "disputes": "rec_disputes",
    "orders": "rec_orders",
    "shipments": "rec_shipments",
    "payments": "rec_payments",
}


def migrate(conn: Connection) -> int:
    """Bring the schema to SCHEMA_VERSION, one step at a time; returns the version found."""
    metadata.create_all(conn, tables=[meta])
    row = conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).first()
    found = int(row[0]) if row else 0
    if found > SCHEMA_VERSION:
        raise RuntimeError(
            f"state store schema v{found} is newer than this program (v{SCHEMA_VERSION}); upgrade it"
        )
    for step in range(found + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[step](conn)
        conn.execute(meta.delete().where(meta.c.key == "schema_version"))
        conn.execute(meta.insert().values(key="schema_version", value=str(step)))
    return found


def _v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[runs, ingested_files, disputes, evidence_files])


def _v2(conn: Connection) -> None:
    metadata.create_all(conn, tables=[open_problems])
    if conn.dialect.name == "postgresql":  # outcomes became headlines ("5 sent · 3 need you")
        conn.execute(text("ALTER TABLE runs ALTER COLUMN outcome TYPE TEXT"))


def add_columns(conn: Connection, table: str, columns: dict[str, str]) -> None:
    """ALTER TABLE … ADD COLUMN for each column the table lacks (v1 created tables as they are
    defined now, so a column may already be there)."""
    present = {c["name"] for c in inspect(conn).get_columns(table)}
    for name, kind in columns.items():
        if name not in present:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {kind}"))


def _v3(conn: Connection) -> None:
    add_columns(conn, "disputes", {"summary_input": "VARCHAR(64)"})


def _v4(conn: Connection) -> None:
    add_columns(conn, "disputes", {"api_status": "VARCHAR(64)", "api_status_at": "VARCHAR(32)",
                                    "api_read_at": "VARCHAR(32)", "api_due_by": "VARCHAR(32)"})  # fmt: skip
    metadata.create_all(conn, tables=[status_history])


MIGRATIONS = {1: _v1, 2: _v2, 3: _v3, 4: _v4}
