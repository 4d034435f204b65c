"""The rebuttal letter: page 1 of the evidence summary. Per reason family, the claim, then each
rebuttal point tied to the record or the document (and page) that proves it, a short timeline
and a request to reverse the dispute; every sentence names its source.

Rules: a sentence is written only when its fact is there; nothing is asserted that the case
(evidence/case_record.py) does not show: "delivered" is the case's one delivery fact (a proof of
delivery is quoted: its date, its signer, its own words), a check is called passed only when
the export says "pass", a date the timeline puts out of order is not stated. In fraud, who
placed the order is what the cardholder denies: the letter says what was entered at checkout
(and observed: IP, device), never who the person was. When our own records concede the claim
(a cancelled, refunded or never-fulfilled order), the letter says so under a plain heading and
says it does not contest the dispute: it never asks for a reversal its records do not support. Deterministic: the same facts give the same sentences. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence import reason_points as R
from dispute_evidence.evidence.case_build import build_case, documents_named
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.ce3_table import ce3_rows
from dispute_evidence.evidence.credit_lead import credit_lead
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.exhibits import Exhibit
from dispute_evidence.evidence.letter_facts import (
    FILE,
    Facts,
    delivered,
    partly_credited,
)
from dispute_evidence.evidence.letter_head import header, reason_line
from dispute_evidence.evidence.letter_head import money as _money
from dispute_evidence.evidence.playbooks import Playbook, playbook_for
from dispute_evidence.evidence.sentence import Sentence
from dispute_evidence.evidence.thesis import thesis

__all__ = [
    "FILE",
    "Letter",
    "Sentence",
    "build_letter",
    "delivered",
    "letter_for",
    "partly_credited",
]

# Source keys: what a sentence rests on. The engine may name the file and row of each.
SOURCE_WORDS = {
    "dispute": "the disputes list",
    "order": "the orders export",
    "payments": "the payments export",
    "shipments": "the shipments sheet",
    "refunds": "the refunds log",
    "history": "the order history (orders and payments exports, every file read so far)",
    "files": "the files attached to this dispute",
    "products": "the products export (the product's listing as sold)",
    "statement": "the merchant's own statement: its words, not a record the exports show",
    R.PURCHASES: "the orders, payments and shipments exports (both orders)",
    R.ACTIVITY: "the access or activity log (the account's logins, downloads and sessions)",
}
SOURCE_TITLES = {
    "dispute": "The dispute",
    "order": "The order",
    "payments": "The payment",
    "shipments": "The shipment",
    "refunds": "The refund",
    "history": "Earlier orders on the card",
    "files": "Attached documents",
    "products": "The product as sold",
    "statement": "The merchant's statement",
    R.PURCHASES: "The two purchases",
    R.ACTIVITY: "The account's use",
}
REQUEST_REST = (
    "For these reasons we ask that the dispute be reversed and the remaining {rest} "
    "of the payment stand (the {amount} disputed, less the {credited} already "
    "credited)."
)
# what a letter whose own records concede the claim says instead of a request (issue 44): it
# never asks for a reversal its facts do not support, even once approved to be sent
NOT_CONTESTED = (
    "We do not contest this dispute: our own records, stated above under “What our "
    "records show”, support the cardholder's claim."
)


@dataclass(frozen=True)
class Letter:
    family: str
    reason_line: str  # the dispute in plain words (what the cardholder says, not our claim)
    reason_source: str
    context: tuple[Sentence, ...]  # the order itself: what is disputed, not an argument
    sentences: tuple[Sentence, ...]  # our claims, each backed by one fact
    timeline: tuple[Sentence, ...] = ()  # the dated facts, oldest first
    conceded: tuple[Sentence, ...] = ()  # what our own records say for the cardholder
    request: str = ""  # the request to reverse ("" when our records concede the claim)
    documents: tuple[str, ...] = ()  # the documents it names, in the order it first names them
    # the disputed transaction identified, (label, value) each, before anything is argued
    header: tuple[tuple[str, str], ...] = ()
    made: tuple[str, ...] = ()  # the arguments that said something ("delivery", "ce3", ...)
    # the merchant's own words, a paragraph each, under their own heading: never a point
    statement: tuple[Sentence, ...] = ()
    # Visa CE 3.0: the disputed order and the two earlier ones side by side (ce3_table.py)
    ce3_table: tuple[tuple[str, ...], ...] = ()
    # the body's first sentence: the claim answered by the decisive proof (evidence/thesis.py)
    thesis: Sentence | None = None
    # a duplicate claim's two purchases side by side (reason_points.purchase_rows)
    purchases: tuple[tuple[str, ...], ...] = ()

    @property
    def points(self) -> tuple[Sentence, ...]:
        """The sentences that argue: a list of attachments is not a claim."""
        return tuple(s for s in self.sentences if s.source != "files")

    @property
    def shown(self) -> tuple[Sentence, ...]:
        """The points printed as bullets: one the thesis already says is not said again (a
        table under it is still shown), unless no other point is left to print."""
        told = [p for p in self.points if said_by(self.thesis, p)]
        if all(p in told and p.source not in TABLED for p in self.points):
            return self.points  # the thesis's fact alone: said again under the heading
        return tuple(p for p in self.points if p not in told)

    @property
    def claims(self) -> bool:
        return bool(self.points)

    @property
    def contests(self) -> bool:
        """Whether the letter contests the dispute (it says so when our records concede)."""
        return self.request != NOT_CONTESTED

    @property
    def argues(self) -> bool:
        """Whether the letter argues for the payment: claims, and nothing our records concede."""
        return self.claims and not self.conceded

    def sources(self) -> list[str]:
        """The source keys, in first-use order (the appendix numbers them so)."""
        keys = [self.reason_source] if self.reason_source else []
        opening = (self.thesis,) if self.thesis else ()
        said = (
            *opening,
            *self.context,
            *self.conceded,
            *self.sentences,
            *self.statement,
            *self.timeline,
        )
        keys += [s.source for s in said]
        return list(dict.fromkeys(keys))


TABLED = ("history", R.PURCHASES)  # the points a table is printed under (letter_pdf.py)
_QUOTE = re.compile("“[^”]+”")


def said_by(thesis: Sentence | None, point: Sentence) -> bool:
    """Whether the thesis already says `point`: its words, its quote, its CE 3.0 finding, or
    every date, number and reference it names, from the same record."""
    if thesis is None:
        return False
    text = point.text.rstrip(".")
    if (text[:1].lower() + text[1:]) in thesis.text:
        return True
    if point.source != thesis.source:
        return False
    quotes = _QUOTE.findall(point.text)
    if point.source == "history" or any(q in thesis.text for q in quotes):
        return True
    # the same record's facts in other words: each date, number and reference it names is in
    # the thesis ("delivered on 2026-10-06 (tracking number 1Z…)")
    named = [w.strip("().,;:") for w in point.text.split() if any(c.isdigit() for c in w)]
    return bool(named) and all(w in thesis.text for w in named)


def _cited(said: Sequence[Sentence], listed: Sequence[str]) -> tuple[str, ...]:
    """The documents named by `said` (sentences in the order the letter prints them), each once,
    where it is first named; the attachments line names `listed`."""
    names: list[str] = []
    for s in said:
        if s.source.startswith(FILE):
            names.append(s.source.removeprefix(FILE))
        elif s.source == "files":
            names += listed
    return tuple(dict.fromkeys(names))


def _request(case: CaseFacts, amount: str, playbook: Playbook, conceded: bool = False) -> str:
    """The request a letter that goes always makes: the whole reversal (a credit before the
    dispute answers it all), else the amount less what was credited in its currency; none for
    a disputed amount of 0 (held: case.py's "nothing disputed"). A letter whose own records
    concede the claim (held as "advice: accept") asks for no reversal: it says it does not
    contest the dispute, unless a credit made before the dispute answers it (it leads)."""
    disputed = case.dispute.amount
    if disputed is not None and abs(disputed) < 0.005:
        return ""
    if conceded and not credit_lead(case):  # a credit before the dispute answers it all
        return NOT_CONTESTED
    if partly_credited(case) and disputed is not None and not credit_lead(case):
        currency, credited = case.dispute.currency or case.currency, case.credit_check.same
        return REQUEST_REST.format(
            rest=_money(disputed - credited, currency),
            amount=amount,
            credited=_money(credited, currency),
        )
    return playbook.request.format(amount=amount or "disputed")


def build_letter(facts: DisputeFacts, attached: Sequence[str | DocumentFacts]) -> Letter:
    """The letter for one dispute's facts and the files attached to it (their names, or what
    was read from them)."""
    return letter_for(build_case(facts, documents_named(attached)))


def letter_for(case: CaseFacts, exhibits: Mapping[str, Exhibit] | None = None) -> Letter:
    """The letter for one case (evidence/case_record.py); `exhibits`: each document's label, by which
    the letter cites it (evidence/exhibits.py; none: by its name)."""
    facts = Facts(case, exhibits or {})
    reason = case.dispute.reason
    playbook = playbook_for(reason)
    family = playbook.family
    code = case.dispute.network_reason_code
    charge = case.disputed_charge
    brand = charge.card_brand if charge else ""  # never a declined attempt's
    # first: what it quotes is argued, not listed again; the claim alone when records concede
    opening = thesis(facts, argues=not facts.conceded())
    sentences: list[Sentence] = []
    made: list[str] = []  # what wins (standing/win_rates.py) counts the arguments a letter used
    lead = credit_lead(case)  # a credit made before the dispute opened answers any reason
    sentences += lead
    made += ["credit_before_dispute"] if lead else []
    for name in playbook.decisive:  # the playbook's arguments, strongest first
        said = [s for s in getattr(facts, name)() if s not in sentences]
        made += [name] if said else []
        sentences += said
    conceded = facts.conceded()
    has_dispute = bool(case.dispute.reason or case.dispute.amount is not None or code)
    source = "dispute" if has_dispute else ""
    amount = _money(case.dispute.amount, case.dispute.currency)
    argued = any(s.source != "files" for s in sentences)
    # a partial credit is stated as what it is, with what stays disputed (never a point: it is
    # no reason the whole payment stands); credit not processed argues a whole credit itself
    credit = facts.credit()
    # a letter that argues or concedes always ends on what it asks (issue 44 item 1): the
    # reversal it argues, or, when our records concede, that it does not contest (never a
    # reversal under them); one that claims nothing is held (engine/review/approval.py:
    # NO_CLAIM_HELD) and asks for nothing
    request = _request(case, amount, playbook, bool(conceded)) if argued or conceded else ""
    timeline = tuple(facts.timeline()) if sentences else ()
    points = [s for s in sentences if s.source != "files"]  # printed before the attachments
    rest = [s for s in sentences if s.source == "files"]
    return Letter(
        family,
        reason_line(reason, code, brand, amount),
        source,
        tuple([*facts.order(), *credit]),
        tuple(sentences),
        timeline,
        tuple(conceded),
        request.replace("payment of disputed", "disputed payment"),
        _cited(
            [opening, *conceded, *timeline]
            if request == NOT_CONTESTED  # our side is not printed: its documents are not named
            else [opening, *conceded, *points, *rest, *timeline],
            facts.listed,
        ),
        header(case, code),
        tuple(made),
        tuple(facts.statement()),
        ce3_rows(case.ce3_disputed, case.ce3_priors) if "ce3" in made else (),
        opening,
        R.purchase_rows(case) if "two_purchases" in made else (),
    )
