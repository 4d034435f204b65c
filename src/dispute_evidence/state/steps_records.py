"""Migration steps v15-v25: record kinds gaining columns (each table rebuilt with its rows, so
its columns stay in FIELDS' order), new record kinds and tables, and the indexes the standing
and the submitter read by. Frozen as written (see state/migrations.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sqlalchemy import (
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    select,
)
from sqlalchemy.engine import Connection

from dispute_evidence.state.schema import (
    V15_RECORDS,
    V18_RECORDS,
    V22_RECORDS,
    V23_RECORDS,
    V24_ADDED,
    V24_RECORDS,
    V25_ADDED,
    V25_RECORDS,
    record_table,
)

if TYPE_CHECKING:
    pass

from dispute_evidence.state.step_tools import alter, pid, rebuild

# v20's indexes: each record kind's ingest number and the keys the standing reads by
V20_INDEXES = {
    "orders": ("_seq", "order_number"),
    "payments": ("_seq", "payment_id", "order_number"),
    "disputes": ("_seq",),
}


def records_rebuilt(
    conn: Connection, records: Mapping[str, str], kinds: Iterable[str], aside: str
) -> None:
    """Each of these record kinds in the shape `records` gives it: rebuilt with its rows where
    the state has its table (set aside as <name><aside> while copied; v20's indexes made
    again), else made new. The shape of v23-v25; v15 and v18 came before v20's indexes."""
    for kind in kinds:
        table = record_table(kind, records[kind], MetaData())
        if not inspect(conn).has_table(table.name):
            table.create(conn)
            continue
        rebuild(conn, table, aside)
        for name in V20_INDEXES.get(kind, ()):
            Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]).create(conn, checkfirst=True)


def v15(conn: Connection) -> None:
    """Payments gain `refunded_at` (rebuilt with their rows, so columns stay in FIELDS' order);
    a refunds table is made."""
    for kind in ("payments", "refunds"):
        table = record_table(kind, V15_RECORDS[kind], MetaData())
        if inspect(conn).has_table(table.name):
            rebuild(conn, table, "_v14")
        else:
            table.create(conn)


def v16(conn: Connection) -> None:
    """Each dispute's letter points, kept for what wins (engine/reporting/wins.py): a new table."""
    Table(
        "letter_points",
        MetaData(),
        pid(),
        Column("payload_tag", String(32), nullable=False),
        Column("points", Text, nullable=False),
    ).create(conn, checkfirst=True)


def v17(conn: Connection) -> None:
    """Every version of each store document (the inbox's store/ folder), as v17 made it."""
    Table(
        "store_documents",
        MetaData(),
        Column("name", String(1024), primary_key=True),
        Column("sha256", String(64), primary_key=True),
        Column("kind", String(32), nullable=False),
        Column("effective", String(10)),
        Column("dropped", String(10), nullable=False),
        Column("path", Text, nullable=False),
        Column("size", Integer, nullable=False),
        Column("mime", String(64), nullable=False),
        Column("signature", String(1024)),
    ).create(conn, checkfirst=True)


def v18(conn: Connection) -> None:
    """Disputes gain `statement` (rebuilt with their rows, so columns stay in FIELDS' order);
    statements and products tables are made."""
    for kind in ("disputes", "statements", "products"):
        table = record_table(kind, V18_RECORDS[kind], MetaData())
        if inspect(conn).has_table(table.name):
            rebuild(conn, table, "_v17")
        else:
            table.create(conn)


def v19(conn: Connection) -> None:
    """Disputes gain `facts`: the typed facts the payload is derived from (issue 36). A payload
    stored before has none: it is read by the legacy path until its next build fills them."""
    if "facts" not in {c["name"] for c in inspect(conn).get_columns("disputes")}:
        alter(conn).add_column("disputes", Column("facts", LargeBinary))


def v20(conn: Connection) -> None:
    """The standing's kept counts (settled transactions per source, month and network; the
    disputed charges; the last CE 3.0 coverage), and indexes on the record tables' ingest
    number and keys, so a night reads the rows that arrived and their keys' other versions."""
    meta20 = MetaData()
    Table(
        "standing_transactions",
        meta20,
        Column("source", String(16), primary_key=True),
        Column("month", String(7), primary_key=True),
        Column("network", String(16), primary_key=True),
        Column("transactions", Integer, nullable=False),
    )
    Table("standing_disputed_charges", meta20, Column("payment_id", String(255), primary_key=True))
    Table(
        "standing_coverage",
        meta20,
        Column("name", String(16), primary_key=True),
        Column("as_of", String(32), nullable=False),
        Column("seq", Integer, nullable=False),
        Column("transactions", Integer, nullable=False),
        Column("body", Text, nullable=False),
    )
    meta20.create_all(conn)
    for kind, columns in V20_INDEXES.items():
        table = Table(f"rec_{kind}", MetaData(), autoload_with=conn)
        for name in columns:
            Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]).create(conn, checkfirst=True)


def v21(conn: Connection) -> None:
    """Disputes indexed by the API's dispute id: the submitter asks, once per dispute it sends,
    which other dispute holds that id (a scan of every row, payloads and all, before)."""
    table = Table("disputes", MetaData(), autoload_with=conn)
    Index("disputes_by_api_id", table.c.dispute_id).create(conn, checkfirst=True)


def v22(conn: Connection) -> None:
    """An access or activity log, a record kind of its own (issue 44 item 10)."""
    table = record_table("activity", V22_RECORDS["activity"], MetaData())
    table.create(conn, checkfirst=True)
    Index("rec_activity_by_seq", table.c["_seq"]).create(conn, checkfirst=True)


def v23(conn: Connection) -> None:
    """Products gain `price` (rebuilt with their rows, so columns stay in FIELDS' order): a
    line its orders export gives no price takes its product's (issue 45 item 3)."""
    records_rebuilt(conn, V23_RECORDS, ("products",), "_v22")


def v24(conn: Connection) -> None:
    """Payments gain the statement descriptor, payments and orders a device fingerprint, and
    payments whether 3-D Secure authenticated the charge (rebuilt with their rows, so columns
    stay in FIELDS' order; v20's indexes made again); the standing's kept counts gain the
    descriptor in their key (issue 46 items 5 and 7). The counts kept before were counted
    before any descriptor was read: each is kept as the descriptor '' (none given)."""
    records_rebuilt(conn, V24_RECORDS, V24_ADDED, "_v23")
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


def v25(conn: Connection) -> None:
    """Payments gain the charge's network references, the ARN and the authorisation code
    (issue 44 item 11), rebuilt with their rows so the columns stay in FIELDS' order; v20's
    indexes made again."""
    records_rebuilt(conn, V25_RECORDS, V25_ADDED, "_v24")
