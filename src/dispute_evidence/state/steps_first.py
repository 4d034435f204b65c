"""Migration steps v1-v12: the first tables, and the columns and tables they gained one
version at a time. Frozen as written (see state/migrations.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

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
    select,
    text,
)
from sqlalchemy.engine import Connection

from dispute_evidence.state.schema import V12_RECORDS, meta, record_table

if TYPE_CHECKING:
    pass

from dispute_evidence.state.step_tools import add_columns, alter, rebuild


def v1(conn: Connection) -> None:
    """Runs, ingested files, disputes and their evidence files, as version 1 had them."""
    v1 = MetaData()
    Table(
        "runs",
        v1,
        Column("run_id", String(64), primary_key=True),
        Column("started_at", String(32), nullable=False),
        Column("finished_at", String(32)),
        Column("trigger", String(32)),
        Column("outcome", String(32)),  # TEXT from v2 (PostgreSQL; SQLite keeps any length)
        Column("counts", Text),
    )
    Table(
        "ingested_files",
        v1,
        Column("sha256", String(64), primary_key=True),
        Column("name", Text, nullable=False),
        Column("seq", Integer, nullable=False),
        Column("run_id", String(64)),
        Column("ingested_at", String(32)),
        Column("summary", Text),
    )
    Table(
        "disputes",
        v1,
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
        Index("disputes_by_status", "status"),
    )
    Table(
        "evidence_files",
        v1,
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
    )
    v1.create_all(conn)


def v2(conn: Connection) -> None:
    """Open problems, kept until their file is replaced; a run's outcome becomes a headline."""
    v2 = MetaData()
    Table(
        "open_problems",
        v2,
        Column("source", Text, nullable=False),
        Column("seq", Integer, nullable=False),
        Column("kind", String(64), nullable=False),
        Column("body", Text, nullable=False),
        Column("run_id", String(64)),
        Index("problems_by_source", "source"),
    )
    v2.create_all(conn)
    if conn.dialect.name == "postgresql":  # outcomes became headlines ("5 sent · 3 need you")
        alter(conn).alter_column("runs", "outcome", type_=Text())


def v3(conn: Connection) -> None:
    add_columns(conn, "disputes", {"summary_input": "VARCHAR(64)"})


def v4(conn: Connection) -> None:
    """What the API says of each dispute (read back), and every status it showed."""
    add_columns(
        conn,
        "disputes",
        {
            "api_status": "VARCHAR(64)",
            "api_status_at": "VARCHAR(32)",
            "api_read_at": "VARCHAR(32)",
            "api_due_by": "VARCHAR(32)",
        },
    )
    v4 = MetaData()
    Table(
        "status_history",
        v4,
        Column("provider_dispute_id", String(255), nullable=False),
        Column("status", String(64), nullable=False),
        Column("seen_at", String(32), nullable=False),
        Column("run_id", String(64)),
        Index("history_by_dispute", "provider_dispute_id"),
    )
    v4.create_all(conn)


def v5(conn: Connection) -> None:
    # what a file was read with (mappings, locale): a file dropped again after they changed is
    # read again
    add_columns(conn, "ingested_files", {"inputs": "VARCHAR(64)"})
    # what kind of document a file is (documents/kinds.py): it decides what it proves
    add_columns(conn, "evidence_files", {"kind": "VARCHAR(32)"})


def v6(conn: Connection) -> None:
    """The evidence a person approved, by whom and when; the alerts sent (one per dispute per
    UTC day), as v6 made them."""
    add_columns(
        conn,
        "disputes",
        {"approved_hash": "VARCHAR(64)", "approved_by": "TEXT", "approved_at": "VARCHAR(32)"},
    )
    Table(
        "alerts_sent",
        MetaData(),
        Column("provider_dispute_id", String(255), primary_key=True),
        Column("day", String(10), primary_key=True),
        Column("sent_at", String(32), nullable=False),
        Column("why", Text),
        Column("run_id", String(64)),
    ).create(conn, checkfirst=True)


def v7(conn: Connection) -> None:
    """Which API each dispute's evidence and each file was sent to (a sandbox trial must not
    count as sent at the real API); rows sent before are attributed at the next run's API."""
    add_columns(conn, "disputes", {"sent_to": "VARCHAR(255)"})
    add_columns(conn, "evidence_files", {"sent_to": "VARCHAR(255)"})


def v8(conn: Connection) -> None:
    # how a file was matched (by name, or by what its text names: documents/files.py)
    add_columns(conn, "evidence_files", {"matched": "TEXT"})


def v9(conn: Connection) -> None:
    """Generated PDFs sent once (engine/prepare/pdf_versions.py): their versions and the facts
    they state."""
    add_columns(conn, "disputes", {"material_hash": "VARCHAR(64)", "generated_held": "TEXT"})
    Table(
        "generated_docs",
        MetaData(),
        Column("provider_dispute_id", String(255), primary_key=True),
        Column("sha256", String(64), primary_key=True),
        Column("version", Integer, nullable=False),
        Column("made_from", String(64)),
        Column("material", Text),
        Column("notice", Text),
        Column("packet_path", Text),
        Column("packet_pages", Integer),
        Column("created_at", String(32)),
    ).create(conn, checkfirst=True)


def v10(conn: Connection) -> None:
    """The approvals log, as v10 made it; the approval in force on each dispute (v6) is its
    first entry."""
    Table(
        "approvals",
        MetaData(),
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("provider_dispute_id", String(255), nullable=False),
        Column("evidence_hash", String(64), nullable=False),
        Column("version", String(16), nullable=False),
        Column("approved_by", Text, nullable=False),
        Column("source", Text),
        Column("at", String(32), nullable=False),
        Column("applied", Integer, nullable=False),
        Column("note", Text, nullable=False, server_default=""),
        Index("approvals_by_dispute", "provider_dispute_id"),
    ).create(conn, checkfirst=True)
    conn.execute(
        text(
            "INSERT INTO approvals (provider_dispute_id, evidence_hash, version, approved_by, "
            "source, at, applied, note) SELECT provider_dispute_id, approved_hash, "
            "'v' || substr(approved_hash, 1, 12), COALESCE(approved_by, 'unknown'), '', "
            "approved_at, 1, '' "
            "FROM disputes WHERE approved_hash IS NOT NULL AND approved_at IS NOT NULL"
        )
    )


def v11(conn: Connection) -> None:
    """The run lock and the evidence files seen, out of `meta`'s packed text into tables."""
    lock = Table(
        "run_lock",
        MetaData(),
        Column("name", String(16), primary_key=True),
        Column("owner", String(255), nullable=False),
        Column("expires", Float, nullable=False),
        Column("since", String(32), nullable=False),
    )
    seen = Table("evidence_seen", MetaData(), Column("signature", String(1024), primary_key=True))
    lock.create(conn)
    seen.create(conn)
    keys = ("run_lock", "evidence_seen")
    if not inspect(conn).has_table("meta"):  # (migrate() makes it first; a bare step may not)
        return
    rows = conn.execute(select(meta.c.key, meta.c.value).where(meta.c.key.in_(keys)))
    packed: dict[str, str] = {str(key): str(value) for key, value in rows}
    if held := packed.get("run_lock"):  # 'owner|expires|since'
        owner, expires, since = held.rsplit("|", 2)
        conn.execute(
            lock.insert().values(name="run", owner=owner, expires=float(expires), since=since)
        )
    if signatures := json.loads(packed.get("evidence_seen") or "[]"):
        conn.execute(seen.insert(), [{"signature": s} for s in sorted(set(signatures))])
    conn.execute(meta.delete().where(meta.c.key.in_(keys)))


def v12(conn: Connection) -> None:
    """The record tables declared: pandas made them at a file's first write, typed by that
    file's values (a number column could be TEXT) and widened as fields were added. A table
    pandas made is rebuilt in v12's shape with its rows (numbers stored as text become numbers)."""
    present = set(inspect(conn).get_table_names())
    for kind, spec in V12_RECORDS.items():
        table = record_table(kind, spec, MetaData())
        if table.name not in present:
            table.create(conn)
            continue
        rebuild(conn, table, "_v11")
