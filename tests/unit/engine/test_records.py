"""The records read from the inbox live in tables the schema declares (v12), not tables pandas
made at a file's first write: a state from before is rebuilt in their shape with its rows."""

from __future__ import annotations

import pandas as pd
import pytest
from sqlalchemy import create_engine, inspect, select, text

from dispute_evidence.ingest import empty_records
from dispute_evidence.ingest.layouts import FIELDS, NUMBER_FIELDS
from dispute_evidence.ingest.tables import SOURCE_COLUMNS
from dispute_evidence.state.schema import RECORD_TABLES, SCHEMA_VERSION
from dispute_evidence.state.store import StateStore
from tests.support.old_state import as_version


def _v11_state(url: str) -> None:
    """A state as version 11 left it: its record tables made by pandas' to_sql from the first
    file's frame (a blank `amount` made a TEXT column; `network_reason_code` came later)."""
    StateStore(url).close()
    engine = create_engine(url)
    with engine.begin() as c:
        for table in RECORD_TABLES.values():
            table.drop(c)
        first = pd.DataFrame({"provider_dispute_id": ["dp_1"], "order_number": ["1001"],
                              "amount": [None], "currency": ["USD"], "reason": ["fraudulent"],
                              "_file": ["a.csv"], "_sheet": [None], "_row": [2], "_seq": [1]})  # fmt: skip
        first.astype({"amount": "object"}).to_sql("rec_disputes", c, index=False)
        c.execute(text("ALTER TABLE rec_disputes ADD COLUMN network_reason_code TEXT"))
        c.execute(text("INSERT INTO rec_disputes (provider_dispute_id, order_number, amount, "
                       "_file, _row, _seq, network_reason_code) VALUES "
                       "('dp_2', '1002', '12.5', 'b.csv', 2, 2, '10.4')"))  # fmt: skip
        orders = pd.DataFrame({"order_number": ["1001"], "product_title": ["Lamp"],
                               "price": [9.5], "quantity": [1.0], "currency_code": ["USD"],
                               "customer_email": ["a@example.com"], "_file": ["o.csv"],
                               "_sheet": [None], "_row": [2], "_seq": [3]})  # fmt: skip
        orders.to_sql("rec_orders", c, index=False)
        as_version(c, 11)
    engine.dispose()


def _assert_migrated(url: str) -> None:
    with StateStore(url) as store:
        records = store.records.load_records()
        assert store.runs.get_meta("schema_version") == str(SCHEMA_VERSION)
    disputes = records["disputes"]
    assert disputes["provider_dispute_id"].tolist() == ["dp_1", "dp_2"]  # kept, in ingest order
    assert disputes["amount"].tolist() == ["", 12.5]  # text that was a number is one now
    assert disputes["network_reason_code"].tolist() == ["", "10.4"]
    assert records["orders"][["order_number", "price", "customer_email"]].values.tolist() == [
        ["1001", 9.5, "a@example.com"]
    ]
    assert records["shipments"].empty and records["payments"].empty
    engine = create_engine(url)
    with engine.connect() as c:
        for table in RECORD_TABLES.values():
            have = [col["name"] for col in inspect(c).get_columns(table.name)]
            assert have == [col.name for col in table.columns], table.name
        assert not [t for t in inspect(c).get_table_names() if t.endswith("_v11")]
    engine.dispose()


def test_a_version_11_state_keeps_its_records_in_the_declared_tables(tmp_path):
    url = f"sqlite:///{tmp_path / 'v11.sqlite3'}"
    _v11_state(url)
    _assert_migrated(url)


def test_the_declared_tables_hold_every_field_the_ingest_reads():
    """A field added to ingest/layouts.py needs its column (a migration) in state/schema.py."""
    for kind, fields in FIELDS.items():
        table = RECORD_TABLES[kind]
        owner = ["_owner"] if kind == "approvals" else []  # who approves: the file's owner
        assert [c.name for c in table.columns] == [*fields, *owner, *SOURCE_COLUMNS, "_seq"]
        numbers = {c.name for c in table.columns if c.type.python_type is float}
        assert numbers == NUMBER_FIELDS & set(fields), kind
        assert set(empty_records()[kind].columns) < set(table.c.keys())


def test_records_are_written_and_read_back_by_the_schema(tmp_path):
    """What an ingest writes comes back as it went in, with the ingest it came from."""
    frame = empty_records()["orders"]
    frame = pd.DataFrame([{**dict.fromkeys(frame.columns, ""), "order_number": "7",
                           "price": 3.25, "quantity": float("nan"), "_row": 4}])  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        store.records.record_ingest("a" * 64, "orders.csv", "r1", {"orders": frame}, [])
        back = store.records.load_records(["orders"], ["order_number", "price", "quantity", "_row"])
        with store.engine.connect() as c:
            raw = c.execute(select(RECORD_TABLES["orders"].c.quantity)).scalar_one()
    assert back["orders"].to_dict("records") == [
        {"order_number": "7", "price": 3.25, "quantity": "", "_row": 4}
    ]
    assert raw is None  # a blank number is NULL, not NaN


def test_a_record_column_the_schema_lacks_is_refused_not_dropped(tmp_path):
    frame = pd.DataFrame([{"order_number": "7", "_row": 2, "gift_note": "hi"}])
    with StateStore(tmp_path / "s.sqlite3") as store:
        with pytest.raises(ValueError, match=r"rec_orders has no column \['gift_note'\]"):
            store.records.record_ingest("b" * 64, "orders.csv", "r1", {"orders": frame}, [])
        assert store.records.load_records(["orders"])["orders"].empty  # all or nothing
