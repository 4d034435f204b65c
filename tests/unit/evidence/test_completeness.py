"""The reason-aware completeness table, reason by reason, on small payloads."""

from __future__ import annotations

import pytest

from dispute_evidence.evidence.completeness import REASONS, assess
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts

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
DOCUMENTS = ["policy", "communication", "shipping_document"]  # one of each kind the table asks for


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_everything_the_exports_hold_plus_the_documents_is_complete(reason):
    assert assess(wire_facts(FULL), files=DOCUMENTS, reason=reason).text == "complete"


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
    verdict = assess(wire_facts(EMPTY), files=0, reason=reason)
    assert verdict.text == f"missing: {missing}"
    assert len(verdict.to_add) >= 1 and all(verdict.to_add)  # says what to add, in words


def test_details_that_decide_a_verdict():
    no_avs = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
              "payments": [{**CARD, "avs_line1_check": "fail", "avs_zip_check": "unavailable"}]}}  # fmt: skip
    assert assess(wire_facts(no_avs), DOCUMENTS, "fraudulent").missing == ("AVS check passed",)
    moved = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
             "shipping_address": "1 Other Rd, Leeds, GB"}}  # fmt: skip
    verdict = assess(wire_facts(moved), DOCUMENTS, "fraudulent")
    assert verdict.missing == ("billing address = shipping address",)
    assert "matches the billing address" in verdict.what_to_add
    in_transit = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                  "shipments": [{**SHIPPED, "delivered_at": ""}]}}  # fmt: skip
    assert assess(wire_facts(in_transit), 1, "product_not_received").missing == (
        "delivery confirmed",
    )
    # an unknown or missing reason falls back to the general list; the payload's own reason
    assert assess(wire_facts(FULL), 0, "some_new_reason").reason == "general"
    tagged = {**EMPTY, "additional_evidence": {"dispute": {"reason": "duplicate"}}}
    assert assess(wire_facts(tagged), 0).reason == "duplicate"
    # "also helps" items are suggestions, never a missing verdict
    assert assess(wire_facts(FULL), DOCUMENTS, "product_not_received").suggestions == ()
    assert "customer communication" in assess(wire_facts(FULL), 0, "fraudulent").suggestions


def test_files_count_by_kind():
    from dispute_evidence.documents.kinds import kind_of

    assert kind_of("2002 proof of delivery.pdf") == "proof_of_delivery"
    assert kind_of("1044_signature.jpg") == "signature"
    assert kind_of("#1041 invoice.pdf") == kind_of("dp_1_receipt.pdf") == "receipt"
    assert kind_of("1041 refund-policy.pdf") == "policy"
    assert kind_of("1041 emails.pdf") == "communication"
    assert kind_of("1045 tracking.pdf") == "shipping_document"
    assert kind_of("scan_0007.pdf") == "other"
    # a proof of delivery says who signed too: it is a proof of delivery first (issue 27)
    pod = "Proof of Delivery\nSigned by: A. Smith"
    assert kind_of("scan_0007.pdf", pod) == "proof_of_delivery"
    assert kind_of("scan_0009.pdf", "Recipient signature: A. Smith") == "signature"
    assert kind_of("scan_0008.pdf", "Our Refund Policy: 30 days") == "policy"
    no_delivery = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                   "shipments": [{**SHIPPED, "delivered_at": ""}]}}  # fmt: skip
    # doing what "what to add" says: a proof of delivery confirms delivery
    assert assess(wire_facts(no_delivery), ["other"], "product_not_received").missing == (
        "delivery confirmed",
    )
    assert assess(wire_facts(no_delivery), ["proof_of_delivery"], "product_not_received").complete
    # a receipt is not a policy; a file of no known kind is only a generic explanation
    assert assess(wire_facts(FULL), ["receipt"], "credit_not_processed").missing == (
        "policy document",
    )
    assert assess(wire_facts(FULL), ["other"], "duplicate").complete


def test_facts_that_undercut_the_reason_make_it_weak():
    in_transit = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                  "shipments": [{**SHIPPED, "delivered_at": "", "delivery_status": "In transit"}]}}  # fmt: skip
    verdict = assess(wire_facts(in_transit), DOCUMENTS, "product_not_received")
    assert verdict.text == "weak: carrier shows in transit" and not verdict.complete
    # the merchant's own data concedes non-receipt: accept, or fight it with a proof
    assert verdict.what_to_add.startswith(
        "proof of delivery (a delivery confirmation or signature), to fight it; else accept the "
        "dispute"
    )
    assert assess(wire_facts(in_transit), ["signature"], "product_not_received").complete
    out_for = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
               "shipments": [{**SHIPPED, "delivered_at": "", "delivery_status": "Out for delivery"}]}}  # fmt: skip
    assert assess(wire_facts(out_for), DOCUMENTS, "product_not_received").weak  # not "delivered"
    refunded = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                "refunded_amount": 42, "order_total": 42, "order_currency": "USD"}}  # fmt: skip
    verdict = assess(wire_facts(refunded), DOCUMENTS, "credit_not_processed")
    assert verdict.text == "weak: a refund of 42.00 USD is recorded: the order was credited"
    assert assess(wire_facts(refunded), DOCUMENTS, "fraudulent").text.startswith(
        "weak: the order was fully refunded"
    )
    cancelled = {**FULL, "additional_evidence": {**FULL["additional_evidence"],
                 "cancelled_at": "2026-10-04T10:00:00Z"}}  # fmt: skip
    assert (
        assess(wire_facts(cancelled), DOCUMENTS, "general").text
        == "weak: the order was cancelled on 2026-10-04"
    )
