"""The benchmark's second night (bench/sweep_night.py) drops a next day's batch beside the
first: its disputes, orders and shipments numbered on from the first batch's, so no order
number or dispute id of the first night is written again."""

from __future__ import annotations

import csv
from pathlib import Path

from dispute_evidence.sandbox.workload import make_inbox, seed_rows


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_batch_numbered_from_first_follows_the_first_batch(tmp_path):
    make_inbox(tmp_path / "one", 3, prefix="m1_dp_")
    files = make_inbox(tmp_path / "two", 2, files=(1, 1), prefix="m1_dp_", first=3)
    one, two = tmp_path / "one", tmp_path / "two"
    assert [r["provider_dispute_id"] for r in _rows(two / "disputes.csv")] == ["m1_dp_3", "m1_dp_4"]
    assert [r["order_number"] for r in _rows(two / "disputes.csv")] == ["#5003", "#5004"]
    first_orders = {r["order_number"] for r in _rows(one / "orders.csv")}
    next_orders = {r["order_number"] for r in _rows(two / "orders.csv")}
    assert next_orders == {"5003", "5004"} and not first_orders & next_orders
    assert {r["order_number"] for r in _rows(two / "shipments.csv")} == {"5003", "5004"}
    assert sorted(p.name for p in (two / "proofs").iterdir()) == [
        "m1_dp_3_proof0.pdf",
        "m1_dp_4_proof0.pdf",
    ]
    assert files == 2
    rows = seed_rows(2, prefix="m1_dp_", first=3)
    assert [r["provider_dispute_id"] for r in rows] == ["m1_dp_3", "m1_dp_4"]
    assert [r["amount"] for r in rows] == [1003, 1004]
