"""For any facts, the verdict, the letter, the data sheet and the report page never disagree on
delivery, dates or amounts: they all read one case (evidence/case.py)."""

from __future__ import annotations

import io
import re
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from dispute_evidence.evidence.case import build_case
from dispute_evidence.evidence.completeness import assess_case
from dispute_evidence.evidence.documents import Delivery, DocumentFacts, Quote
from dispute_evidence.evidence.letter import letter_for
from dispute_evidence.evidence.summary_pdf import summary_pdf

DAYS = st.dates(date(2026, 9, 1), date(2026, 10, 31)).map(date.isoformat)
STATUSES = st.sampled_from(["", "Delivered", "In transit", "Non-delivered", "Returned to sender",
                            "Undeliverable", "Delivery attempted", "Out for delivery",
                            "delivered to mailbox", "Exception"])  # fmt: skip
REASONS = st.sampled_from(["product_not_received", "fraudulent", "general", "duplicate",
                           "credit_not_processed", "product_unacceptable"])  # fmt: skip


@st.composite
def shipments(draw: st.DrawFn) -> dict[str, str]:
    row = {"tracking_number": draw(st.sampled_from(["1Z1", "1Z2"])), "carrier": "UPS"}
    for key, value in (("shipped_at", draw(DAYS)), ("delivered_at", draw(DAYS)),
                       ("delivery_status", draw(STATUSES))):  # fmt: skip
        if draw(st.booleans()) and value:
            row[key] = value
    return row


@st.composite
def documents(draw: st.DrawFn) -> list[DocumentFacts]:
    docs = []
    if draw(st.booleans()):
        on = draw(st.none() | st.dates(date(2026, 9, 1), date(2026, 10, 31)))
        signer = draw(st.sampled_from([None, "J. Doe"]))
        fact = Delivery(on, signer, None, Quote("Delivered, signed J. Doe", 1))
        read = draw(st.sampled_from(["text", "not_read"]))
        docs.append(DocumentFacts("pod.pdf", "x", "proof_of_delivery", read,
                                  delivery=fact if read == "text" else None))  # fmt: skip
    return docs


@st.composite
def payloads(draw: st.DrawFn) -> dict[str, object]:
    amount = draw(st.integers(1, 5000))
    extra: dict[str, object] = {
        "order_number": "1001",
        "order_date": draw(DAYS),
        "order_total": amount,
        "order_currency": "USD",
        "shipping_address": "1 Elm St, Boston",
        "dispute": {"reason": draw(REASONS), "amount": amount, "currency": "USD"},
        "shipments": draw(st.lists(shipments(), max_size=2)),
    }
    if draw(st.booleans()):
        extra["refunded_amount"] = draw(st.sampled_from([0, amount]))
    products = [{"product_title": "Board", "price": amount, "quantity": 1, "currency_code": "USD"}]
    return {"products": products, "additional_evidence": extra}


def _dates(text: str) -> set[str]:
    return set(re.findall(r"\d{4}-\d{2}-\d{2}", text))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payloads(), documents())
def test_verdict_letter_sheet_and_page_agree(payload, docs):
    case = build_case(payload, docs)
    verdict = assess_case(case)
    letter = letter_for(case)
    said = " ".join(s.text for s in (*letter.context, *letter.sentences, *letter.timeline))
    delivered = case.delivery.delivered
    # delivery: the verdict, the letter and the page's Delivery column say the same
    if case.reason == "product_not_received":
        assert ("delivery confirmed" not in verdict.missing) == delivered
    claims_delivery = "records the order as delivered" in said or "records the delivery" in said
    if claims_delivery:
        assert delivered
    assert case.delivery.words.startswith("delivered") == delivered
    # dates: every date the letter states is one the case holds, and none it hides
    held = {case.order_date, case.delivery.on, *(s.shipped_on for s in case.shipments),
            *(e.on for e in case.timeline)}  # fmt: skip
    assert _dates(said) <= held
    phrases = {
        "ordered": f"placed on {case.order_date}",
        "delivered": f"delivered on {case.delivery.on}",
    }
    if case.shipments:
        phrases["shipped"] = f"shipped on {case.shipments[0].shipped_on}"
    for c in case.contradictions:
        for what in c.hides:  # a date the timeline puts out of order is stated nowhere
            assert phrases.get(what, "\0") not in said
    # the data sheet (rendered) says what the case says about delivery, and the same amount
    body = summary_pdf("dp_1", payload, docs)
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())
    sheet = text.split("Evidence summary: dispute dp_1")[1]
    if delivered:
        assert case.delivery.words.split(" (")[0] in " ".join(sheet.split())
    else:
        assert "records the order as delivered" not in text
        assert "records the delivery" not in text
    amount = f"{case.dispute.amount:,.2f} USD"
    assert amount in letter.reason_line and amount in sheet
    # never "why the payment stands" above facts for the cardholder
    if case.accept_because:
        assert not letter.argues and not letter.request
