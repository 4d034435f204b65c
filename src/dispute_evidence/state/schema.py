"""State store schema, versioned: the tables as they are now, for the store's queries.

state/migrations.py brings an older state here step by step (dlt style); each step is frozen
as it was written, with its version's columns spelled out, so what an old step does never
changes with today's tables.
The statuses a dispute and an evidence file move through, and the moves allowed, are in
state/lifecycle.py (docs/architecture.md draws them).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    BigInteger,
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

if TYPE_CHECKING:
    pass

SCHEMA_VERSION = 25
metadata = MetaData()

meta = Table("meta", metadata, Column("key", String(64), primary_key=True), Column("value", Text))

runs = Table(
    "runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("started_at", String(32), nullable=False),
    Column("finished_at", String(32)),
    Column("trigger", String(32)),
    # v1 declared VARCHAR(32), which a SQLite state keeps (its columns are never altered, and
    # SQLite checks no length); declared so there too, a new SQLite state (create_new) is the
    # very schema its upgraded ones have (tests/unit/engine/test_upgrade_every_version.py)
    Column("outcome", Text().with_variant(String(32), "sqlite")),
    Column("counts", Text),
)

ingested_files = Table(
    "ingested_files",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("run_id", String(64)),
    Column("ingested_at", String(32)),
    Column("summary", Text),
    Column("inputs", String(64)),  # v5: hash of the mappings and locale it was read with
)

disputes = Table(
    "disputes",
    metadata,
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
    # v6: the evidence a person approved (engine/review/approval.py: payload and files, hashed), by
    # whom (the CLI, a sheet, the deadline sweep) and when
    Column("approved_hash", String(64)),
    Column("approved_by", Text),
    Column("approved_at", String(32)),
    # v7: which API its evidence (submitted_hash, dispute_id, API statuses) was sent to: its
    # address and a fingerprint of the key, never the key (state/apis.py)
    Column("sent_to", String(255)),
    # v9: the facts the generated PDF states, hashed (a change here is material: a new
    # version may go); the one line of the limit check that holds it
    # (engine/prepare/pdf_versions.py)
    Column("material_hash", String(64)),
    Column("generated_held", Text),
    # v19: the dispute's typed facts (evidence/dispute_facts.py) as JSON, beside the wire payload
    # derived from them; NULL for a payload stored before (read by the legacy path)
    Column("facts", LargeBinary),
    Index("disputes_by_status", "status"),
    # v21: the state's dispute under an API id (holder_of, asked once per dispute sent): a
    # lookup, not a scan of every payload
    Index("disputes_by_api_id", "dispute_id"),
)

evidence_files = Table(
    "evidence_files",
    metadata,
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
    Column("kind", String(32)),  # v5: proof_of_delivery, receipt, policy, ... (documents/kinds.py)
    Column("sent_to", String(255)),  # v7: which API its upload (status, remote id) went to
    # v8: how the file was matched to its dispute: "name", or "content: names order 5003"
    Column("matched", Text),
    Index("files_by_status", "status"),
)

# v9: every generated PDF (the summary, or the packet) registered for a dispute: which version,
# what it was made from, the facts it states (JSON), what it says it replaces, and the packet
# a reviewer sees with it (engine/prepare/pdf_versions.py)
generated_docs = Table(
    "generated_docs",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("sha256", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("made_from", String(64)),
    Column("material", Text),
    Column("notice", Text),
    Column("packet_path", Text),
    Column("packet_pages", Integer),
    Column("created_at", String(32)),
)

# v2: problems a person must fix, kept until the file that caused them is replaced (source:
# the inbox file's name) or, for problems of the evidence build (source "(build)"), rebuilt.
open_problems = Table(
    "open_problems",
    metadata,
    Column("source", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("run_id", String(64)),
    Index("problems_by_source", "source"),
)

# v4: every status the API showed for a dispute, when first seen (outcomes, win rates)
status_history = Table(
    "status_history",
    metadata,
    Column("provider_dispute_id", String(255), nullable=False),
    Column("status", String(64), nullable=False),
    Column("seen_at", String(32), nullable=False),
    Column("run_id", String(64)),
    Index("history_by_dispute", "provider_dispute_id"),
)

# v6: the alerts sent (engine/reporting/deadline_alerts.py): at most one per dispute per UTC day
alerts_sent = Table(
    "alerts_sent",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("sent_at", String(32), nullable=False),
    Column("why", Text),
    Column("run_id", String(64)),
)

# v10: every approval given (engine/review/log.py): who, how, which evidence version, and
# whether it was applied (a policy can refuse it: [review] approvers, second_approver_over)
approvals = Table(
    "approvals",
    metadata,
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
)

# v11: what `meta` held as packed text is a table of its own
# the one-run-at-a-time lock: one row ('run') while a run holds it (state/locks.py)
run_lock = Table(
    "run_lock",
    metadata,
    Column("name", String(16), primary_key=True),
    Column("owner", String(255), nullable=False),  # host:pid:run id
    Column("expires", Float, nullable=False),  # epoch seconds; renewed by the keep-alive
    Column("since", String(32), nullable=False),
)
# the evidence files the last run considered, as 'path|size|mtime' (the watcher's "new file")
evidence_seen = Table(
    "evidence_seen",
    metadata,
    Column("signature", String(1024), primary_key=True),
)

# v17: every version of each store document (the inbox's store/ folder: policies, terms), by
# its name there and content: its kind, the date it says it took effect (else NULL) and the day
# it was first seen, the stored copy it is uploaded from, and the file's last signature
# ('path|size|mtime': an unchanged file is not hashed again). Versions are never removed: an
# order argues the version in force at its date (engine/prepare/storedocs_intake.py)
store_documents = Table(
    "store_documents",
    metadata,
    Column("name", String(1024), primary_key=True),
    Column("sha256", String(64), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("effective", String(10)),
    Column("dropped", String(10), nullable=False),
    Column("path", Text, nullable=False),
    Column("size", Integer, nullable=False),
    Column("mime", String(64), nullable=False),
    Column("signature", String(1024)),
)

# v12: the records read from the inbox's sheets, one table per kind (ingest/layouts.py FIELDS),
# with where each row came from (_file, _sheet, _row) and which ingest (file version) gave it
# (_seq). Money and quantities are numbers; the rest is text as read. Spelled out as written at
# v12 (a field added to FIELDS needs a migration adding its column: tests/unit/engine/test_records.py)
V12_RECORDS: dict[str, str] = {
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
    # and who approves: the sheet file's owner (ingest/__init__.py, engine/review/approval.py)
    "approvals": "provider_dispute_id approve evidence_version _owner",
}


# v14: the merchant's standing (standing/counts.py): when a dispute opened, whether a charge
# settled, and the issuers' fraud reports (a new kind)
V14_ADDED: dict[str, str] = {"disputes": "dispute_date", "payments": "dispute_date captured"}
V14_NEW: dict[str, str] = {"fraud_warnings": "payment_id order_number reported_at fraud_type"}
V14_RECORDS: dict[str, str] = {
    **{k: f"{spec} {V14_ADDED[k]}" if k in V14_ADDED else spec for k, spec in V12_RECORDS.items()},
    **V14_NEW,
}
# v15: when a charge was refunded (Stripe's `Refunded date (UTC)`), and a refunds log: each
# refund's amount, date and reference, so a credit is stated with both
V15_RECORDS: dict[str, str] = {
    **V14_RECORDS,
    "payments": V14_RECORDS["payments"] + " refunded_at",
    "refunds": "order_number refund_amount:n refunded_at refund_reference currency",
}


# v18: what the analyst knows and the exports do not: the merchant's statement per dispute (a
# disputes list's column, or a statement file: its own kind), and the products as sold
V18_RECORDS: dict[str, str] = {
    **V15_RECORDS,
    "disputes": V15_RECORDS["disputes"] + " statement",
    "statements": "provider_dispute_id order_number statement",
    "products": "handle sku product_title description image_url vendor product_type",
}


# v22: an access or activity log (issue 44 item 10): the account's logins, downloads, sessions
V22_RECORDS: dict[str, str] = {**V18_RECORDS, "activity": "activity_at account event ip device"}
# v23: a product's price as listed (Shopify's `Variant Price`): the price of an order line its
# orders export gives none (an export without its price columns), found by SKU (issue 45 item 3)
V23_RECORDS: dict[str, str] = {
    **V22_RECORDS,
    "products": V22_RECORDS["products"] + " price:n",
}


# v24: the charge's statement descriptor (Stripe's `Statement Descriptor`): Visa identifies a
# merchant per descriptor, the standing counts per descriptor (issue 46 item 5); a device
# fingerprint beside the device ID, each held to its own minimum length for CE 3.0, and whether
# 3-D Secure (or Visa Data Only) authenticated the charge (item 7)
V24_ADDED: dict[str, str] = {
    "payments": "statement_descriptor device_fingerprint three_d_secure",
    "orders": "device_fingerprint",
}
V24_RECORDS: dict[str, str] = {
    **V23_RECORDS,
    **{kind: f"{V23_RECORDS[kind]} {added}" for kind, added in V24_ADDED.items()},
}


# v25: the network's references of a charge, where a payments export gives them: the acquirer
# reference number (ARN) and the issuer's authorisation code, which a reviewer finds the
# transaction by (issue 44 item 11: the letter's header)
V25_ADDED: dict[str, str] = {"payments": "arn authorization_code"}
V25_RECORDS: dict[str, str] = {
    **V24_RECORDS,
    **{kind: f"{V24_RECORDS[kind]} {added}" for kind, added in V25_ADDED.items()},
}


RECORD_COLUMNS = V25_RECORDS  # today's (a later step adding one spells out its own)


def record_table(kind: str, spec: str, into: MetaData) -> Table:
    """The `rec_<kind>` table of `spec` ('name name:n ...'; ':n' a number) in `into`."""
    fields = [
        Column(name, Float if typed == "n" else Text)
        for name, _, typed in (word.partition(":") for word in spec.split())
    ]
    return Table(
        f"rec_{kind}",
        into,
        *fields,
        Column("_file", Text),
        Column("_sheet", Text),
        Column("_row", BigInteger),
        Column("_seq", BigInteger),
    )


RECORD_TABLES: dict[str, Table] = {
    kind: record_table(kind, spec, metadata) for kind, spec in RECORD_COLUMNS.items()
}

# v13: what `meta` held as JSON, each a table (state/kept.py)
# each fraud dispute's Visa CE 3.0 verdict from the last build (engine/prepare/case.py)
ce3_verdicts = Table(
    "ce3_verdicts",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("verdict", Text, nullable=False),  # "qualifies: …" or "does not qualify: why"
    Column("qualifies", Integer, nullable=False),
    Column("with_ip_or_device", Integer, nullable=False),
)
# the API's own view of each dispute, and how it differs from the disputes list (api_views.py)
api_views = Table(
    "api_views",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("reason", Text),
    Column("amount", Float),
    Column("currency", String(16)),
    Column("opened_on", String(32)),
    Column("payload_tag", String(32)),  # which payload it was compared with
    Column("mismatch", Text),  # '' when they agree
)
# which evidence kinds each payload shows, worked out once per payload (engine/reporting/outcomes.py)
evidence_kinds = Table(
    "evidence_kinds",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("payload_tag", String(32), nullable=False),
    Column("kinds", String(16), nullable=False),  # 'y'/'n' per kind
)
# v16: which argument points and exhibit kinds each dispute's letter used, worked out once per
# payload and documents (engine/reporting/wins.py: what wins, by reason)
letter_points = Table(
    "letter_points",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("payload_tag", String(32), nullable=False),  # the payload and documents it read
    Column("points", Text, nullable=False),  # space-separated keys (standing/win_rates.py)
)
# what the last report showed, so the next says what changed (engine/reporting/picture.py)
picture_disputes = Table(
    "picture_disputes",
    metadata,
    Column("provider_dispute_id", String(255), primary_key=True),
    Column("shown", Text, nullable=False),  # "status, files a/b"
)
picture_problems = Table(
    "picture_problems",
    metadata,
    Column("problem", Text, nullable=False),  # "kind: where: what"
)
# the review policy the state holds (engine/review/policy.py): one row, 'state'
review_policy = Table(
    "review_policy",
    metadata,
    Column("name", String(16), primary_key=True),
    Column("hold", String(16), nullable=False),
    Column("sweep_hours", Float),
    Column("since", String(32), nullable=False),
    Column("set_by", Text, nullable=False),
)

# v20: what
# the merchant's standing keeps night to night (engine/reporting/standing_kept.py), so a night
# reads what arrived, not the year. Settled transactions per source, month and network, as of
# the ingest in meta `standing_seq`; the charges whose latest row says disputed; and the last
# CE 3.0 coverage, as of a day. v20 also indexes the record tables' ingest and keys.
standing_transactions = Table(
    "standing_transactions",
    metadata,
    Column("source", String(16), primary_key=True),  # payments | orders
    Column("month", String(7), primary_key=True),  # YYYY-MM, '' when the row has no date
    Column("network", String(16), primary_key=True),  # visa ... all, '' another brand
    # v24: the charges' statement descriptor ('' none given, and every order)
    Column("descriptor", String(255), primary_key=True, server_default=""),
    Column("transactions", Integer, nullable=False),
)
standing_disputed_charges = Table(
    "standing_disputed_charges",
    metadata,
    Column("payment_id", String(255), primary_key=True),
)
standing_coverage = Table(
    "standing_coverage",
    metadata,
    Column("name", String(16), primary_key=True),  # one row: 'merchant'
    Column("as_of", String(32), nullable=False),  # when it was worked out (ISO)
    Column("seq", Integer, nullable=False),  # the last ingest it read
    Column("transactions", Integer, nullable=False),  # the orders and charges it counted
    Column("body", Text, nullable=False),  # its figures (standing/ce3_coverage.py), JSON
)


# the record tables' indexes as the steps made them (v20, v22): a new state is made with them
RECORD_INDEXES: dict[str, tuple[str, ...]] = {
    "orders": ("_seq", "order_number"),
    "payments": ("_seq", "payment_id", "order_number"),
    "disputes": ("_seq",),
    "activity": ("_seq",),
}


def create_new(conn: Connection) -> bool:
    """A new state made at today's version in one step (today's tables, the record tables'
    indexes, the version), not by the 25 migration steps one after another. On PostgreSQL
    0.06 s against 0.34-0.59 s, a fleet merchant's first night (docs/deployment.md, Sizing
    the sweep); on SQLite, every new user's and every test's first run, 0.04 s against 0.34 s
    (docs/architecture.md). Both make the schema the steps make, constraints and indexes
    included (tests/unit/engine/test_upgrade_every_version.py,
    tests/e2e/engine/test_upgrade_every_version_postgres.py). False, and nothing done, when
    the database holds one of a state's tables already (it is migrated), or is neither
    PostgreSQL nor SQLite. On PostgreSQL the DDL is sent in one round trip (new_state_ddl),
    not one statement and one table check each; SQLite, in the process, takes it a statement
    at a time (its driver runs one statement a call).

    Whole or not at all: on SQLite, `meta` and its version row come first. Its driver opens a
    transaction at the first write, not before a CREATE, so the tables made after the row are
    in that transaction: a run stopped part way (Ctrl-C, a kill) leaves `meta` alone, which
    the next open migrates as it always has, not half of today's tables under no version
    (the steps would fail on them, and the state would read as damaged)."""
    dialect = conn.dialect.name
    if dialect not in ("postgresql", "sqlite") or has_any_table(conn, sorted(metadata.tables)):
        return False
    version = meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION))
    if dialect == "postgresql":
        conn.exec_driver_sql(new_state_ddl())
        conn.execute(version)
        return True
    meta.create(conn)
    conn.execute(version)  # the transaction begins here
    for ddl in new_state_elements():
        if getattr(ddl, "element", None) is not meta:
            conn.execute(ddl)
    return True


# one of `names` in the schema new tables go in, on pg_class's (relname, relnamespace) index
STATE_TABLE_LOOKUP = (
    "SELECT 1 FROM pg_catalog.pg_class WHERE relname = ANY(:names)"
    " AND relnamespace = to_regnamespace(current_schema()) LIMIT 1"
)


def has_any_table(conn: Connection, names: list[str]) -> bool:
    """The schema new tables go in (the first of the search path) holds one of `names`. On
    PostgreSQL looked up by name on pg_class's (relname, relnamespace) index; SQLAlchemy's
    inspection asks pg_table_is_visible of every row it reads: get_table_names reads all of
    pg_class (534 ms at 3,200 merchants' schemas, EXPLAIN ANALYZE beside the 10,000 bench, on
    every open of every merchant's state), has_table every table of that name (one `meta` a
    merchant). On SQLite, one look at its catalogue, not one PRAGMA a name."""
    if conn.dialect.name == "sqlite":
        found = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))
        return not set(names).isdisjoint(row[0] for row in found)
    if conn.dialect.name != "postgresql":
        return any(inspect(conn).has_table(name) for name in names)
    return conn.execute(text(STATE_TABLE_LOOKUP), {"names": names}).first() is not None


@cache
def new_state_elements() -> tuple[Any, ...]:
    """Every DDL element `metadata.create_all` makes on an empty schema (tables in dependency
    order, their indexes), then the record tables' indexes: made once a process (a shard
    makes hundreds of new states a night), compiled by each database for its own dialect."""
    from sqlalchemy import create_mock_engine
    from sqlalchemy.schema import CreateIndex

    made: list[Any] = []  # the DDL elements, in create_all's order
    mock = create_mock_engine("postgresql+psycopg://", lambda ddl, *_a, **_k: made.append(ddl))
    metadata.create_all(mock, checkfirst=False)
    for kind, columns in RECORD_INDEXES.items():
        table = record_table(kind, RECORD_COLUMNS[kind], MetaData())  # RECORD_TABLES untouched
        made += [
            CreateIndex(Index(f"rec_{kind}_by_{name.lstrip('_')}", table.c[name]))
            for name in columns
        ]
    return tuple(made)


@cache
def new_state_ddl() -> str:
    """new_state_elements, compiled for PostgreSQL as one script (compiled once a process)."""
    from sqlalchemy import create_mock_engine

    # the driver's dialect states are opened with (state/database.py)
    dialect = create_mock_engine("postgresql+psycopg://", lambda *_a, **_k: None).dialect
    statements = [str(ddl.compile(dialect=dialect)) for ddl in new_state_elements()]
    return ";\n".join(s.strip() for s in statements) + ";"
