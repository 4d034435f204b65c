"""For generated cases (issue 36): no fact whose stance concedes the claim is argued, the amount
asked is the disputed amount less what was credited, and a case our records concede asks for
nothing. Built on test_case_property's generators, with customer messages of every stance."""

from __future__ import annotations

import re
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispute_evidence.documents.facts import DocumentFacts, Message, Quote
from dispute_evidence.evidence.case import build_case
from dispute_evidence.evidence.letter import letter_for, partly_credited
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from tests.evidence.test_case_property import documents, payloads

MESSAGES = [
    "The deck arrived cracked down the middle. I want my money back.",
    "I sent the deck back on October 10. When will I get my refund?",
    "Please cancel my subscription before the next box.",
    "It never arrived, where is my order?",
    "I did not order this, someone used my card.",
    "Thanks, the deck came yesterday.",
    "The board is fine, I just changed my mind.",
    "Can I swap it for the blue one?",
]


@st.composite
def messages(draw: st.DrawFn) -> list[DocumentFacts]:
    said = draw(st.lists(st.sampled_from(MESSAGES), max_size=3, unique=True))
    days = [draw(st.dates(date(2026, 8, 20), date(2026, 9, 25))) for _ in said]
    return [DocumentFacts("email.pdf", "m", "communication", "text", 1, messages=tuple(
        Message(on, "ann@example.com", Quote(text, 1)) for on, text in zip(days, said, strict=True)))
    ] if said else []  # fmt: skip


def _amount(text: str) -> float:
    return float(re.sub(r"[^\d.]", "", text.split()[0]))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(payloads(), documents(), messages(), st.sampled_from([None, 0.3, 0.6]))
def test_nothing_conceded_is_argued_and_the_amount_asked_is_what_was_not_credited(
    drawn, pods, said, charge_refund
):
    payload, _row = drawn
    extra = payload["additional_evidence"]
    if charge_refund is not None and "refunded_amount" not in extra:  # a charge's own refund
        extra["payments"] = [{"payment_id": "ch_1", "payment_amount": extra["order_total"],
                              "amount_refunded": round(extra["order_total"] * charge_refund, 2),
                              "currency": extra["order_currency"].lower(),
                              "paid_at": "2026-09-01", "payment_status": "Paid"}]  # fmt: skip
    case = build_case(wire_facts(payload), [*pods, *said])
    letter = letter_for(case)
    conceding = [m.quote.text for _d, m, st_ in case.stances() if st_.kind == "concedes"]
    argued = " ".join(s.text for s in letter.points)
    for text in conceding:
        assert text not in argued, (text, argued)
    if case.accept_because:  # our own records concede: nothing asked, nothing "stands"
        assert not letter.request
    if not letter.request:
        return
    disputed, credited = case.dispute.amount, case.credited
    if disputed is None:
        assert "disputed payment" in letter.request
        return
    same = not (case.dispute.currency and case.currency) or (
        case.dispute.currency.upper() == case.currency.upper()
    )
    assert partly_credited(case) == (same and 0 < credited < disputed)
    if partly_credited(case):
        asked = letter.request.split("the remaining ")[1]
        assert abs(_amount(asked) - round(disputed - credited, 2)) < 0.006, letter.request
    else:
        asked = letter.request.split("the payment of ")[1]
        assert abs(_amount(asked) - disputed) < 0.006, letter.request
