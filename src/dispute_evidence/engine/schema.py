"""State store schema, versioned, with step-by-step migrations (dlt style).

The tables below are the schema as it is now, for the store's queries. Each migration is
frozen as it was written: it creates or alters what its version added, with that version's
columns spelled out, so what an old migration does never changes with today's tables.
The statuses a dispute and an evidence file move through, and the moves allowed, are in
engine/status.py (docs/architecture.md draws them).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
    cast,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

if TYPE_CHECKING:
    from alembic.operations import Operations

SCHEMA_VERSION = 12
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
    Column("inputs", String(64)),  # v5: hash of the mappings and locale it was read with
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
    # v6: the evidence a person approved (engine/review.py: payload and files, hashed), by
    # whom (the CLI, a sheet, the deadline sweep) and when
    Column("approved_hash", String(64)),
    Column("approved_by", Text),
    Column("approved_at", String(32)),
    # v7: which API its evidence (submitted_hash, dispute_id, API statuses) was sent to: its
    # address and a fingerprint of the key, never the key (engine/store/apis.py)
    Column("sent_to", String(255)),
    # v9: the facts the generated PDF states, hashed (a change here is material: a new
    # version may go); the one line of the limit check that holds it (engine/generated.py)
    Column("material_hash", String(64)),
    Column("generated_held", Text),
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
    Column("kind", String(32)),  # v5: proof_of_delivery, receipt, policy, ... (evidence/kinds.py)
    Column("sent_to", String(255)),  # v7: which API its upload (status, remote id) went to
    # v8: how the file was matched to its dispute: "name", or "content: names order 5003"
    Column("matched", Text),
    Index("files_by_status", "status"),
)  # fmt: skip

# v9: every generated PDF (the summary, or the packet) registered for a dispute: which version,
# what it was made from, the facts it states (JSON), what it says it replaces, and the packet
# a reviewer sees with it (engine/generated.py)
generated_docs = Table(
    "generated_docs", metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("sha256", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("made_from", String(64)),
    Column("material", Text),
    Column("notice", Text),
    Column("packet_path", Text),
    Column("packet_pages", Integer),
    Column("created_at", String(32)),
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

# v6: the alerts sent (engine/alerts.py): at most one per dispute per UTC day
alerts_sent = Table(
    "alerts_sent", metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("sent_at", String(32), nullable=False),
    Column("why", Text),
    Column("run_id", String(64)),
)  # fmt: skip

# v10: every approval given (engine/approvals_log.py): who, how, which evidence version, and
# whether it was applied (a policy can refuse it: [review] approvers, second_approver_over)
approvals = Table(
    "approvals", metadata,
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
)  # fmt: skip

# v11: what `meta` held as packed text is a table of its own
# the one-run-at-a-time lock: one row ('run') while a run holds it (engine/store/locks.py)
run_lock = Table(
    "run_lock", metadata,
    Column("name", String(16), primary_key=True),
    Column("owner", String(255), nullable=False),  # host:pid:run id
    Column("expires", Float, nullable=False),  # epoch seconds; renewed by the keep-alive
    Column("since", String(32), nullable=False),
)  # fmt: skip
# the evidence files the last run considered, as 'path|size|mtime' (the watcher's "new file")
evidence_seen = Table(
    "evidence_seen", metadata,
    Column("signature", String(1024), primary_key=True),
)  # fmt: skip

# v12: the records read from the inbox's sheets, one table per kind (ingest/layouts.py FIELDS),
# with where each row came from (_file, _sheet, _row) and which ingest (file version) gave it
# (_seq). Money and quantities are numbers; the rest is text as read. Spelled out as written at
# v12 (a field added to FIELDS needs a migration adding its column: tests/engine/test_records.py)
_V12_RECORDS: dict[str, str] = {
    "disputes": "provider_dispute_id order_number amount:n currency reason response_due_by "
    "network_reason_code",
    "orders": "order_number product_title price:n quantity:n currency_code order_date "
    "customer_name customer_email billing_address shipping_address sku payment_reference "
    "order_total:n refunded_amount:n financial_status fulfillment_status shipping_method "
    "order_subtotal:n shipping_amount:n tax_amount:n discount_amount:n cancelled_at customer_ip "
    "device_id customer_account_id card_fingerprint",
    "shipments": "order_number tracking_number carrier service shipped_at delivered_at "
    "delivery_status",
    "payments": "payment_id order_number payment_intent paid_at payment_amount:n "
    "amount_refunded:n currency payment_status customer_email card_name card_brand card_last4 "
    "card_funding card_country avs_line1_check avs_zip_check cvc_check description "
    "dispute_reason dispute_status dispute_evidence_due shipping_address customer_ip device_id "
    "customer_account_id card_fingerprint",
    # and who approves: the sheet file's owner (ingest/__init__.py, engine/review.py)
    "approvals": "provider_dispute_id approve evidence_version _owner",
}


RECORD_COLUMNS = _V12_RECORDS  # today's are v12's (a later step adding one spells out its own)


def record_table(kind: str, spec: str, into: MetaData) -> Table:
    """The `rec_<kind>` table of `spec` ('name name:n ...'; ':n' a number) in `into`."""
    fields = [
        Column(name, Float if typed == "n" else Text)
        for name, _, typed in (word.partition(":") for word in spec.split())
    ]
    return Table(
        f"rec_{kind}", into, *fields,
        Column("_file", Text), Column("_sheet", Text),
        Column("_row", BigInteger), Column("_seq", BigInteger),
    )  # fmt: skip


RECORD_TABLES: dict[str, Table] = {
    kind: record_table(kind, spec, metadata) for kind, spec in RECORD_COLUMNS.items()
}


def migrate(conn: Connection) -> int:
    """Bring the schema to SCHEMA_VERSION, one step at a time; returns the version found."""
    metadata.create_all(conn, tables=[meta])
    row = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
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
    """Runs, ingested files, disputes and their evidence files, as version 1 had them."""
    v1 = MetaData()
    Table(
        "runs", v1,
        Column("run_id", String(64), primary_key=True),
        Column("started_at", String(32), nullable=False),
        Column("finished_at", String(32)),
        Column("trigger", String(32)),
        Column("outcome", String(32)),  # TEXT from v2 (PostgreSQL; SQLite keeps any length)
        Column("counts", Text),
    )  # fmt: skip
    Table(
        "ingested_files", v1,
        Column("sha256", String(64), primary_key=True),
        Column("name", Text, nullable=False),
        Column("seq", Integer, nullable=False),
        Column("run_id", String(64)),
        Column("ingested_at", String(32)),
        Column("summary", Text),
    )  # fmt: skip
    Table(
        "disputes", v1,
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
    )  # fmt: skip
    Table(
        "evidence_files", v1,
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
    v1.create_all(conn)


def _v2(conn: Connection) -> None:
    """Open problems, kept until their file is replaced; a run's outcome becomes a headline."""
    v2 = MetaData()
    Table(
        "open_problems", v2,
        Column("source", Text, nullable=False),
        Column("seq", Integer, nullable=False),
        Column("kind", String(64), nullable=False),
        Column("body", Text, nullable=False),
        Column("run_id", String(64)),
        Index("problems_by_source", "source"),
    )  # fmt: skip
    v2.create_all(conn)
    if conn.dialect.name == "postgresql":  # outcomes became headlines ("5 sent · 3 need you")
        alter(conn).alter_column("runs", "outcome", type_=Text())


def alter(conn: Connection) -> Operations:
    """Schema changes on `conn` as SQLAlchemy constructs (alembic's operations, no SQL text).
    Alembic loads only when a schema changes (0.4 s: not on every run's start)."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    return Operations(MigrationContext.configure(conn))


def column_type(kind: str) -> TypeEngine[Any]:
    """'VARCHAR(64)', 'TEXT', 'INTEGER' as SQLAlchemy types."""
    if m := re.fullmatch(r"VARCHAR\((\d+)\)", kind.upper()):
        return String(int(m.group(1)))
    types: dict[str, TypeEngine[Any]] = {"TEXT": Text(), "INTEGER": Integer(), "FLOAT": Float()}
    return types[kind.upper()]


def _add_columns(conn: Connection, table: str, columns: dict[str, str]) -> None:
    """Add each of `columns` (name: SQL type, e.g. 'VARCHAR(64)') to `table`."""
    ops = alter(conn)
    for name, kind in columns.items():
        ops.add_column(table, Column(name, column_type(kind)))


def _v3(conn: Connection) -> None:
    _add_columns(conn, "disputes", {"summary_input": "VARCHAR(64)"})


def _v4(conn: Connection) -> None:
    """What the API says of each dispute (read back), and every status it showed."""
    _add_columns(conn, "disputes", {"api_status": "VARCHAR(64)", "api_status_at": "VARCHAR(32)",
                                    "api_read_at": "VARCHAR(32)", "api_due_by": "VARCHAR(32)"})  # fmt: skip
    v4 = MetaData()
    Table(
        "status_history", v4,
        Column("provider_dispute_id", String(255), nullable=False),
        Column("status", String(64), nullable=False),
        Column("seen_at", String(32), nullable=False),
        Column("run_id", String(64)),
        Index("history_by_dispute", "provider_dispute_id"),
    )  # fmt: skip
    v4.create_all(conn)


def _v5(conn: Connection) -> None:
    # what a file was read with (mappings, locale): a file dropped again after they changed is
    # read again
    _add_columns(conn, "ingested_files", {"inputs": "VARCHAR(64)"})
    # what kind of document a file is (evidence/kinds.py): it decides what it proves
    _add_columns(conn, "evidence_files", {"kind": "VARCHAR(32)"})


def _v6(conn: Connection) -> None:
    _add_columns(conn, "disputes", {"approved_hash": "VARCHAR(64)", "approved_by": "TEXT",
                                    "approved_at": "VARCHAR(32)"})  # fmt: skip
    metadata.create_all(conn, tables=[alerts_sent])


def _v7(conn: Connection) -> None:
    """Which API each dispute's evidence and each file was sent to (a sandbox trial must not
    count as sent at the real API); rows sent before are attributed at the next run's API."""
    _add_columns(conn, "disputes", {"sent_to": "VARCHAR(255)"})
    _add_columns(conn, "evidence_files", {"sent_to": "VARCHAR(255)"})


def _v8(conn: Connection) -> None:
    # how a file was matched (by name, or by what its text names: evidence/files.py)
    _add_columns(conn, "evidence_files", {"matched": "TEXT"})


def _v9(conn: Connection) -> None:
    """Generated PDFs sent once (engine/generated.py): their versions and the facts they state."""
    _add_columns(conn, "disputes", {"material_hash": "VARCHAR(64)", "generated_held": "TEXT"})
    metadata.create_all(conn, tables=[generated_docs])


def _v10(conn: Connection) -> None:
    """The approvals log; the approval in force on each dispute (v6) is its first entry."""
    metadata.create_all(conn, tables=[approvals])
    conn.execute(
        text(
            "INSERT INTO approvals (provider_dispute_id, evidence_hash, version, approved_by, "
            "source, at, applied, note) SELECT provider_dispute_id, approved_hash, "
            "'v' || substr(approved_hash, 1, 12), COALESCE(approved_by, 'unknown'), '', "
            "approved_at, 1, '' "
            "FROM disputes WHERE approved_hash IS NOT NULL AND approved_at IS NOT NULL"
        )
    )


def _v11(conn: Connection) -> None:
    """The run lock and the evidence files seen, out of `meta`'s packed text into tables."""
    lock = Table("run_lock", MetaData(), Column("name", String(16), primary_key=True),
                 Column("owner", String(255), nullable=False),
                 Column("expires", Float, nullable=False),
                 Column("since", String(32), nullable=False))  # fmt: skip
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
        conn.execute(lock.insert().values(name="run", owner=owner, expires=float(expires),
                                          since=since))  # fmt: skip
    if signatures := json.loads(packed.get("evidence_seen") or "[]"):
        conn.execute(seen.insert(), [{"signature": s} for s in sorted(set(signatures))])
    conn.execute(meta.delete().where(meta.c.key.in_(keys)))


def _v12(conn: Connection) -> None:
    """The record tables declared: pandas made them at a file's first write, typed by that
    file's values (a number column could be TEXT) and widened as fields were added. A table
    pandas made is rebuilt in v12's shape with its rows (numbers stored as text become numbers)."""
    present = set(inspect(conn).get_table_names())
    for kind, spec in _V12_RECORDS.items():
        table = record_table(kind, spec, MetaData())
        if table.name not in present:
            table.create(conn)
            continue
        alter(conn).rename_table(table.name, f"{table.name}_v11")
        old = Table(f"{table.name}_v11", MetaData(), autoload_with=conn)
        table.create(conn)
        names = [c.name for c in table.columns if c.name in old.c]
        picked = [_as_column_of(old.c[n], table.c[n]) for n in names]
        conn.execute(table.insert().from_select(names, select(*picked)))
        old.drop(conn)


def _as_column_of(value: Column[Any], target: Column[Any]) -> Any:
    """`value` as `target` stores it: text ('' none) made a number where a number goes."""
    if isinstance(target.type, Float) and not isinstance(value.type, Numeric | Integer):
        return cast(func.nullif(value, ""), Float)
    return value


MIGRATIONS = {
    1: _v1,
    2: _v2,
    3: _v3,
    4: _v4,
    5: _v5,
    6: _v6,
    7: _v7,
    8: _v8,
    9: _v9,
    10: _v10,
    11: _v11,
    12: _v12,
}
