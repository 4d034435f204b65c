"""Issue 39 item 8: what a proof of delivery says of itself (done, not done, or nothing: a
customer's words, a reported claim, an attempt), who signed (a name, never "for it"), and for
which parcel (a POD naming another parcel is not this dispute's evidence)."""

from __future__ import annotations

from datetime import date

import pytest

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.kinds import kind_of
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts

POD = DocumentFacts("1043_delivery_confirmation.pdf", "", "proof_of_delivery", "text")


def _read(*lines: str) -> DocumentFacts:
    return doctext.facts(POD, ["\n".join(lines)])


def test_a_pod_that_says_not_delivered_is_a_failed_delivery_quoted():
    found = _read("Delivery confirmation", "Tracking number: 1Z999AA10123456784",
                  "Shipment NOT delivered on 2026-11-04", "Returned to sender")  # fmt: skip
    assert found.delivery is not None and found.delivery.delivered is False
    assert found.delivery.quote.text == "Shipment NOT delivered on 2026-11-04"
    assert found.delivery.on is None and found.delivery.signed_by is None


@pytest.mark.parametrize(
    "lines",
    [
        ["the carrier says delivered and signed for it. I want my money back", "2026-11-04"],
        ["Hi, tracking shows", "delivered on 2026-11-04 but nothing came"],  # a wrapped claim
        ["Out for delivery 2026-11-04"],
        ["Delivery attempted 2026-11-04: no one available"],
    ],
)
def test_a_customers_words_a_reported_claim_or_an_attempt_state_no_delivery(lines):
    assert _read(*lines).delivery is None


@pytest.mark.parametrize(
    ("lines", "on"),
    [
        (["Delivery attempted 2026-11-03", "Delivered 2026-11-04", "Signed for by: K. PATEL"],
         date(2026, 11, 4)),
        (["Delivered on 4 November 2026", "If undeliverable, return to sender"],
         date(2026, 11, 4)),
    ],
)  # fmt: skip
def test_an_attempt_before_a_delivery_and_return_boilerplate_leave_it_delivered(lines, on):
    found = _read(*lines)
    assert found.delivery is not None and found.delivery.delivered and found.delivery.on == on


@pytest.mark.parametrize(
    ("line", "signer"),
    [
        ("the parcel was delivered and signed for it", None),
        ("Delivered, signed by for it", None),
        ("Delivered. Signed by: The customer", None),
        ("Delivered. Signed by: J. Smith", "J. Smith"),
        ("Delivered. SIGNED FOR BY: R. THOMAS", "R. THOMAS"),
    ],
)
def test_signed_by_is_followed_by_a_name_or_names_nobody(line, signer):
    found = _read(line)
    assert found.delivery is not None and found.delivery.signed_by == signer


def test_a_customer_message_named_as_a_pod_is_communication():
    text = "From: dana@example.com\nSubject: order 1043\nthe carrier says delivered. I want my money back"
    assert kind_of("1043_delivery_confirmation.pdf", text) == "communication"
    assert kind_of("scan_1.pdf", text) == "communication"
    carrier = (
        "From: UPS Quantum View\nSubject: Delivered\nYour package was delivered on 2026-11-04."
    )
    assert kind_of("1043_delivery_confirmation.pdf", carrier) == "proof_of_delivery"


def _payload(tracking: str, address: str) -> dict:
    return {
        "shipping_tracking_numbers": [tracking] if tracking else [],
        "additional_evidence": {"shipping_address": address, "dispute": {
            "reason": "product_not_received"}},
    }  # fmt: skip


def _pod(*lines: str) -> DocumentFacts:
    return doctext.facts(DocumentFacts("1043 pod.pdf", "", "proof_of_delivery", "text"),
                         ["\n".join(lines)])  # fmt: skip


@pytest.mark.parametrize(
    ("payload", "argued"),
    [
        (_payload("1Z999AA10123456784", "12 Elm Street, Boston"), True),  # its parcel
        (_payload("1Z 999 AA1 0123 4567 84", ""), True),  # written with spaces: the same
        (_payload("1Z999AA10999999999", "12 Elm Street, Boston"), False),  # another number
        (_payload("", "12 Elm St, Boston, MA, 02101"), True),  # no number: same street
        (_payload("", "40 Oak Avenue, Denver"), False),  # no number: another address
        (_payload("", ""), True),  # nothing to compare: argued as before
    ],
)
def test_a_pod_counts_for_the_parcel_its_text_names(payload, argued):
    pod = _pod("UPS Proof of Delivery", "Tracking number: 1Z999AA10123456784",
               "Delivered on 2026-10-06", "Signed by: A. Smith",
               "Delivered to: 12 Elm Street, Boston")  # fmt: skip
    no_number = _pod("Proof of Delivery", "Delivered on 2026-10-06", "Signed by: A. Smith",
                     "Delivered to: 12 Elm Street, Boston")  # fmt: skip
    doc = no_number if not payload["shipping_tracking_numbers"] else pod
    case = build_case(wire_facts(payload), [doc])
    assert case.delivery.delivered is argued
    named = [c for c in case.contradictions if c.name == "proof of delivery for another parcel"]
    assert bool(named) is not argued
    assert all(c.internal for c in named)  # the analyst's, never stated to the reviewer
