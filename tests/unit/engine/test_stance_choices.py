"""The analyst's stance choices and the API's opening day reach the case (engine/prepare/
stances.py): a choice stands for an uncertain reading; the API's day is used only when the
disputes list gives none, and then a credit before it leads the letter."""

from __future__ import annotations

from datetime import date

from dispute_evidence.documents.facts import DocumentFacts, Message, Quote
from dispute_evidence.engine.prepare.stances import choice_word, to_confirm, with_choices
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.dispute_facts import Charge, Claim, DisputeFacts, OrderFacts, Refund
from dispute_evidence.evidence.letter import letter_for
from dispute_evidence.evidence.stance import message_key

TEXT = "It isn't broken, I just don't like the colour."


def _facts(opened: str = "") -> DisputeFacts:
    return DisputeFacts(
        OrderFacts(
            "1001",
            "2026-09-01",
            "Ann Smith",
            "ann@example.com",
            order_total=129,
            order_currency="USD",
        ),  # fmt: skip
        claim=Claim("product_unacceptable", "USD", 129, "", opened),
        charges=(Charge("ch_1", paid_at="2026-09-01", currency="usd", payment_amount=129),),
        refunds=(Refund(129, "2026-10-03", "re_1", "USD"),),
    )


def _email() -> DocumentFacts:
    said = Message(date(2026, 10, 6), "ann@example.com", Quote(TEXT, 1))
    return DocumentFacts("email.pdf", "e", "communication", "text", 1, messages=(said,))


def test_an_uncertain_reading_waits_until_the_analyst_chooses():
    case = build_case(_facts(), [_email()])
    assert to_confirm(case) == [message_key(TEXT)]
    assert TEXT not in " ".join(s.text for s in letter_for(case).points)
    chosen = build_case(with_choices(_facts(), ((message_key(TEXT), "supports"),)), [_email()])
    assert not to_confirm(chosen)
    assert TEXT in " ".join(s.text for s in letter_for(chosen).points)


def test_the_apis_opening_day_is_used_only_when_the_list_gives_none():
    assert with_choices(_facts("2026-10-20"), (), "2026-10-16").claim.opened_on == "2026-10-20"
    told = with_choices(_facts(), (), "2026-10-16")
    assert told.claim.opened_on == "2026-10-16"
    first = letter_for(build_case(told)).sentences[0].text
    assert first.startswith("The cardholder was already credited 129.00 USD on 2026-10-03")
    assert not letter_for(build_case(_facts())).sentences[:1] or not letter_for(
        build_case(_facts())
    ).sentences[0].text.startswith("The cardholder was already credited")


def test_choice_words():
    assert [choice_word(w) for w in ("supports", "Concedes", "leave-out", "maybe")] == [
        "supports", "concedes", "leave out", None]  # fmt: skip
