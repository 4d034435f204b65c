"""v14: payments keep their rows and gain `refunded_at`; a refunds table (issue 37, item 7)."""

from __future__ import annotations

import sqlite3

from sqlalchemy import create_engine, inspect

from dispute_evidence.state.schema import RECORD_TABLES
from dispute_evidence.state.store import StateStore
from tests.support.old_state import as_version

V13_PAYMENTS = (
    "payment_id TEXT, order_number TEXT, payment_intent TEXT, paid_at TEXT, payment_amount FLOAT, "
    "amount_refunded FLOAT, currency TEXT, payment_status TEXT, customer_email TEXT, "
    "card_name TEXT, card_brand TEXT, card_last4 TEXT, card_funding TEXT, card_country TEXT, "
    "avs_line1_check TEXT, avs_zip_check TEXT, cvc_check TEXT, description TEXT, "
    "dispute_reason TEXT, dispute_status TEXT, dispute_evidence_due TEXT, shipping_address TEXT, "
    "customer_ip TEXT, device_id TEXT, customer_account_id TEXT, card_fingerprint TEXT, "
    "_file TEXT, _sheet TEXT, _row BIGINT, _seq BIGINT"
)


def test_a_version_13_state_keeps_its_charges_and_gains_refunds(tmp_path):
    path = tmp_path / "v13.sqlite3"
    StateStore(path).close()
    with sqlite3.connect(path) as c:
        c.execute("DROP TABLE rec_payments")
        c.execute(f"CREATE TABLE rec_payments ({V13_PAYMENTS})")
        c.execute("INSERT INTO rec_payments (payment_id, order_number, amount_refunded, _file, "
                  "_row, _seq) VALUES ('ch_1', '1001', 9.5, 'p.csv', 2, 1)")  # fmt: skip
        as_version(c, 13)
    with StateStore(path) as store:
        records = store.records.load_records(["payments", "refunds"])
    assert records["payments"][
        ["payment_id", "amount_refunded", "refunded_at"]
    ].values.tolist() == [["ch_1", 9.5, ""]]
    assert records["refunds"].empty
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as c:
        for kind in ("payments", "refunds"):
            have = [col["name"] for col in inspect(c).get_columns(f"rec_{kind}")]
            assert have == [col.name for col in RECORD_TABLES[kind].columns], kind
        assert not [t for t in inspect(c).get_table_names() if t.endswith("_v13")]
    engine.dispose()
