"""Sheets that fit two layouts (issue 45, item 2): each is read as the kind its rows are, and
one line says which layout it was read as and why. A refunds log names the charge refunded
(`Payment ID`) and is still a refunds log; a payments export with refund columns is still a
payments export; a disputes list that names its order's products is still a disputes list."""

from __future__ import annotations

import pytest

from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import CHARGE_1001, STRIPE_PAYMENTS, write_csv, write_xlsx

READ_AS = "read as"  # how the line starts (ingest/choice.py)
WORDS = {"refunds": "a refunds log", "payments": "a payments export", "disputes": "a disputes list"}
REFUNDS_LOG = ["Order Number", "Payment ID", "Refund Amount", "Refunded On", "Reason", "Processed by"]  # fmt: skip

# (name, header, row, kind read, the other kind the line names; "" when no other fits)
CORPUS = [
    ("refunds log, issue 45's own", REFUNDS_LOG,
     ["#1001", "pay_PQx81LmA3nZc2k", "25792.00", "2025-12-10", "damaged", "Priya"],
     "refunds", "a payments export"),
    ("refunds log, canonical with a payment id", ["order_number", "payment_id", "refund_amount", "refunded_at", "refund_reference"],
     ["1001", "ch_1", "20.00", "2025-06-03", "re_1"], "refunds", "a payments export"),
    ("refunds log, refund id and date", ["Order Number", "Payment ID", "Refund ID", "Refund Amount", "Refund Date", "Currency"],
     ["1001", "ch_1", "re_1", "20.00", "2025-06-03", "EUR"], "refunds", "a payments export"),
    ("payments with a refund amount and a charge amount", ["payment_id", "order_number", "payment_amount", "refund_amount", "refunded_at"],
     ["ch_1", "1001", "50.00", "20.00", "2025-06-03"], "payments", "a refunds log"),
    ("payments with refund columns", ["payment_id", "order_number", "payment_amount", "amount_refunded", "refunded_at", "currency"],
     ["ch_1", "1001", "50.00", "20.00", "2025-06-03", "USD"], "payments", ""),
    ("disputes list with the order's products", ["provider_dispute_id", "order_number", "amount", "currency", "reason",
     "product_title", "price", "quantity", "currency_code", "customer_email", "customer_name", "sku"],
     ["dp_1", "1001", "50.00", "USD", "fraudulent", "Linen shirt", "50.00", "1", "USD", "a@example.com", "Ann", "LS-1"],
     "disputes", "an orders export"),
    ("disputes list with the charge's card facts", ["provider_dispute_id", "order_number", "amount", "payment_id", "payment_amount",
     "card_brand", "card_last4", "card_funding", "cvc_check"],
     ["dp_1", "1001", "50.00", "ch_1", "50.00", "visa", "4242", "credit", "pass"], "disputes", "a payments export"),
]  # fmt: skip


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
@pytest.mark.parametrize(
    ("name", "header", "row", "kind", "other"), CORPUS, ids=[c[0] for c in CORPUS]
)
def test_a_sheet_that_fits_two_layouts_is_read_as_what_its_rows_are(tmp_path, suffix, name, header, row, kind, other):  # fmt: skip
    path = tmp_path / f"export{suffix}"
    if suffix == ".csv":
        write_csv(path, header, [dict(zip(header, row, strict=True))])
    else:
        write_xlsx(path, {"Sheet1": [header, row]})
    res = ingest_paths([path], tmp_path)
    (summary,) = res.files
    assert (summary.kind, summary.rows_used) == (kind, 1), [r.line() for r in res.rejects]
    notes = [r.reason for r in res.rejects if r.reason.startswith(READ_AS)]
    if other:
        (note,) = notes
        assert note.startswith(f"{READ_AS} {WORDS[kind]} ({summary.layout}), not as {other}: ")
    else:
        assert notes == []
    assert [r.line() for r in res.rejects if not r.reason.startswith(READ_AS)] == []


def test_the_refunds_log_reads_its_amount_and_date_and_says_why(tmp_path):
    """Issue 45's log: `Refund Amount` and `Refunded On` are read (not dropped with "did you
    mean 'amount_refunded'", not ignored silently); the line names the columns that decided."""
    row = ["#1001", "pay_PQx81LmA3nZc2k", "25792.00", "2025-12-10", "damaged", "Priya"]
    path = write_csv(
        tmp_path / "refunds.csv", REFUNDS_LOG, [dict(zip(REFUNDS_LOG, row, strict=True))]
    )
    res = ingest_paths([path], tmp_path)
    refund = res.records["refunds"].iloc[0]
    assert (refund["order_number"], refund["refund_amount"], refund["refunded_at"]) == (
        "1001", 25792.0, "2025-12-10T00:00:00Z")  # fmt: skip
    assert res.records["payments"].empty  # its payment id is no charge of the shop's
    (note,) = [r.line() for r in res.rejects]
    assert "'Refund Amount'" in note and "no charge amount" in note, note
    assert "did you mean" not in note


def test_a_stripe_export_with_refunds_is_a_payments_export(tmp_path):
    header = [*STRIPE_PAYMENTS, "orderNumber (metadata)"]
    charge = {**CHARGE_1001, "Amount Refunded": "20.00", "Refunded date (UTC)": "2025-06-03 09:30:00",
              "orderNumber (metadata)": "#1001"}  # fmt: skip
    res = ingest_paths([write_csv(tmp_path / "unified_payments.csv", header, [charge])], tmp_path)
    assert (res.files[0].kind, res.files[0].layout) == ("payments", "Stripe payments export")
    assert res.records["refunds"].empty


def test_a_near_miss_points_at_the_layout_that_fits_best(tmp_path):
    """A refunds log whose refund amount header has a typo fits only the payments layout (a
    payment id and an order number); it is not read as charges: the line says what it lacks as
    a refunds log, did you mean 'Refund Amout', and the mapping to add."""
    header = ["Order Number", "Payment ID", "Refund Amout", "Refunded On", "Reason"]
    row = dict(
        zip(
            header,
            ["#1001", "pay_PQx81LmA3nZc2k", "25792.00", "2025-12-10", "damaged"],
            strict=True,
        )
    )
    res = ingest_paths([write_csv(tmp_path / "refunds.csv", header, [row])], tmp_path)
    assert res.records["payments"].empty and res.files[0].kind is None
    (line,) = [r.line() for r in res.rejects]
    assert "as refunds it lacks required column(s) refund_amount" in line, line
    assert "did you mean 'Refund Amout' for refund_amount?" in line
    assert 'kind = "refunds"' in line and 'refund_amount = "Refund Amout"' in line


def test_a_column_one_edit_from_another_layouts_is_no_near_miss_when_it_is_read(tmp_path):
    """An orders export's `refunded_amount` is one edit from a refunds log's `refund_amount`:
    it is the orders' own column, so the sheet stays an orders export (orders are never set
    aside for a kind one typo away)."""
    header = [
        "order_number",
        "product_title",
        "price",
        "quantity",
        "currency_code",
        "refunded_amount",
    ]
    row = dict(zip(header, ["1001", "Linen shirt", "80.00", "1", "USD", "0"], strict=True))
    res = ingest_paths([write_csv(tmp_path / "orders.csv", header, [row])], tmp_path)
    assert (res.files[0].kind, res.files[0].rows_used, res.rejects) == ("orders", 1, [])
