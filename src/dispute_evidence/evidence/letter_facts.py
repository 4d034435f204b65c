"""The letter's facts: each sentence the rebuttal letter (evidence/letter.py) may say, made only
when its fact is there, and quoted from the document (and page) that proves it. A playbook
(evidence/playbooks.py) names which of these argue its reason, strongest first.

Rules: nothing is asserted that the case (evidence/case_record.py) does not show: "delivered" is the
case's one delivery fact (a proof of delivery is quoted: its date, its signer, its own words),
a check is called passed only when the export says "pass", a date the timeline puts out of
order is not stated. In fraud, who placed the order is what the cardholder denies: the letter
says what was entered at checkout (and observed: IP, device), never who the person was. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from dispute_evidence.documents.facts import OPENING, DocumentFacts
from dispute_evidence.evidence import reason_points as R
from dispute_evidence.evidence.case_contradictions import WORDS
from dispute_evidence.evidence.case_parts import Line
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.ce3 import LABELS
from dispute_evidence.evidence.credit_lead import credit_lead, other_currency_credits
from dispute_evidence.evidence.credits import MAX_CREDITS
from dispute_evidence.evidence.delivery import carrier_delivery, day
from dispute_evidence.evidence.dispute_facts import Charge, ShipmentRow
from dispute_evidence.evidence.exhibits import Exhibit
from dispute_evidence.evidence.letter_head import money as _money
from dispute_evidence.evidence.playbooks import playbook_for
from dispute_evidence.evidence.products import opening
from dispute_evidence.evidence.sentence import Sentence

MAX_ITEMS = 5  # products or files named in one sentence
STATEMENT_CHARS = 4000  # of the merchant's statement on the letter (the payload holds it all)
FILE = "file:"  # a source key naming one document: "file:<its name>"


def _list(items: list[str]) -> str:
    shown = items[:MAX_ITEMS]
    more = f" and {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else ""
    return (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]) + more


def _card(c: Charge) -> str:
    """ " (Visa ending 4242)", or "" unless both are known."""
    return f" ({c.card_brand} ending {c.card_last4})" if c.card_brand and c.card_last4 else ""


def _charge(c: Charge) -> str:
    """ "ch_1 (129.00 USD, 2026-10-02)": a charge as the letter lists it."""
    said = f"{c.payment_id} ({_money(c.payment_amount, c.currency)}, {day(c.paid_at)})"
    return said.replace(", )", ")")


def delivered(shipment: ShipmentRow) -> str | None:
    """The delivery date (or "" when only the status says so), or None when not shown delivered."""
    fact = carrier_delivery(shipment)
    return fact.on if fact.delivered else None


def _page(doc: str, page: int | None, exhibit: Exhibit | None = None) -> str:
    """A document cited: by its exhibit label ("Exhibit A, page 2": the page of it the fact
    stands on, as its stamps number it), or by its name when it has no label."""
    if exhibit is not None:
        return exhibit.cite(page)
    return f"{doc}, page {page}" if page else doc


def _newest_versions(docs: Sequence[DocumentFacts]) -> list[DocumentFacts]:
    """The documents, one per name: of two versions of a store policy a dispute holds (the
    older went before the newer existed), the one that took effect last."""
    newest: dict[str, DocumentFacts] = {}
    for d in docs:
        kept = newest.get(d.name)
        if kept is None or (d.effective or date.min) > (kept.effective or date.min):
            newest[d.name] = d
    return [d for d in docs if newest[d.name] is d]


class Facts:
    """The case's sentences: each made only when its fact is there."""

    def __init__(self, case: CaseFacts, exhibits: Mapping[str, Exhibit]) -> None:
        self.case = case
        self.exhibits = exhibits  # each document's label ({}: cited by name)
        self.argued: set[str] = set()  # documents a sentence quotes (not listed again)
        self.listed: list[str] = []  # the documents the attachments line names, in its order
        self.tied = False  # delivery tied to the verified billing address: said once, there
        self.led = bool(credit_lead(case))  # credited before the dispute: the credit leads

    def order(self) -> list[Sentence]:
        c, out = self.case, []
        total = _money(c.total, c.currency) if c.total is not None else ""
        if c.order_date and not c.hidden("ordered"):
            worth = f" for {total}" if total else ""
            out.append(
                Sentence(f"Order {c.order_number} was placed on {c.order_date}{worth}.", "order")
            )
        if c.lines:
            names = [
                title if n is None else f"{title} × {_qty(n)}" for title, n in _by_product(c.lines)
            ]
            out.append(Sentence(f"It was for: {_list(names)}.", "order"))
        return out

    def customer(self) -> list[Sentence]:
        """Who the order names: as entered at checkout (and observed), never who they were."""
        cu = self.case.customer
        entered = [
            x
            for x in (
                f"the name {cu.name}" if cu.name else "",
                f"the email {cu.email}" if cu.email else "",
            )
            if x
        ]
        if not entered:
            return []
        seen = [
            x
            for x in (
                f"IP address {cu.ip}" if cu.ip else "",
                f"device {cu.device}" if cu.device else "",
            )
            if x
        ]
        text = f"The order was placed with {' and '.join(entered)} as entered at checkout"
        text += f", from {' and '.join(seen)}." if seen else "."
        return [Sentence(text, "order")]

    def card_checks(self) -> list[Sentence]:
        for c in self.case.charges:
            passed = [
                label
                for key, label in (
                    ("avs_line1_check", "the billing street address"),
                    ("avs_zip_check", "the billing postcode"),
                    ("cvc_check", "the card security code (CVC)"),
                )
                if str(getattr(c, key)).lower() == "pass"
            ]
            if passed:
                return [
                    Sentence(
                        f"The card issuer's checks on charge {c.payment_id}{_card(c)} passed for {_list(passed)}.",
                        "payments",
                    )
                ]
        return []

    def same_address(self) -> list[Sentence]:
        cu = self.case.customer
        if self.case.same_address and not self.tied and not address_conceded(self.case):
            return [
                Sentence(
                    "The billing address entered at checkout is the shipping address: "
                    f"{cu.shipping_address}.",
                    "order",
                )
            ]
        return []

    def shipped(self) -> list[Sentence]:
        out = []
        for s in self.case.shipments[:MAX_ITEMS]:
            if not s.shipped_on and not s.tracking_number:
                continue
            show = s.shipped_on and not self.case.hidden("shipped")
            when = f" on {s.shipped_on}" if show else ""
            how = f" with {s.carrier}" if s.carrier else ""
            track = f", tracking number {s.tracking_number}" if s.tracking_number else ""
            out.append(Sentence(f"The order was shipped{when}{how}{track}.", "shipments"))
        if out and self.case.customer.shipping_address and not self.tied:
            out.append(Sentence(f"It was sent to {self.case.customer.shipping_address}.", "order"))
        return out

    def delivery(self) -> list[Sentence]:
        """The case's one delivery fact: a proof of delivery quoted (its date, place, signer
        and words, by its exhibit), our shipment record used only to tie it to the order;
        else our shipment record's delivery, said as ours."""
        d, c = self.case.delivery, self.case
        if not d.delivered:
            return []
        on = f" on {d.on}" if d.on and not c.hidden("delivered") else ""
        if d.source != "files":
            if self.tied:
                return []
            track = f" (tracking number {d.tracking_number})" if d.tracking_number else ""
            parcels = [s for s in c.shipments if s.tracking_number]
            open_ = [s.tracking_number for s in parcels if not s.delivery.delivered]
            if open_ and len(parcels) > 1:  # delivered in part: said as partial, never whole
                return [
                    Sentence(
                        f"Our shipment record shows parcel {d.tracking_number} of this "
                        f"order delivered{on}; {_list(open_)} "
                        f"{'is' if len(open_) == 1 else 'are'} not shown delivered.",
                        "shipments",
                    )
                ]
            return [
                Sentence(f"Our shipment record shows the order delivered{on}{track}.", "shipments")
            ]
        self.argued.add(d.document)
        where = f" to {d.where}" if d.where else ""
        signed = f", signed for by {d.signed_by}" if d.signed_by else ""
        said = f"delivery{on}{where}{signed}" + (f": {quoted(d.quote)}" if d.quote else ".")
        # the shipments sheet's own status beside it (a stale "in transit") is the analyst's to
        # settle (the report names it), never set against the carrier's signed proof here
        out = [
            Sentence(
                f"The proof of delivery ({self.cite(d.document, d.page)}) records the {said}",
                FILE + d.document,
            )
        ]
        return out + self._tied_to_order(d.document)

    def proof_of_delivery(self) -> list[Sentence]:
        """The delivery, only when a document proves it: third-party proof outranks the
        customer's words, which outrank our own shipment record (issue 44, item 5)."""
        return self.delivery() if self.case.delivery.source == "files" else []

    def _tied_to_order(self, document: str) -> list[Sentence]:
        """Our shipment record's one use beside a carrier's proof: the proof's tracking number
        is this order's parcel."""
        doc = next((x for x in self.case.documents if x.name == document), None)
        ours = {s.tracking_number: s for s in self.case.shipments if s.tracking_number}
        named = [t for t in (doc.tracking_numbers if doc else ()) if t in ours]
        if not named:
            return []
        s = ours[named[0]]
        how = f"{s.carrier} " if s.carrier else ""
        return [
            Sentence(
                f"The tracking number it names, {named[0]}, is the {how}parcel our "
                f"shipment record holds for order {self.case.order_number}.",
                "shipments",
            )
        ]

    def policy(self) -> list[Sentence]:
        """Each policy's clause that answers the reason (its playbook's topics, the best
        first: the return window for a late return, the cancellation cutoff for a renewal);
        a clause about something else is never quoted, nor a final-sale rule. Its number is
        kept whole ("clause 4.2"). Of two versions of one document, the newer one's."""
        out = []
        playbook = playbook_for(self.case.dispute.reason)
        for doc in _newest_versions(self.case.documents):
            clauses = doc.policy_clauses
            q = next((clauses[t] for t in playbook.policy_topics if t in clauses), None)
            if q is not None:
                self.argued.add(doc.name)
                number, text = _clause_number(q.text)
                clause = f", clause {number}," if number else ""
                out.append(
                    Sentence(
                        f"Our policy ({self.cite(doc.name, q.page)}){clause} says: {quoted(text)}",
                        FILE + doc.name,
                    )
                )
        return out[:2]

    def as_sold(self) -> list[Sentence]:
        """The product as its listing sold it: the description's opening, quoted."""
        return [
            Sentence(
                f"As sold, the listing of {x.title} described it as: "
                f"{quoted(opening(x.description))}",
                "products",
            )
            for x in self.case.as_sold[:2]
        ]

    def statement(self) -> list[Sentence]:
        """The merchant's statement, a sentence a paragraph, as the merchant wrote it."""
        out, left = [], STATEMENT_CHARS
        if any(c.name == "statement vs records" for c in self.case.contradictions):
            return []  # it says no refund beside a recorded credit: the analyst's to settle
        for part in self.case.statement.split("\n\n"):
            if left <= 0:
                out.append(
                    Sentence(
                        "(The statement continues in the evidence submitted with this response.)",
                        "statement",
                    )
                )
                break
            text = " ".join(part.split())
            if not text:  # no statement, or a blank line between its paragraphs
                continue
            out.append(Sentence(text if len(text) <= left else text[: left - 1] + "…", "statement"))
            left -= len(text)
        return out

    def messages(self) -> list[Sentence]:
        """The customer's words that answer the claim (evidence/stance.py), oldest first; a
        message that concedes the claim, or says nothing to it, is never quoted here."""
        out = []
        for doc, m, st in self.case.stances():
            if st.kind != "supports" or not st.certain:  # uncertain: the analyst's to confirm
                continue
            self.argued.add(doc.name)
            when = f"On {m.on.isoformat()}, " if m.on else ""
            who = m.author or "the customer"
            out.append(
                Sentence(
                    f"{when}{who} wrote ({self.cite(doc.name, m.quote.page)}): "
                    f"{quoted(m.quote.text)}",
                    FILE + doc.name,
                )
            )
        return out[:3]

    def refund(self) -> list[Sentence]:
        """Each credit with its date and reference where the exports give them: a refunds
        log's, else the orders export's refunded amount and the charges that show one."""
        c = self.case
        if self.led:  # the credit before the dispute leads the letter: not said twice
            return []
        if partly_credited(c):  # short of the amount disputed: stated, never a defence (credit)
            return []
        logged = [x for x in c.credits if x.source == "refunds"][:MAX_CREDITS]
        if logged:
            return [
                Sentence(f"A refund of {x.words()} was issued on this order.", "refunds")
                for x in logged
            ]
        out = []
        if c.refunded > 0:
            out.append(
                Sentence(
                    f"A refund of {_money(c.refunded, c.currency)} was issued on this order.",
                    "order",
                )
            )
        for x in c.credits[:1]:  # a charge's refund: its own record dates it
            if x.on or not out:
                when = f" on {x.on}" if x.on else ""
                out.append(
                    Sentence(
                        f"Charge {x.reference} shows {_money(x.amount, x.currency)} refunded{when}.",
                        "payments",
                    )
                )
        return out

    def credit(self) -> list[Sentence]:
        """A partial credit stated as what it is (never a defence), with what stays disputed."""
        c, disputed = self.case, self.case.dispute.amount
        other = other_currency_credits(c)  # stated, never subtracted
        if not partly_credited(c) or disputed is None or self.led:
            return other
        currency, credited = c.dispute.currency or c.currency, c.credit_check.same
        return [
            Sentence(
                f"A credit of {_money(credited, currency)} was already issued on this "
                f"order; this response contests the remaining "
                f"{_money(disputed - credited, currency)}.",
                "order" if c.refunded > 0 else "payments",
            ),
            *other,
        ]

    def distinct_charges(self) -> list[Sentence]:
        """A duplicate claim answered: one charge, or charges that differ (amount or day)."""
        live = self.case.live_charges
        if not live or any(x.name == "charged twice" for x in self.case.contradictions):
            return []
        if self.case.other_purchases or R.paid_in_parts(self):  # said there, side by side
            return []
        parts = [_charge(c) for c in live]
        if len(parts) == 1:
            text = f"One charge was made for this order: {parts[0]}."
        else:
            text = (
                f"{len(parts)} charges were made for this order, each of a different amount "
                f"or day: {_list(parts)}."
            )
        return [Sentence(text, "payments")]

    def delivered_to_verified_address(self) -> list[Sentence]:
        """Fraud's strongest sentence: delivered to the billing address the issuer verified."""
        c = self.case
        if not (c.delivery.delivered and c.same_address and c.customer.shipping_address):
            return []
        if address_conceded(c):
            return []
        for ch in c.charges:
            if ch.avs_line1_check.lower() == "pass":
                on = f" on {c.delivery.on}" if c.delivery.on and not c.hidden("delivered") else ""
                self.tied = c.delivery.source != "files"  # a quoted proof is still quoted
                return [
                    Sentence(
                        f"The order was delivered{on} to {c.customer.shipping_address}, the billing "
                        f"address the card issuer verified for charge {ch.payment_id}"
                        f"{_card(ch)} (address check: pass).",
                        "payments",
                    )
                ]
        return []

    def charge_list(self) -> list[Sentence]:
        if not self.case.charges:
            return []
        parts = [_charge(c) for c in self.case.charges]
        one = "One charge was" if len(parts) == 1 else f"{len(parts)} charges were"
        return [Sentence(f"{one} made for this order: {_list(parts)}.", "payments")]

    def descriptions(self) -> list[Sentence]:
        """The disputed charge's own description, named by its id: never another charge's (a
        subscription's first charge says "renewal 1" under a dispute of renewal 6)."""
        c = self.case.disputed_charge
        if c is None and len(self.case.charges) == 1:
            c = self.case.charges[0]
        if c is None or not c.description:
            return []
        return [Sentence(f"Charge {c.payment_id} was described as: {c.description}.", "payments")]

    def ce3(self) -> list[Sentence]:
        priors = self.case.ce3_priors
        if len(priors) < 2:
            return []
        if self.case.ce3_disputed:  # the table under it shows what each matches on
            told = [f"order {p.order_number} on {p.date}" for p in priors]
            return [
                Sentence(
                    "Visa Compelling Evidence 3.0: the same card paid for earlier orders "
                    f"that were never disputed, {_list(told)}, which match this order "
                    "on the values in the table below.",
                    "history",
                )
            ]
        told = [
            f"order {p.order_number} on {p.date} (matching {_list([LABELS[m] for m in p.matched])})"
            for p in priors
        ]
        return [
            Sentence(
                "Visa Compelling Evidence 3.0: the same card paid for earlier orders that were "
                f"never disputed, {_list(told)}.",
                "history",
            )
        ]

    def cite(self, doc: str, page: int | None) -> str:
        return _page(doc, page, self.exhibits.get(doc))

    def files(self) -> list[Sentence]:
        skip = self.argued | {name for name, _ in self.case.other_parcels}  # never supporting
        # nor a document whose words concede the claim, or wait for the analyst's reading
        skip |= {
            d.name for d, _, st in self.case.stances() if st.kind == "concedes" or st.to_confirm
        }
        names = [d.name for d in self.case.documents if d.name not in skip]
        rank = {name: i for i, name in enumerate(self.exhibits)}  # in their labels' order
        names.sort(key=lambda n: rank.get(n, len(rank)))
        if not names:
            return []
        self.listed = names[:MAX_ITEMS]  # the ones _list names (the others: "and N more")
        said = {d.name: d.extra[OPENING] for d in self.case.documents if d.extra.get(OPENING)}
        rest = [
            f"Exhibit {x.label} ({x.words})" if (x := self.exhibits.get(n)) else n
            for n in names
            if n not in said
        ]
        out = (
            [Sentence(f"Attached as supporting documents: {_list(rest)}.", "files")] if rest else []
        )
        # a document of no known kind is quoted, so the reviewer knows what it shows
        return out + [
            Sentence(f"{_cap(self.cite(n, None))} reads: {quoted(said[n])}", "files")
            for n in names[:MAX_ITEMS]
            if n in said
        ]

    def conceded(self) -> list[Sentence]:
        """What our own records say for the cardholder (never under a heading that argues); the
        customer's own words quoted as the letter cites any document (its exhibit)."""
        out = []
        for c in self.case.contradictions:
            if c.accept and c.name != WORDS:
                out.append(Sentence(_cap(c.fact) + ".", "order"))
        if any(c.accept and c.name == WORDS for c in self.case.contradictions):
            for doc, m, st in self.case.stances():
                if st.kind != "concedes" or not st.certain:
                    continue
                when = f"On {m.on.isoformat()}, " if m.on else ""
                who = m.author or "the customer"
                out.append(
                    Sentence(
                        _cap(
                            f"{when}{who} wrote ({self.cite(doc.name, m.quote.page)}): "
                            f"{quoted(m.quote.text)}"
                        ),
                        FILE + doc.name,
                    )
                )
        return out

    def timeline(self) -> list[Sentence]:
        if len(self.case.timeline) < 2:
            return []
        events, left = R.kept_timeline(self.case.timeline)
        return [
            Sentence(f"{e.on}: {e.what}.", FILE + e.document if e.document else e.source)
            for e in events
        ] + ([Sentence(left, "payments")] if left else [])

    # the reasons' own arguments (evidence/reason_points.py), by the names playbooks give them
    def avs_rule(self) -> list[Sentence]:
        return R.avs_rule(self)

    def renewal(self) -> list[Sentence]:
        return R.renewal(self)

    def no_cancellation(self) -> list[Sentence]:
        return R.no_cancellation(self)

    def use_after_purchase(self) -> list[Sentence]:
        return R.use_after_purchase(self)

    def use_after_cancellation(self) -> list[Sentence]:
        return R.use_after_cancellation(self)

    def two_purchases(self) -> list[Sentence]:
        return R.two_purchases(self)

    def paid_in_parts(self) -> list[Sentence]:
        return R.paid_in_parts(self)

    def statement_answers(self) -> list[Sentence]:
        return R.statement_answers(self)


def address_conceded(case: CaseFacts) -> bool:
    """A failed card check or a freight forwarder (evidence/contradiction.py): the address is
    never argued as a match then."""
    return any(x.name in ("card check failed", "freight forwarder") for x in case.contradictions)


_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,2})+)\.?\s+(?=\S)")


def _clause_number(text: str) -> tuple[str, str]:
    """("4.2", "Returns are accepted …") of a numbered clause; ("", text) of another."""
    m = _NUMBER.match(text)
    return (m[1], text[m.end() :]) if m else ("", text)


def quoted(text: str) -> str:
    """A quote that ends the sentence: its own full stop or question mark ends it too."""
    return f"“{text}”" + ("" if text.rstrip().endswith((".", "!", "?")) else ".")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _by_product(lines: Sequence[Line]) -> list[tuple[str, float | None]]:
    """(title, quantity) per product, in the order first listed: one product on several lines
    (the export lists it once per line item) is said once, its quantities added
    ("Headphones × 6", not "Headphones × 2, Headphones × 3 and Headphones × 1"). A line
    without a quantity is said as it is (None: its title alone, never "× 0")."""
    added: dict[str, float] = {}
    said: list[tuple[str, bool]] = []  # (title, whether it has a quantity)
    for x in lines:
        if x.quantity is None or x.title not in added:
            said.append((x.title, x.quantity is not None))
        if x.quantity is not None:
            added[x.title] = added.get(x.title, 0.0) + x.quantity
    return [(title, added[title] if counted else None) for title, counted in said]


def _qty(q: Any) -> str:
    try:
        f = float(q)
    except (TypeError, ValueError):
        return str(q or "")
    return str(int(f)) if f.is_integer() else f"{f:g}"


def partly_credited(case: CaseFacts) -> bool:
    """A credit short of the disputed amount, in its currency (another currency's credit is
    stated, never subtracted)."""
    disputed, credited = case.dispute.amount, case.credit_check.same
    return disputed is not None and 0 < credited < disputed
