"""The reason's checklist names the merchant statement it needs (issue 37 item 4), as a
suggestion: never a reason a case is incomplete (shared/spec/rebuttal-by-reason.md)."""

from __future__ import annotations

import pytest

from dispute_evidence.evidence.completeness import assess
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts

STATEMENT = {
    "text": "Two orders: #5000 for the deck, #5001 for the wheels.",
    "from": "disputes list",
}


def _payload(reason: str, statement: dict | None = None) -> dict:
    extra: dict = {"order_number": "5000", "dispute": {"reason": reason}, "customer_email": "a@b.c",
                   "refunded_amount": 0, "payments": [{"payment_id": "ch_1"}]}  # fmt: skip
    if statement:
        extra["merchant_statement"] = statement
    return {"products": [{"product_title": "Deck", "price": 1, "quantity": 1,
                          "currency_code": "USD"}], "additional_evidence": extra}  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "named"),
    [
        ("credit_not_processed", "merchant statement (why no refund is owed)"),
        ("subscription_canceled",
         "merchant statement (that no cancellation was received before the charge)"),
        ("duplicate", "merchant statement (why the two charges differ)"),
        ("product_unacceptable", "merchant statement (what happened to any return request)"),
    ],
)  # fmt: skip
def test_the_checklist_suggests_the_statement_the_reason_needs(reason, named):
    without = assess(wire_facts(_payload(reason)), ["policy"])
    assert named in without.suggestions
    assert named not in without.missing  # a suggestion, never a missing core item
    assert named not in assess(wire_facts(_payload(reason, STATEMENT)), ["policy"]).suggestions


def test_a_statement_explains_a_duplicate_where_no_document_does():
    assert "explanation document" in assess(wire_facts(_payload("duplicate")), []).missing
    assert assess(wire_facts(_payload("duplicate", STATEMENT)), []).missing == ()
