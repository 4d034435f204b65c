"""Evidence from records that arrived in several files (issue 24, hardening round 2): a file
dropped again under its name replaces its earlier version; files of different names add up,
and disagree only loudly; no number breaks the canonical JSON."""

from __future__ import annotations

import orjson
import pandas as pd

from dispute_evidence.evidence import build_evidence
from dispute_evidence.evidence.builder import _number, canonical_json
from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import (
    ORDER_1001,
    ORDER_1001_LINE2,
    ORDER_1002,
    SHOPIFY_79,
    write_csv,
)

DISPUTES = ["provider_dispute_id", "order_number", "amount"]


def _arrivals(tmp_path, *drops: tuple[str, list[str], list[dict[str, str]]]):
    """Records as the state holds them: each drop (name, header, rows) one ingest, in order."""
    parts: dict[str, list[pd.DataFrame]] = {}
    for seq, (name, header, rows) in enumerate(drops, start=1):
        folder = tmp_path / str(seq)
        folder.mkdir(parents=True)
        path = write_csv(folder / name, header, rows)
        for kind, frame in ingest_paths([path], folder).records.items():
            parts.setdefault(kind, []).append(frame.assign(_seq=seq))
    return {k: pd.concat(v, ignore_index=True) for k, v in parts.items()}


def _orders(*rows: dict[str, str], name: str = "orders.csv"):
    return name, SHOPIFY_79, list(rows)


def _disputes(*pairs: tuple[str, str], name: str = "disputes.csv"):
    return name, DISPUTES, [dict(zip(DISPUTES, (p, o, "100"), strict=True)) for p, o in pairs]


def _products(result, pid: str) -> list[tuple[str, float, int]]:
    (p,) = [p for p in result.payloads if p.provider_dispute_id == pid]
    return [(x.product_title, x.price, x.quantity) for x in p.evidence.products]


def test_huge_numbers_never_break_the_canonical_json(tmp_path):
    records = _arrivals(tmp_path, _orders(ORDER_1001), _disputes(("dp_1", "1001")))
    records["orders"]["price"] = 1e300  # past ingest's bounds, as an older state may hold
    records["disputes"]["amount"] = 1e308
    (p,) = build_evidence(records).payloads
    body = orjson.loads(p.body)
    assert body["products"][0]["price"] == 1e300
    assert body["additional_evidence"]["dispute"]["amount"] == 1e308
    big = {"n": _number("99999999999999999999"), "w": _number(3.0), "e": _number(2.0**53)}
    assert canonical_json(big) == b'{"e":9007199254740992.0,"n":1e+20,"w":3}'


def test_two_lists_giving_one_dispute_two_orders_hold_it(tmp_path):
    records = _arrivals(
        tmp_path,
        _orders(ORDER_1001, ORDER_1002),
        _disputes(("dp_1", "1001"), ("dp_2", "1002"), name="disputes_monday.csv"),
        _disputes(("dp_1", "1002"), name="disputes_tuesday.csv"),
    )
    result = build_evidence(records)
    assert [p.provider_dispute_id for p in result.payloads] == ["dp_2"]  # dp_1: neither
    assert [(r.file, r.row, r.value) for r in result.conflicts] == [
        ("disputes_monday.csv", 2, "1001"),
        ("disputes_tuesday.csv", 2, "1002"),
    ]
    why = result.conflicts[0].reason
    assert "order 1001 (disputes_monday.csv row 2)" in why
    assert "order 1002 (disputes_tuesday.csv row 2)" in why
    assert [(i.provider_dispute_id, i.reason) for i in result.incomplete] == [
        ("dp_1", f"held: {why}")
    ]


def test_a_list_dropped_again_under_its_name_replaces_its_earlier_version(tmp_path):
    records = _arrivals(
        tmp_path,
        _orders(ORDER_1001, ORDER_1002),
        _disputes(("dp_1", "1001")),
        _disputes(("dp_1", "1002")),  # disputes.csv, corrected
    )
    result = build_evidence(records)
    assert result.conflicts == [] and result.incomplete == []
    assert [(p.provider_dispute_id, p.order_number) for p in result.payloads] == [("dp_1", "1002")]


def test_a_later_file_with_one_extra_line_adds_it(tmp_path):
    extra = {**ORDER_1001_LINE2, "Lineitem name": "Hat", "Lineitem sku": "HT-3"}
    records = _arrivals(
        tmp_path,
        _orders(ORDER_1001, ORDER_1001_LINE2),
        _orders({**extra, "Currency": "USD"}, name="orders_extra.csv"),
        _disputes(("dp_1", "1001")),
    )
    result = build_evidence(records)
    assert _products(result, "dp_1") == [
        ("Linen shirt", 49.5, 2),
        ('Belt, "leather"\r\nbrown', 10.0, 1),
        ("Hat", 10.0, 1),
    ]
    facts = result.payloads[0].evidence.additional_evidence
    assert facts["billing_address"].startswith("1 Main St") and facts["customer_email"]


def test_a_line_listed_again_takes_the_later_row_and_a_re_export_replaces(tmp_path):
    records = _arrivals(
        tmp_path,
        _orders(ORDER_1001, ORDER_1001_LINE2),
        _orders({**ORDER_1001, "Lineitem quantity": "3"}, name="orders_fix.csv"),
        _disputes(("dp_1", "1001")),
    )
    assert _products(build_evidence(records), "dp_1") == [
        ('Belt, "leather"\r\nbrown', 10.0, 1),
        ("Linen shirt", 49.5, 3),
    ]
    records = _arrivals(
        tmp_path / "b",
        _orders(ORDER_1001, ORDER_1001_LINE2),
        _orders({**ORDER_1001, "Lineitem quantity": "3"}),  # orders.csv again: the new version
        _disputes(("dp_1", "1001")),
    )
    result = build_evidence(records)
    assert _products(result, "dp_1") == [("Linen shirt", 49.5, 3)]
    assert [r.line() for r in result.conflicts] == [  # the drop is said, never silent
        "orders.csv, column 'order_number' = '1001': order 1001: this file, dropped again, lists "
        "1 line(s) where its earlier version listed 2; the new version is used, so 1 line(s) are "
        "no longer sent. If they belong to the order, drop the file again with every line"
    ]
