"""A state of every past schema version (tests/unit/engine/test_upgrade_every_version.py): the
tables built by the frozen migration steps 1..N (state/migrations.py), pinned by a fingerprint
of each version's schema, and the data such a state could hold: a row or two per version,
each written with the columns its version had."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import Connection, MetaData, Table, create_engine, inspect, text

from dispute_evidence.state.migrations import MIGRATIONS
from dispute_evidence.state.schema import meta

AT = "2026-01-02T03:04:05Z"
# (the version that could first hold it, its table, the row): every state of that version or
# later holds it, and keeps it through every upgrade
ROWS: tuple[tuple[int, str, dict[str, Any]], ...] = (
    (1, "runs", {"run_id": "r-v1", "started_at": AT, "finished_at": AT, "trigger": "cli",
                 "outcome": "2 sent", "counts": '{"sent": 2}'}),
    (1, "ingested_files", {"sha256": "1" * 64, "name": "disputes.csv", "seq": 1,
                           "run_id": "r-v1", "ingested_at": AT, "summary": "2 rows"}),
    (1, "disputes", {"provider_dispute_id": "dp_v1", "order_number": "1001",
                     "response_due_by": "2030-01-01T00:00:00Z", "payload": b'{"order": "1001"}',
                     "payload_hash": "p1", "submitted_hash": "p1", "dispute_id": "du_1",
                     "status": "submitted", "detail": None, "attempts": 1, "last_error": None,
                     "updated_at": AT}),
    (1, "evidence_files", {"provider_dispute_id": "dp_v1", "sha256": "a" * 64,
                           "file_name": "receipt.pdf", "path": "/inbox/receipt.pdf",
                           "size": 1234, "mime": "application/pdf", "status": "uploaded",
                           "remote_file_id": "file_1", "updated_at": AT}),
    (1, "disputes", {"provider_dispute_id": "dp_v1b", "status": "incomplete",
                     "detail": "no order row for 1002", "attempts": 0}),
    (2, "open_problems", {"source": "orders.csv", "seq": 1, "kind": "bad_value",
                          "body": '{"where": "orders.csv row 3"}', "run_id": "r-v1"}),
    (3, "disputes", {"provider_dispute_id": "dp_v3", "status": "pending", "attempts": 0,
                     "summary_input": "s3"}),
    (4, "disputes", {"provider_dispute_id": "dp_v4", "status": "closed", "attempts": 1,
                     "api_status": "won", "api_status_at": AT, "api_read_at": AT,
                     "api_due_by": "2030-02-01T00:00:00Z"}),
    (4, "status_history", {"provider_dispute_id": "dp_v4", "status": "won", "seen_at": AT,
                           "run_id": "r-v1"}),
    (5, "ingested_files", {"sha256": "5" * 64, "name": "orders.csv", "seq": 2,
                           "inputs": "i5"}),
    (5, "evidence_files", {"provider_dispute_id": "dp_v1", "sha256": "b" * 64,
                           "file_name": "pod.pdf", "path": "/inbox/pod.pdf", "size": 5,
                           "status": "pending", "kind": "proof_of_delivery"}),
    (6, "disputes", {"provider_dispute_id": "dp_v6", "status": "awaiting_approval",
                     "attempts": 0, "approved_hash": "e6", "approved_by": "alice",
                     "approved_at": AT}),
    (6, "alerts_sent", {"provider_dispute_id": "dp_v6", "day": "2026-01-02", "sent_at": AT,
                        "why": "due in 2 days", "run_id": "r-v1"}),
    (7, "disputes", {"provider_dispute_id": "dp_v7", "status": "submitted", "attempts": 1,
                     "sent_to": "https://api.example.com key:0123456789"}),
    (7, "evidence_files", {"provider_dispute_id": "dp_v7", "sha256": "c" * 64,
                           "file_name": "c.pdf", "path": "/inbox/c.pdf", "size": 7,
                           "status": "sending", "sent_to": "sandbox /inbox"}),
    (8, "evidence_files", {"provider_dispute_id": "dp_v7", "sha256": "d" * 64,
                           "file_name": "scan1.pdf", "path": "/inbox/scan1.pdf", "size": 8,
                           "status": "pending", "matched": "content: names order 1007"}),
    (9, "disputes", {"provider_dispute_id": "dp_v9", "status": "incomplete", "attempts": 0,
                     "material_hash": "m9", "generated_held": "Visa: 21 pages, over 19"}),
    (9, "generated_docs", {"provider_dispute_id": "dp_v9", "sha256": "9" * 64, "version": 1,
                           "made_from": "s9", "material": '{"documents": {}}', "notice": None,
                           "packet_path": "/x/packet.pdf", "packet_pages": 21,
                           "created_at": AT}),
    (10, "approvals", {"provider_dispute_id": "dp_v1", "evidence_hash": "e10",
                       "version": "ve10", "approved_by": "bob", "source": "approve command",
                       "at": AT, "applied": 1, "note": ""}),
    (11, "evidence_seen", {"signature": "inbox/a.pdf|10|1.5"}),
    (12, "rec_disputes", {"provider_dispute_id": "dp_v1", "order_number": "1001",
                          "amount": 12.5, "currency": "USD", "reason": "fraudulent",
                          "_file": "d.csv", "_sheet": None, "_row": 2, "_seq": 1}),
    (12, "rec_orders", {"order_number": "1001", "price": 9.5, "customer_email": "a@x.test",
                        "_file": "o.csv", "_row": 2, "_seq": 2}),
    (13, "ce3_verdicts", {"provider_dispute_id": "dp_v1", "verdict": "qualifies: 2001, 2002",
                          "qualifies": 1, "with_ip_or_device": 1}),
    (13, "review_policy", {"name": "state", "hold": "all", "sweep_hours": 24.0, "since": AT,
                           "set_by": "a run"}),
    (14, "rec_payments", {"payment_id": "ch_14", "order_number": "1001",
                          "payment_amount": 20.0, "dispute_date": "2026-01-01",
                          "captured": "true", "_file": "p.csv", "_row": 2, "_seq": 3}),
    (14, "rec_fraud_warnings", {"payment_id": "ch_14", "reported_at": "2026-01-01",
                                "fraud_type": "stolen card", "_seq": 4}),
    (15, "rec_refunds", {"order_number": "1001", "refund_amount": 5.0, "refunded_at": AT,
                         "_seq": 5}),
    (16, "letter_points", {"provider_dispute_id": "dp_v1", "payload_tag": "t16",
                           "points": "delivered signed"}),
    (17, "store_documents", {"name": "refund-policy.pdf", "sha256": "7" * 64,
                             "kind": "refund_policy", "effective": "2025-06-01",
                             "dropped": "2026-01-02", "path": "/x/policy.pdf", "size": 17,
                             "mime": "application/pdf", "signature": None}),
    (18, "rec_statements", {"provider_dispute_id": "dp_v1", "statement": "the customer was "
                            "refunded in store", "_seq": 6}),
    (19, "disputes", {"provider_dispute_id": "dp_v19", "order_number": "1019",
                      "status": "pending", "attempts": 0, "payload": b'{"order": "1019"}',
                      "facts": b'{"order":{"order_number":"1019"},"products":[{"title":"Item",'
                               b'"price":9.5,"quantity":1,"currency":"USD"}]}'}),
    (20, "standing_transactions", {"source": "payments", "month": "2026-10", "network": "visa",
                                   "transactions": 3}),
    (22, "rec_activity", {"activity_at": AT, "account": "a@x.test", "event": "login",
                          "ip": "203.0.113.7", "device": "dev-1", "_file": "log.csv", "_row": 2,
                          "_seq": 7}),
    (18, "rec_products", {"handle": "boot", "sku": "B-38", "product_title": "Boot",
                          "description": "Leather", "_file": "products_export.csv", "_row": 2,
                          "_seq": 5}),
    (23, "rec_products", {"handle": "boot", "sku": "B-39", "product_title": "Boot",
                          "description": "Leather", "price": 129.0,
                          "_file": "products_export.csv", "_row": 3, "_seq": 6}),
    (24, "standing_transactions", {"source": "payments", "month": "2026-10", "network": "visa",
                                   "descriptor": "SHOP*TWO", "transactions": 2}),
    (24, "rec_payments", {"payment_id": "ch_24", "order_number": "1002",
                          "statement_descriptor": "SHOP*TWO", "device_fingerprint": "f" * 20,
                          "three_d_secure": "authenticated",
                          "_file": "p.csv", "_row": 3, "_seq": 8}),
    (24, "rec_orders", {"order_number": "1002", "device_fingerprint": "f" * 20, "_file": "o.csv",
                        "_row": 3, "_seq": 9}),
    (25, "rec_payments", {"payment_id": "ch_25", "order_number": "1003",
                          "arn": "74537606307000123456789", "authorization_code": "0A1B2C",
                          "_file": "p.csv", "_row": 4, "_seq": 10}),
)  # fmt: skip
# The schema each version's frozen steps build, on SQLite (fingerprint() of describe()): a step
# changed after its version shipped changes what an old state is upgraded from, and fails here.
SCHEMAS = {
    1: "cbe110a6c8fc7298",
    2: "64fe1a094921d575",
    3: "fee19a79e22d7141",
    4: "3adf83ed6700fe78",
    5: "5c9d8ca569b6bc93",
    6: "3b9e9ec8577eb1c3",
    7: "d891a43ffdc1b3dd",
    8: "8e460af66dd42025",
    9: "a0dfea43e3fc6779",
    10: "2b03d9e292d79a36",
    11: "f253b72d6580f52e",
    12: "46317a2e3e0c29d8",
    13: "89321f5007dabc69",
    14: "b0bade4d0b189e71",
    15: "3292ed6312ac137a",
    16: "86c26c80d2b4a759",
    17: "c313d6c6bbc14161",
    18: "f8ace353ddb6d1f1",
    19: "1e93a91df9845537",
    20: "c1f608075ee6be56",
    21: "0a7277a0991c46e4",
    22: "9ef9a6c50580705b",
    23: "9bd7b0d8f9ba18e0",
    24: "26fe0d07358208f2",
    25: "ccd00583206f6536",
}


def build(c: Connection, version: int) -> None:
    """On an empty database: the state `version` left, with the ROWS it could hold."""
    meta.create(c)
    for step in range(1, version + 1):
        MIGRATIONS[step](c)
    c.execute(meta.insert().values(key="schema_version", value=str(version)))
    tables = MetaData()
    for since, name, row in ROWS:
        if since <= version:
            c.execute(Table(name, tables, autoload_with=c).insert().values(row))


def describe(c: Connection) -> dict[str, Any]:
    """Every table: its columns in order (name, type, nullable, default), primary key and
    indexes, as the database reports them."""
    seen = inspect(c)
    out: dict[str, Any] = {}
    for name in sorted(seen.get_table_names()):
        columns = [
            [col["name"], str(col["type"]), col["nullable"], col.get("default")]
            for col in seen.get_columns(name)
        ]
        key = seen.get_pk_constraint(name)["constrained_columns"]
        indexes = sorted(
            [i["name"], list(i["column_names"]), bool(i["unique"])] for i in seen.get_indexes(name)
        )
        out[name] = {"columns": columns, "key": key, "indexes": indexes}
    return out


def whole(url: str) -> dict[str, Any]:
    """What describe() reads, with each table's unique, foreign-key and check constraints, and
    what `meta` holds."""
    engine = create_engine(url)
    with engine.connect() as c:
        found, seen = describe(c), inspect(c)
        for name, table in found.items():
            table["constraints"] = [
                sorted(str(x) for x in seen.get_unique_constraints(name)),
                sorted(str(x) for x in seen.get_foreign_keys(name)),
                sorted(str(x) for x in seen.get_check_constraints(name)),
            ]
        found["meta rows"] = sorted(map(tuple, c.execute(text("SELECT key, value FROM meta"))))
    engine.dispose()
    return found


def fingerprint(described: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:16]
