"""For generated cases (issue 36): no fact whose stance concedes the claim is argued, the amount
asked is the disputed amount less what was credited, and a case our records concede asks for
nothing; every exhibit the letter cites is in the packet with that label (its pages stamped
so, its cited page there). Built on test_case_property's generators, with customer messages of
every stance."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import date
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from dispute_evidence.documents.facts import DocumentFacts, Message, Quote
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.credit_lead import credit_lead
from dispute_evidence.evidence.letter import (
    NOT_CONTESTED,
    build_letter,
    letter_for,
    partly_credited,
)
from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, Packet, build_packet
from dispute_evidence.evidence.summary_pdf import summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from support.docfixtures import pdf_of
from tests.support.examples import examples
from tests.unit.evidence.test_case_property import documents, payloads

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


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    # a letter that goes always asks (issue 44 item 1), once a person approves fighting too; one
    # whose records concede says it does not contest: never a reversal under them
    if letter.claims or letter.conceded:
        assert letter.request or case.dispute.amount == 0, letter
    if not letter.request:
        return
    if letter.conceded and not credit_lead(case):  # a credit before the dispute leads
        assert letter.request == NOT_CONTESTED, letter.request
        return
    disputed, credited = case.dispute.amount, case.credit_check.same
    if disputed is None:
        assert "disputed payment" in letter.request
        return
    assert partly_credited(case) == (0 < credited < disputed)
    if partly_credited(case):
        asked = letter.request.split("the remaining ")[1]
        assert abs(_amount(asked) - round(disputed - credited, 2)) < 0.006, letter.request
    else:
        asked = letter.request.split("the payment of ")[1]
        assert abs(_amount(asked) - disputed) < 0.006, letter.request


# -- every exhibit the letter cites is in the packet, with that label --------------------------
RECEIPT = DocumentFacts("1001 receipt.pdf", "r", "receipt", "not_read", 2)
_CITED = re.compile(r"Exhibit ([A-Z]{1,2})(?:, page (\d+))?(?: \(([a-z ]+)\))?")


def _packet_pages(payload: dict[str, Any], docs: list[DocumentFacts]) -> tuple[Packet, list[str]]:
    """The packet as the engine makes it (engine/prepare/pdf_versions.py): the letter's
    documents in the order it names them, each a PDF whose every page says "DOC <its name> page
    <n>"."""
    placed = [Document(d.name, "application/pdf", pdf_of(d.pages or 1, f"DOC {d.name}"), d.kind)
              for d in docs]  # fmt: skip
    packet = build_packet(
        lambda pages: summary_pdf("dp_1", wire_facts(payload), docs, pages=pages),
        placed,
        PROFILES["visa"],
        cited=build_letter(wire_facts(payload), docs).documents,
        api_max_bytes=None,
    )
    pages = [" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(packet.body)).pages]  # fmt: skip
    return packet, pages


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payloads(), documents(), messages(), st.integers(1, 3), st.booleans())
def test_every_exhibit_the_letter_cites_is_in_the_packet_with_that_label(
    drawn, pods, said, pod_pages, receipt
):
    payload, _row = drawn
    docs = [*(replace(d, pages=pod_pages) for d in pods), *said, *([RECEIPT] if receipt else [])]
    packet, pages = _packet_pages(payload, docs)
    front = [p for p in pages if "Response to the dispute — page" in p]
    letter = " ".join(front).split("Evidence summary", 1)[0]  # the letter, before the data sheet
    by_label = {x.label: x for x in packet.exhibits.values()}
    for m in _CITED.finditer(letter):
        label, page, words = m[1], int(m[2]) if m[2] else 1, m[3]
        assert label in by_label, (m[0], sorted(by_label), letter)
        exhibit = by_label[label]
        stamped = [
            i for i, p in enumerate(pages) if f"Exhibit {label} — {exhibit.words} — page" in p
        ]
        # its pages, and only its, carry its label, from where the packet says it starts
        assert stamped and stamped[0] + 1 == packet.starts[exhibit.name], (label, stamped)
        assert all(f"DOC {exhibit.name} page" in pages[i] for i in stamped), label
        assert len(stamped) == (exhibit.pages or 1), (label, stamped)
        assert (
            page <= len(stamped) and f"DOC {exhibit.name} page {page}" in pages[stamped[page - 1]]
        )
        assert words is None or words == exhibit.words, (m[0], exhibit)
    # each document the letter names is cited by the label the packet gave it
    cited = {c[0] for c in _CITED.findall(letter)}
    letter = build_letter(wire_facts(payload), docs)
    assert {packet.exhibits[n].label for n in letter.documents} <= cited
