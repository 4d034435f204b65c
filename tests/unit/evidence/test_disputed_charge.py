"""Issue 39, item 11: the limit profile (and the letter's network) follow the disputed charge,
never an order's first attempt, which may be another card that was declined."""

from __future__ import annotations

from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.evidence.limits import PROFILES, profile_for
from dispute_evidence.evidence.payments import disputed_charge
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from tests.unit.evidence.test_pdf_building import payload

DECLINED_VISA = {"payment_id": "ch_a", "card_brand": "Visa", "payment_status": "Failed",
                 "payment_amount": 49.5, "currency": "eur"}  # fmt: skip
PAID_MC = {"payment_id": "ch_b", "card_brand": "MasterCard", "payment_status": "Paid",
           "payment_amount": 49.5, "currency": "eur"}  # fmt: skip


def test_a_declined_visa_attempt_before_the_paid_mastercard_charge_gives_mastercards_profile():
    p = payload(payments=[DECLINED_VISA, PAID_MC])
    assert profile_for(wire_facts(p), "auto", PROFILES).name == "mastercard"
    assert "MasterCard reason code 4853" in build_letter(
        wire_facts(payload(payments=[DECLINED_VISA, PAID_MC],
                dispute={"reason": "product_not_received", "amount": 49.5, "currency": "EUR",
                         "network_reason_code": "4853"})), []).reason_line  # fmt: skip


def test_the_charge_the_export_marks_disputed_wins_and_else_the_one_of_the_disputed_amount():
    earlier = {**PAID_MC, "payment_id": "ch_0", "payment_amount": 20.0}  # paid, another amount
    visa = {**DECLINED_VISA, "payment_status": "Paid", "payment_id": "ch_v"}
    typed = {c["payment_id"]: Charge(**c) for c in (earlier, visa)}
    e, v = typed["ch_0"], typed["ch_v"]
    assert disputed_charge([e, v], 49.5, "EUR") is v  # the disputed amount
    assert disputed_charge([e, v], 49.5, "USD") is e  # no match: first paid
    marked = {**earlier, "dispute_status": "needs_response"}
    m = Charge(**marked)
    assert disputed_charge([v, m], 49.5, "EUR") is m  # the export says so
    assert disputed_charge([Charge(**DECLINED_VISA)], 49.5, "EUR") is None  # took no money
    p = payload(payments=[visa, marked])
    assert profile_for(wire_facts(p), "auto", PROFILES).name == "mastercard"
    assert (
        profile_for(wire_facts(payload(payments=[DECLINED_VISA])), "auto", PROFILES).name
        == "default"
    )
