"""Headers one edit from a column the recognised layout reads get "did you mean" (issue 37,
item 6); the real exports' own headers get none."""

from __future__ import annotations

import pytest

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.ingest.nearness import near, one_edit_apart
from tests.support.export_layouts import (
    SHIPSTATION,
    SHOPIFY_75,
    SHOPIFY_79,
    STRIPE_PAYMENTS,
    write_csv,
)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("amountrefunded", "amountrefundd", True),  # a deletion
        ("amountrefunded", "amountrefundeds", True),  # an insertion
        ("amountrefunded", "amountrefunted", True),  # a replacement
        ("amountrefunded", "amountrefudned", True),  # neighbours swapped
        ("amountrefunded", "amountrefunded", False),  # the same
        ("amountrefunded", "amountrefuned", True),
        ("amountrefunded", "amountrefnud", False),  # two edits
        ("cardbrand", "cardbarnd", True),
        ("abc", "cba", False),
    ],
)
def test_one_edit_apart(a, b, expected):
    assert one_edit_apart(a, b) is expected
    assert one_edit_apart(b, a) is expected


def test_near_after_the_readers_header_normalisation():
    assert near("Amount  Refundd", "Amount Refunded")
    assert near("Refund Amount", "Amount Refunded")  # the same words in another order
    assert near("amount-refunded ", "amount_refunded") is False  # the same header: read as is
    assert near("ids", "id") is False  # too short to say
    assert near("Card Brands", "Card Brand")


def test_a_payments_sheet_says_which_column_it_did_not_read(tmp_path):
    """A typo in a payments sheet's refund column (a refund amount spelled right is read:
    test_layout_choice.py)."""
    f = write_csv(
        tmp_path / "payments.csv",
        ["payment_id", "order_number", "Amount Refundd", "payment_amount"],
        [{"payment_id": "ch_1", "order_number": "1001", "Amount Refundd": "20.00",
          "payment_amount": "50.00"}],
    )  # fmt: skip
    res = ingest_paths([f], tmp_path)
    assert res.files[0].kind == "payments"
    (line,) = [r.line() for r in res.rejects]
    assert line.startswith("payments.csv, column 'Amount Refundd': not read: did you mean "
                           "'amount_refunded'?"), line  # fmt: skip
    assert "ignored until" in line


@pytest.mark.parametrize("header", [SHOPIFY_79, SHOPIFY_75, SHIPSTATION, STRIPE_PAYMENTS])
def test_no_real_export_header_is_taken_for_a_typo(tmp_path, header):
    f = write_csv(tmp_path / "export.csv", header, [dict.fromkeys(header, "")])
    res = ingest_paths([f], tmp_path)
    assert [r.line() for r in res.rejects if "did you mean" in r.reason] == []
