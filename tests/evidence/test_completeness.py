"""The reason-aware completeness table, reason by reason, on small payloads."""

from __future__ import annotations

import pytest

from dispute_evidence.evidence.completeness import REASONS, assess

ADDRESS = "12 Elm St, Boston, MA, 02108, US"
SHIPPED = {"carrier": "UPS", "tracking_number": "1Z1", "shipped_at": "2026-10-03T00:00:00Z",
           "delivered_at": "2026-10-07T00:00:00Z"}  # fmt: skip
CARD = {
    "payment_id": "ch_1",
    "avs_line1_check": "pass",
    "avs_zip_check": "pass",
    "cvc_check": "pass",
}
FULL = {
    "products": [{"product_title": "Shirt", "price": 10, "quantity": 1, "currency_code": "USD"}],
    "shipping_tracking_numbers": ["1Z1"],
    "additional_evidence": {
        "customer_name": "Ann", "customer_email": "ann@example.com",
        "billing_address": ADDRESS, "shipping_address": ADDRESS.upper(),
        "refunded_amount": 0, "shipments": [SHIPPED], "payments": [CARD],
    },
}  # fmt: skip
EMPTY = {"products": [], "additional_evidence": {}}


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_everything_the_exports_hold_plus_a_document_is_complete(reason):
    assert assess(FULL, files=1, reason=reason).text == "complete"


@pytest.mark.parametrize(("reason", "missing"), [
    ("fraudulent", "billing address, shipping address, billing address = shipping address, "
                   "AVS check passed, carrier, tracking number, ship date"),
    ("unrecognized", "billing address, shipping address, billing address = shipping address, "
                     "AVS check passed, carrier, tracking number, ship date"),
    ("product_not_received", "carrier, tracking number, ship date, shipping address, delivery confirmed"),
    ("product_unacceptable", "product description, policy document"),
    ("subscription_canceled", "policy document, customer email"),
    ("duplicate", "explanation document, payment record"),
    ("credit_not_processed", "policy document, refund record"),
    ("general", "product description, customer name, customer email"),
])  # fmt: skip
def test_an_empty_payload_misses_each_reasons_core_items(reason, missing):
    verdict = assess(EMPTY, files=0, reason=reason)
    assert verdict.text == f"missing: {missing}"
    assert len(verdict.to_add) >= 1 and all(verdict.to_add)  # says what to add, in words


def test_details_that_decide_a_verdict():
    no_avs = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
              "payments": [{**CARD, "avs_line1_check": "fail", "avs_zip_check": "unavailable"}]}}  # fmt: skip
    assert assess(no_avs, 1, "fraudulent").missing == ("AVS check passed",)
    moved = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
             "shipping_address": "1 Other Rd, Leeds, GB"}}  # fmt: skip
    verdict = assess(moved, 1, "fraudulent")
    assert verdict.missing == ("billing address = shipping address",)
    assert "matches the billing address" in verdict.what_to_add
    in_transit = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                  "shipments": [{**SHIPPED, "delivered_at": ""}]}}  # fmt: skip
    assert assess(in_transit, 1, "product_not_received").missing == ("delivery confirmed",)
    # an unknown or missing reason falls back to the general list; the payload's own reason
    assert assess(FULL, 0, "some_new_reason").reason == "general"
    tagged = {**EMPTY, "additional_evidence": {"dispute": {"reason": "duplicate"}}}
    assert assess(tagged, 0).reason == "duplicate"
    # "also helps" items are suggestions, never a missing verdict
    assert assess(FULL, 1, "product_not_received").suggestions == ()
    assert "customer communication" in assess(FULL, 0, "fraudulent").suggestions
