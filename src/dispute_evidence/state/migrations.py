"""The state store's migrations: each step brings a state from the version before to its own,
frozen as it was written (its version's tables and columns spelled out), so what an old step
does never changes with today's tables (state/schema.py). migrate() runs the steps a state
lacks, each in the opening transaction, and records the version reached in `meta`."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
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

from dispute_evidence.state.errors import StateNewer
from dispute_evidence.state.schema import (
    SCHEMA_VERSION,
    V12_RECORDS,
    V14_ADDED,
    V14_NEW,
    V15_RECORDS,
    V18_RECORDS,
    V22_RECORDS,
    V23_RECORDS,
    V24_ADDED,
    V24_RECORDS,
    V25_ADDED,
    V25_RECORDS,
    meta,
    record_table,
)

if TYPE_CHECKING:
    from alembic.operations import Operations


def migrate(conn: Connection) -> int:
    """Bring the schema to SCHEMA_VERSION, one step at a time; returns the version found."""
    meta.create(conn, checkfirst=True)
    row = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
    found = int(row[0]) if row else 0
    if found > SCHEMA_VERSION:
        raise StateNewer(found, SCHEMA_VERSION)
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
    # what kind of document a file is (documents/kinds.py): it decides what it proves
    _add_columns(conn, "evidence_files", {"kind": "VARCHAR(32)"})


def _v6(conn: Connection) -> None:
    """The evidence a person approved, by whom and when; the alerts sent (one per dispute per
    UTC day), as v6 made them."""
    _add_columns(conn, "disputes", {"approved_hash": "VARCHAR(64)", "approved_by": "TEXT",
                                    "approved_at": "VARCHAR(32)"})  # fmt: skip
    Table(
        "alerts_sent", MetaData(),
        Column("provider_dispute_id", String(255), primary_key=True),
        Column("day", String(10), primary_key=True),
        Column("sent_at", String(32), nullable=False),
        Column("why", Text),
        Column("run_id", String(64)),
    ).create(conn, checkfirst=True)  # fmt: skip


def _v7(conn: Connection) -> None:
    """Which API each dispute's evidence and each file was sent to (a sandbox trial must not
    count as sent at the real API); rows sent before are attributed at the next run's API."""
    _add_columns(conn, "disputes", {"sent_to": "VARCHAR(255)"})
    _add_columns(conn, "evidence_files", {"sent_to": "VARCHAR(255)"})


def _v8(conn: Connection) -> None:
    # how a file was matched (by name, or by what its text names: documents/files.py)
    _add_columns(conn, "evidence_files", {"matched": "TEXT"})


def _v9(conn: Connection) -> None:
    """Generated PDFs sent once (engine/prepare/generated.py): their versions and the facts they state."""
    _add_columns(conn, "disputes", {"material_hash": "VARCHAR(64)", "generated_held": "TEXT"})
    Table(
        "generated_docs", MetaData(),
        Column("provider_dispute_id", String(255), primary_key=True),
        Column("sha256", String(64), primary_key=True),
        Column("version", Integer, nullable=False),
        Column("made_from", String(64)),
        Column("material", Text),
        Column("notice", Text),
        Column("packet_path", Text),
        Column("packet_pages", Integer),
        Column("created_at", String(32)),
    ).create(conn, checkfirst=True)  # fmt: skip


def _v10(conn: Connection) -> None:
    """The approvals log, as v10 made it; the approval in force on each dispute (v6) is its
    first entry."""
    Table(
        "approvals", MetaData(),
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
    ).create(conn, checkfirst=True)  # fmt: skip
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
    for kind, spec in V12_RECORDS.items():
        table = record_table(kind, spec, MetaData())
        if table.name not in present:
            table.create(conn)
            continue
        _rebuild(conn, table, "_v11")


def _rebuild(conn: Connection, table: Table, aside: str) -> None:
    """`table` made again in its new shape, with the rows of the one of its name (set aside as
    <name><aside> while copied, then dropped): its columns keep their declared order."""
    alter(conn).rename_table(table.name, f"{table.name}{aside}")
    old = Table(f"{table.name}{aside}", MetaData(), autoload_with=conn)
    table.create(conn)
    names = [c.name for c in table.columns if c.name in old.c]
    picked = [_as_column_of(old.c[n], table.c[n]) for n in names]
    conn.execute(table.insert().from_select(names, select(*picked)))
    old.drop(conn)


def _v15(conn: Connection) -> None:
    """Payments gain `refunded_at` (rebuilt with their rows, so columns stay in FIELDS' order);
    a refunds table is made."""
    for kind in ("payments", "refunds"):
        table = record_table(kind, V15_RECORDS[kind], MetaData())
        if inspect(conn).has_table(table.name):
            _rebuild(conn, table, "_v14")
        else:
            table.create(conn)


def _v16(conn: Connection) -> None:
    """Each dispute's letter points, kept for what wins (engine/reporting/wins.py): a new table."""
    Table(
        "letter_points", MetaData(), _pid(),
        Column("payload_tag", String(32), nullable=False),
        Column("points", Text, nullable=False),
    ).create(conn, checkfirst=True)  # fmt: skip


def _v17(conn: Connection) -> None:
    """Every version of each store document (the inbox's store/ folder), as v17 made it."""
    Table(
        "store_documents", MetaData(),
        Column("name", String(1024), primary_key=True),
        Column("sha256", String(64), primary_key=True),
        Column("kind", String(32), nullable=False),
        Column("effective", String(10)),
        Column("dropped", String(10), nullable=False),
        Column("path", Text, nullable=False),
        Column("size", Integer, nullable=False),
        Column("mime", String(64), nullable=False),
        Column("signature", String(1024)),
    ).create(conn, checkfirst=True)  # fmt: skip


def _v18(conn: Connection) -> None:
    """Disputes gain `statement` (rebuilt with their rows, so columns stay in FIELDS' order);
    statements and products tables are made."""
    for kind in ("disputes", "statements", "products"):
        table = record_table(kind, V18_RECORDS[kind], MetaData())
        if inspect(conn).has_table(table.name):
            _rebuild(conn, table, "_v17")
        else:
            table.create(conn)


def _v19(conn: Connection) -> None:
    """Disputes gain `facts`: the typed facts the payload is derived from (issue 36). A payload
    stored before has none: it is read by the legacy path until its next build fills them."""
    if "facts" not in {c["name"] for c in inspect(conn).get_columns("disputes")}:
        alter(conn).add_column("disputes", Column("facts", LargeBinary))


def _as_column_of(value: Column[Any], target: Column[Any]) -> Any:
    """`value` as `target` stores it: text ('' none) made a number where a number goes."""
    if isinstance(target.type, Float) and not isinstance(value.type, Numeric | Integer):
        return cast(func.nullif(value, ""), Float)
    return value


def _pid() -> Column[str]:
    return Column("provider_dispute_id", String(255), primary_key=True)


def _v13_tables(into: MetaData) -> dict[str, Table]:
    """What `meta` held as JSON, as v13 made each a table of its own."""
    tables = [
        Table("ce3_verdicts", into, _pid(), Column("verdict", Text, nullable=False),
              Column("qualifies", Integer, nullable=False),
              Column("with_ip_or_device", Integer, nullable=False)),
        Table("api_views", into, _pid(), Column("reason", Text), Column("amount", Float),
              Column("currency", String(16)), Column("opened_on", String(32)),
              Column("payload_tag", String(32)), Column("mismatch", Text)),
        Table("evidence_kinds", into, _pid(), Column("payload_tag", String(32), nullable=False),
              Column("kinds", String(16), nullable=False)),
        Table("picture_disputes", into, _pid(), Column("shown", Text, nullable=False)),
        Table("picture_problems", into, Column("problem", Text, nullable=False)),
        Table("review_policy", into, Column("name", String(16), primary_key=True),
              Column("hold", String(16), nullable=False), Column("sweep_hours", Float),
              Column("since", String(32), nullable=False), Column("set_by", Text, nullable=False)),
    ]  # fmt: skip
    return {t.name: t for t in tables}


V13_KEYS = ("ce3_verdicts", "api_dispute_views", "outcome_evidence_kinds", "last_picture",
            "review_policy")  # fmt: skip


def _v13(conn: Connection) -> None:
    """The CE 3.0 verdicts, the API's views, the evidence kinds, the last report's picture and
    the review policy: out of `meta`'s JSON into tables; `meta` keeps scalars only."""
    tables = _v13_tables(MetaData())
    for table in tables.values():
        table.create(conn)
    if not inspect(conn).has_table("meta"):  # (migrate() makes it first; a bare step may not)
        return
    rows = conn.execute(select(meta.c.key, meta.c.value).where(meta.c.key.in_(V13_KEYS)))
    packed: dict[str, Any] = {str(k): json.loads(v) for k, v in rows if v}
    for name, moved in _v13_rows(packed).items():
        if moved:
            conn.execute(tables[name].insert(), moved)
    if "last_picture" in packed:  # a report kept one: the next says what changed since
        conn.execute(meta.insert().values(key="picture_taken", value="(before v13)"))
    conn.execute(meta.delete().where(meta.c.key.in_(V13_KEYS)))


def _v13_rows(packed: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each v13 table's rows, from what `meta` held (key: its JSON, decoded)."""
    picture = packed.get("last_picture") or {"disputes": {}, "problems": []}
    policy = packed.get("review_policy")
    return {
        "ce3_verdicts": [
            {"provider_dispute_id": p, "verdict": t, "qualifies": int(bool(ok)),
             "with_ip_or_device": int(bool(could))}
            for p, (t, ok, could) in packed.get("ce3_verdicts", {}).items()
        ],
        "api_views": [
            {"provider_dispute_id": p, "reason": v.get("reason"), "amount": v.get("amount"),
             "currency": v.get("currency"), "opened_on": v.get("opened_on"),
             "payload_tag": v.get("of"), "mismatch": v.get("mismatch") or ""}
            for p, v in packed.get("api_dispute_views", {}).items()
        ],
        "evidence_kinds": [
            {"provider_dispute_id": p, "payload_tag": tag, "kinds": kinds}
            for p, (tag, kinds) in packed.get("outcome_evidence_kinds", {}).items()
        ],
        "picture_disputes": [
            {"provider_dispute_id": p, "shown": shown} for p, shown in picture["disputes"].items()
        ],
        "picture_problems": [{"problem": line} for line in sorted(set(picture["problems"]))],
        "review_policy": [] if not policy else [
            {"name": "state", "hold": policy["hold"], "sweep_hours": policy.get("sweep_hours"),
             "since": policy["since"], "set_by": policy["by"]}
        ],
    }  # fmt: skip


def _v14(conn: Connection) -> None:
    """The standing's records: a dispute's opening date, a charge's capture, fraud reports.
    A table gaining a field is rebuilt with its rows, the new field before the source columns
    (as a new state declares it), not added after them."""
    present = set(inspect(conn).get_table_names())
    for kind, added in V14_ADDED.items():
        table = record_table(kind, f"{V12_RECORDS[kind]} {added}", MetaData())
        if table.name not in present:
            table.create(conn)
            continue
        alter(conn).rename_table(table.name, f"{table.name}_v13")
        old = Table(f"{table.name}_v13", MetaData(), autoload_with=conn)
        table.create(conn)
        names = [c.name for c in table.columns if c.name in old.c]
        conn.execute(table.insert().from_select(names, select(*(old.c[n] for n in names))))
        old.drop(conn)
    for kind, spec in V14_NEW.items():
        record_table(kind, spec, MetaData()).create(conn, checkfirst=True)


# v20's indexes: each record kind's ingest number and the keys the standing reads by
V20_INDEXES = {"orders": ("_seq", "order_number"), "payments": ("_seq", "payment_id", "order_number"),
               "disputes": ("_seq",)}  # fmt: skip


def _v20(conn: Connection) -> None:
    """The standing's kept counts (settled transactions per source, month and network; the
    disputed charges; the last CE 3.0 coverage), and indexes on the record tables' ingest
    number and keys, so a night reads the rows that arrived and their keys' other versions."""
    meta20 = MetaData()
    Table(
        "standing_transactions", meta20,
        Column("source", String(16), primary_key=True),
        Column("month", String(7), primary_key=True),
        Column("network", String(16), primary_key=True),
        Column("transactions", Integer, nullable=False),
    )  # fmt: skip
    Table("standing_disputed_charges", meta20, Column("payment_id", String(255), primary_key=True))
    Table(
        "standing_coverage", meta20,
        Column("name", String(16), primary_key=True),
        Column("as_of", String(32), nullable=False),
        Column("seq", Integer, nullable=False),
        Column("transactions", Integer, nullable=False),
        Column("body", Text, nullable=False),
    )  # fmt: skip
    meta20.create_all(conn)
    for kind, columns in V20_INDEXES.items():
        table = Table(f"rec_{kind}", MetaData(), autoload_with=conn)
        for name in columns:
            Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]).create(conn, checkfirst=True)


def _v21(conn: Connection) -> None:
    """Disputes indexed by the API's dispute id: the submitter asks, once per dispute it sends,
    which other dispute holds that id (a scan of every row, payloads and all, before)."""
    table = Table("disputes", MetaData(), autoload_with=conn)
    Index("disputes_by_api_id", table.c.dispute_id).create(conn, checkfirst=True)


def _v22(conn: Connection) -> None:
    """An access or activity log, a record kind of its own (issue 44 item 10)."""
    table = record_table("activity", V22_RECORDS["activity"], MetaData())
    table.create(conn, checkfirst=True)
    Index("rec_activity_by_seq", table.c["_seq"]).create(conn, checkfirst=True)


def _v23(conn: Connection) -> None:
    """Products gain `price` (rebuilt with their rows, so columns stay in FIELDS' order): a
    line its orders export gives no price takes its product's (issue 45 item 3)."""
    table = record_table("products", V23_RECORDS["products"], MetaData())
    if inspect(conn).has_table(table.name):
        _rebuild(conn, table, "_v22")
    else:
        table.create(conn)


def _v24(conn: Connection) -> None:
    """Payments gain the statement descriptor, payments and orders a device fingerprint, and
    payments whether 3-D Secure authenticated the charge (rebuilt with their rows, so columns
    stay in FIELDS' order; v20's indexes made again); the standing's kept counts gain the
    descriptor in their key (issue 46 items 5 and 7). The counts kept before were counted
    before any descriptor was read: each is kept as the descriptor '' (none given)."""
    for kind in V24_ADDED:
        table = record_table(kind, V24_RECORDS[kind], MetaData())
        if not inspect(conn).has_table(table.name):
            table.create(conn)
            continue
        _rebuild(conn, table, "_v23")
        for name in V20_INDEXES.get(kind, ()):
            Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]).create(conn, checkfirst=True)
    old = Table("standing_transactions", MetaData(), autoload_with=conn)
    rows = [dict(r._mapping) for r in conn.execute(select(old))]  # months x networks: a few
    old.drop(conn)
    table = Table(
        "standing_transactions",
        MetaData(),
        Column("source", String(16), primary_key=True),
        Column("month", String(7), primary_key=True),
        Column("network", String(16), primary_key=True),
        Column("descriptor", String(255), primary_key=True, server_default=""),
        Column("transactions", Integer, nullable=False),
    )
    table.create(conn)
    if rows:
        conn.execute(table.insert(), [{**r, "descriptor": ""} for r in rows])


def _v25(conn: Connection) -> None:
    """Payments gain the charge's network references, the ARN and the authorisation code
    (issue 44 item 11), rebuilt with their rows so the columns stay in FIELDS' order; v20's
    indexes made again."""
    for kind in V25_ADDED:
        table = record_table(kind, V25_RECORDS[kind], MetaData())
        if not inspect(conn).has_table(table.name):
            table.create(conn)
            continue
        _rebuild(conn, table, "_v24")
        for name in V20_INDEXES.get(kind, ()):
            Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]).create(conn, checkfirst=True)


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
    13: _v13,
    14: _v14,
    15: _v15,
    16: _v16,
    17: _v17,
    18: _v18,
    19: _v19,
    20: _v20,
    21: _v21,
    22: _v22,
    23: _v23,
    24: _v24,
    25: _v25,
}
