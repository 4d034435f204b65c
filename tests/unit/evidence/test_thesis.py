"""The thesis first (issue 44, item 4): the body's first sentence answers the claim with the
decisive proof and names its exhibit; it says only what the case shows."""

from __future__ import annotations

from datetime import date

from dispute_evidence.documents.facts import Delivery, DocumentFacts, Quote
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from tests.unit.evidence.test_letter import CHARGE, ORDER, PRODUCTS

ENTERED = "12 Elm Street, Boston, MA, 02108, United States"


def _pod(address: str) -> DocumentFacts:
    said = Quote("Delivered on 2026-10-06, signed by A. Smith", 1)
    return DocumentFacts("pod.pdf", "", "proof_of_delivery", "text", 1,
                         delivery=Delivery(date(2026, 10, 6), "A. Smith", address, said))  # fmt: skip


def _letter(reason: str, docs: list[DocumentFacts], **extra: object):  # type: ignore[no-untyped-def]
    dispute = {"reason": reason, "amount": 129, "currency": "USD"}
    ship = {"tracking_number": "1Z1", "carrier": "UPS", "shipped_at": "2026-10-03",
            "delivery_status": "In transit"}  # fmt: skip
    order = {**ORDER, "shipping_address": ENTERED, "billing_address": ENTERED}
    payload = {"products": PRODUCTS,
               "additional_evidence": {**order, "dispute": dispute, "shipments": [ship], **extra}}  # fmt: skip
    return build_letter(wire_facts(payload), docs)


def test_a_signed_proof_opens_the_letter_with_its_signer_date_and_the_address_entered():
    letter = _letter("product_not_received", [_pod("12 Elm Street, Boston, MA 02108")])
    assert letter.thesis is not None
    assert letter.thesis.text == (
        "The cardholder says the goods were not received; UPS's signed proof of delivery "
        "(pod.pdf, page 1) shows the parcel delivered on 2026-10-06 to 12 Elm Street, Boston, MA "
        "02108, the shipping address entered at checkout, signed for by A. Smith.")  # fmt: skip


def test_an_address_the_customer_did_not_enter_is_never_called_theirs():
    letter = _letter("product_not_received", [_pod("Cambridge, MA 02139")])  # no street to match
    assert letter.thesis is not None and "to Cambridge, MA 02139, signed" in letter.thesis.text
    assert "entered at checkout" not in letter.thesis.text
    other = _letter("product_not_received", [_pod("14 Oak Road, Boston, MA 02108")])
    assert other.thesis is not None and "14 Oak Road" not in other.thesis.text  # another parcel


def test_with_nothing_decisive_the_thesis_is_the_claim_alone():
    letter = _letter("product_not_received", [])
    assert letter.thesis is not None
    assert letter.thesis.text == "The cardholder says the goods were not received."


def test_fraud_leads_with_the_issuers_check_and_the_verified_address():
    letter = _letter("fraudulent", [_pod("12 Elm Street, Boston, MA 02108")], payments=[CHARGE])
    assert letter.thesis is not None
    assert letter.thesis.text.startswith(
        "The cardholder says they did not authorise this payment; the card issuer's address "
        "check passed (street) for charge ch_1, and the order was delivered (pod.pdf, page 1) "
        f"to that verified billing address, {ENTERED}.")  # fmt: skip
