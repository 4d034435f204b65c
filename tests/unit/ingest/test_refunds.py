"""Refunds carry their date and reference (issue 37, item 7): Stripe's `Refunded date (UTC)`
in the payments records, and a canonical refunds layout."""

from __future__ import annotations

from dispute_evidence.evidence.dispute_facts import Refund
from dispute_evidence.evidence.payments import refunds_by_order
from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import CHARGE_1001, STRIPE_PAYMENTS, write_csv


def test_stripe_refunded_date_reaches_the_payments_records(tmp_path):
    header = [*STRIPE_PAYMENTS, "orderNumber (metadata)"]
    charge = {**CHARGE_1001, "Amount Refunded": "20.00", "Refunded date (UTC)": "2025-06-03 09:30:00",
              "orderNumber (metadata)": "#1001"}  # fmt: skip
    res = ingest_paths([write_csv(tmp_path / "unified_payments.csv", header, [charge])], tmp_path)
    pay = res.records["payments"].iloc[0]
    assert (pay["amount_refunded"], pay["refunded_at"]) == (20.0, "2025-06-03T09:30:00Z")


def test_a_refunds_log_is_read_and_grouped_by_order(tmp_path):
    header = ["Order Number", "Refund Amount", "Refunded At", "Refund Reference"]
    rows = [
        {"Order Number": "#1001", "Refund Amount": "5.00", "Refunded At": "2025-06-04",
         "Refund Reference": "re_2"},
        {"Order Number": "#1001", "Refund Amount": "20.00", "Refunded At": "2025-06-03",
         "Refund Reference": "re_1"},
        {"Order Number": "1001", "Refund Amount": "20.00", "Refunded At": "2025-06-03",
         "Refund Reference": "re_1"},  # listed twice: one refund
        {"Order Number": "#1002", "Refund Amount": "1.00", "Refunded At": "", "Refund Reference": ""},
    ]  # fmt: skip
    res = ingest_paths([write_csv(tmp_path / "refunds.csv", header, rows)], tmp_path)
    (summary,) = res.files
    assert (summary.kind, summary.layout, summary.rows_used, summary.rows_duplicate) == (
        "refunds", "canonical refunds", 3, 1)  # fmt: skip
    by_order = refunds_by_order(res.records["refunds"], {"1001"})
    assert by_order == {
        "1001": [
            Refund(20, "2025-06-03T00:00:00Z", "re_1"),
            Refund(5, "2025-06-04T00:00:00Z", "re_2"),
        ]
    }


def test_a_refund_listed_again_in_a_later_file_counts_once(tmp_path):
    header = ["order_number", "refund_amount", "refunded_at", "refund_reference"]
    one = {"order_number": "1001", "refund_amount": "20", "refunded_at": "2025-06-03",
           "refund_reference": "re_1"}  # fmt: skip
    files = [write_csv(tmp_path / f"refunds_{i}.csv", header, [one]) for i in (1, 2)]
    res = ingest_paths(files, tmp_path)
    assert len(refunds_by_order(res.records["refunds"], {"1001"})["1001"]) == 1
