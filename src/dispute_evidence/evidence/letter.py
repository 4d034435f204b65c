"""The rebuttal letter: page 1 of the evidence summary. Per reason family, the claim, then each
rebuttal point tied to the record or the document (and page) that proves it, a short timeline
and a request to reverse the dispute; every sentence names its source.

Rules: a sentence is written only when its fact is there; nothing is asserted that the case
(evidence/case.py) does not show: "delivered" is the case's one delivery fact (a proof of
delivery is quoted: its date, its signer, its own words), a check is called passed only when
the export says "pass", a date the timeline puts out of order is not stated. In fraud, who
placed the order is what the cardholder denies: the letter says what was entered at checkout
(and observed: IP, device), never who the person was. When our own records concede the claim
(a cancelled, refunded or never-fulfilled order), the letter says so under a plain heading and
asks for nothing. Deterministic: the same facts give the same sentences. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.policytext import CANCELLATION, DEFECT, REFUND, SHIPPING
from dispute_evidence.evidence import reason_points as R
from dispute_evidence.evidence.case import WORDS, CaseFacts, Line, build_case, documents_named
from dispute_evidence.evidence.ce3 import LABELS
from dispute_evidence.evidence.ce3_table import ce3_rows
from dispute_evidence.evidence.credits import MAX_CREDITS
from dispute_evidence.evidence.delivery import carrier_delivery, day
from dispute_evidence.evidence.exhibits import Exhibit
from dispute_evidence.evidence.facts import Charge, DisputeFacts, ShipmentRow
from dispute_evidence.evidence.letter_head import header, reason_line
from dispute_evidence.evidence.letter_head import money as _money
from dispute_evidence.evidence.products import opening
from dispute_evidence.evidence.sentence import Sentence
from dispute_evidence.evidence.stance import FAMILIES, family_of

__all__ = ["FAMILIES", "Letter", "Sentence", "build_letter", "family_of", "letter_for"]

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
MAX_ITEMS = 5  # products or files named in one sentence
STATEMENT_CHARS = 4000  # of the merchant's statement on the letter (the payload holds it all)
FILE = "file:"  # a source key naming one document: "file:<its name>"
REQUEST = ("For these reasons we ask that the dispute be reversed and the payment of "
           "{amount} stand.")  # fmt: skip
REQUEST_REST = ("For these reasons we ask that the dispute be reversed and the remaining {rest} "
                "of the payment stand (the {amount} disputed, less the {credited} already "
                "credited).")  # fmt: skip


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
    # a duplicate claim's two purchases side by side (reason_points.purchase_rows)
    purchases: tuple[tuple[str, ...], ...] = ()

    @property
    def points(self) -> tuple[Sentence, ...]:
        """The sentences that argue: a list of attachments is not a claim."""
        return tuple(s for s in self.sentences if s.source != "files")

    @property
    def claims(self) -> bool:
        return bool(self.points)

    @property
    def argues(self) -> bool:
        """Whether the letter argues for the payment: claims, and nothing our records concede."""
        return self.claims and not self.conceded

    def sources(self) -> list[str]:
        """The source keys, in first-use order (the appendix numbers them so)."""
        keys = [self.reason_source] if self.reason_source else []
        said = (*self.context, *self.conceded, *self.sentences, *self.statement, *self.timeline)
        keys += [s.source for s in said]
        return list(dict.fromkeys(keys))


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


# Per family: the policy topics that answer it (documents/policytext.py), the best first; any
# other family quotes a policy's general clause.
POLICY_TOPICS: dict[str, tuple[str, ...]] = {
    "not_as_described": (DEFECT, REFUND),
    "credit_not_processed": (REFUND, CANCELLATION),
    "subscription_canceled": (CANCELLATION, REFUND),
    "not_received": (SHIPPING,),
}


def _newest_versions(docs: Sequence[DocumentFacts]) -> list[DocumentFacts]:
    """The documents, one per name: of two versions of a store policy a dispute holds (the
    older went before the newer existed), the one that took effect last."""
    newest: dict[str, DocumentFacts] = {}
    for d in docs:
        kept = newest.get(d.name)
        if kept is None or (d.effective or date.min) > (kept.effective or date.min):
            newest[d.name] = d
    return [d for d in docs if newest[d.name] is d]


class _Facts:
    """The case's sentences: each made only when its fact is there."""

    def __init__(self, case: CaseFacts, exhibits: Mapping[str, Exhibit]) -> None:
        self.case = case
        self.exhibits = exhibits  # each document's label ({}: cited by name)
        self.argued: set[str] = set()  # documents a sentence quotes (not listed again)
        self.listed: list[str] = []  # the documents the attachments line names, in its order
        self.tied = False  # delivery tied to the verified billing address: said once, there

    def order(self) -> list[Sentence]:
        c, out = self.case, []
        total = _money(c.total, c.currency) if c.total is not None else ""
        if c.order_date and not c.hidden("ordered"):
            worth = f" for {total}" if total else ""
            out.append(
                Sentence(f"Order {c.order_number} was placed on {c.order_date}{worth}.", "order")
            )
        if c.lines:
            names = [title if n is None else f"{title} × {_qty(n)}"
                     for title, n in _by_product(c.lines)]  # fmt: skip
            out.append(Sentence(f"It was for: {_list(names)}.", "order"))
        return out  # fmt: skip

    def customer(self) -> list[Sentence]:
        """Who the order names: as entered at checkout (and observed), never who they were."""
        cu = self.case.customer
        entered = [x for x in (f"the name {cu.name}" if cu.name else "",
                               f"the email {cu.email}" if cu.email else "") if x]  # fmt: skip
        if not entered:
            return []
        seen = [x for x in (f"IP address {cu.ip}" if cu.ip else "",
                            f"device {cu.device}" if cu.device else "") if x]  # fmt: skip
        text = f"The order was placed with {' and '.join(entered)} as entered at checkout"
        text += f", from {' and '.join(seen)}." if seen else "."
        return [Sentence(text, "order")]

    def card_checks(self) -> list[Sentence]:
        for c in self.case.charges:
            passed = [label for key, label in (("avs_line1_check", "the billing street address"),
                      ("avs_zip_check", "the billing postcode"), ("cvc_check", "the card security code (CVC)"))
                      if str(getattr(c, key)).lower() == "pass"]  # fmt: skip
            if passed:
                return [Sentence(f"The card issuer's checks on charge {c.payment_id}{_card(c)} passed for {_list(passed)}.", "payments")]  # fmt: skip
        return []

    def same_address(self) -> list[Sentence]:
        cu = self.case.customer
        if self.case.same_address and not self.tied and not _address_conceded(self.case):
            return [Sentence("The billing address entered at checkout is the shipping address: "
                             f"{cu.shipping_address}.", "order")]  # fmt: skip
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
        """The case's one delivery fact, quoted from its document when a document proves it."""
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
                return [Sentence(f"The carrier records parcel {d.tracking_number} of this order "
                                 f"as delivered{on}; {_list(open_)} "
                                 f"{'is' if len(open_) == 1 else 'are'} not shown delivered.",
                                 "shipments")]  # fmt: skip
            return [
                Sentence(f"The carrier records the order as delivered{on}{track}.", "shipments")
            ]
        self.argued.add(d.document)
        where = f" to {d.where}" if d.where else ""
        signed = f", signed for by {d.signed_by}" if d.signed_by else ""
        said = f"delivery{on}{where}{signed}" + (f": {_quoted(d.quote)}" if d.quote else ".")
        # the shipments sheet's own status beside it (a stale "in transit") is the analyst's to
        # settle (the report names it), never set against the carrier's signed proof here
        return [Sentence(f"The proof of delivery ({self._cite(d.document, d.page)}) records the "
                         f"{said}", FILE + d.document)]  # fmt: skip

    def policy(self) -> list[Sentence]:
        """Each policy's clause that answers the reason (a defect clause for "not as
        described", the cancellation cutoff for a subscription); of two versions of one
        document, the newer one's."""
        out = []
        topics = POLICY_TOPICS.get(family_of(self.case.dispute.reason), ())
        for doc in _newest_versions(self.case.documents):
            q = next((doc.policy_clauses[t] for t in topics if t in doc.policy_clauses), None)
            if q := q or doc.policy_clause:
                self.argued.add(doc.name)
                out.append(Sentence(f"Our policy ({self._cite(doc.name, q.page)}) says: {_quoted(q.text)}",
                                    FILE + doc.name))  # fmt: skip
        return out[:2]

    def as_sold(self) -> list[Sentence]:
        """The product as its listing sold it: the description's opening, quoted."""
        return [Sentence(f"As sold, the listing of {x.title} described it as: "
                         f"{_quoted(opening(x.description))}", "products")
                for x in self.case.as_sold[:2]]  # fmt: skip

    def statement(self) -> list[Sentence]:
        """The merchant's statement, a sentence a paragraph, as the merchant wrote it."""
        out, left = [], STATEMENT_CHARS
        for part in self.case.statement.split("\n\n"):
            if left <= 0:
                out.append(Sentence("(The statement continues in the evidence submitted with "
                                    "this response.)", "statement"))  # fmt: skip
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
            if st.kind != "supports":
                continue
            self.argued.add(doc.name)
            when = f"On {m.on.isoformat()}, " if m.on else ""
            who = m.author or "the customer"
            out.append(Sentence(f"{when}{who} wrote ({self._cite(doc.name, m.quote.page)}): "
                                f"{_quoted(m.quote.text)}", FILE + doc.name))  # fmt: skip
        return out[:3]

    def refund(self) -> list[Sentence]:
        """Each credit with its date and reference where the exports give them: a refunds
        log's, else the orders export's refunded amount and the charges that show one."""
        c = self.case
        logged = [x for x in c.credits if x.source == "refunds"][:MAX_CREDITS]
        if logged:
            return [Sentence(f"A refund of {x.words()} was issued on this order.", "refunds") for x in logged]  # fmt: skip
        out = []
        if c.refunded > 0:
            out.append(Sentence(f"A refund of {_money(c.refunded, c.currency)} was issued on this order.", "order"))  # fmt: skip
        for x in c.credits[:1]:  # a charge's refund: its own record dates it
            if x.on or not out:
                when = f" on {x.on}" if x.on else ""
                out.append(Sentence(f"Charge {x.reference} shows {_money(x.amount, x.currency)} refunded{when}.", "payments"))  # fmt: skip
        return out

    def credit(self) -> list[Sentence]:
        """A partial credit stated as what it is (never a defence), with what stays disputed."""
        c, disputed = self.case, self.case.dispute.amount
        if not partly_credited(c) or disputed is None:
            return []
        currency = c.dispute.currency or c.currency
        return [Sentence(f"A credit of {_money(c.credited, currency)} was already issued on this "
                         f"order; this response contests the remaining "
                         f"{_money(disputed - c.credited, currency)}.",
                         "order" if c.refunded > 0 else "payments")]  # fmt: skip

    def distinct_charges(self) -> list[Sentence]:
        """A duplicate claim answered: one charge, or charges that differ (amount or day)."""
        live = self.case.live_charges
        if not live or any(x.name == "charged twice" for x in self.case.contradictions):
            return []
        if self.case.other_purchases or R.paid_in_parts(self):  # said there, side by side
            return []
        parts = [_charge(c) for c in live]
        if len(parts) == 1:
            text = f"Our payments export shows one charge for this order: {parts[0]}."
        else:
            text = (f"Our payments export shows {len(parts)} charges for this order, each of a "
                    f"different amount or day: {_list(parts)}.")  # fmt: skip
        return [Sentence(text, "payments")]

    def delivered_to_verified_address(self) -> list[Sentence]:
        """Fraud's strongest sentence: delivered to the billing address the issuer verified."""
        c = self.case
        if not (c.delivery.delivered and c.same_address and c.customer.shipping_address):
            return []
        if _address_conceded(c):
            return []
        for ch in c.charges:
            if ch.avs_line1_check.lower() == "pass":
                on = f" on {c.delivery.on}" if c.delivery.on and not c.hidden("delivered") else ""
                self.tied = c.delivery.source != "files"  # a quoted proof is still quoted
                return [Sentence(
                    f"The order was delivered{on} to {c.customer.shipping_address}, the billing "
                    f"address the card issuer verified for charge {ch.payment_id}"
                    f"{_card(ch)} (address check: pass).", "payments")]  # fmt: skip
        return []

    def charge_list(self) -> list[Sentence]:
        if not self.case.charges:
            return []
        parts = [_charge(c) for c in self.case.charges]
        one = "one charge" if len(parts) == 1 else f"{len(parts)} charges"
        return [
            Sentence(f"Our payments export shows {one} for this order: {_list(parts)}.", "payments")
        ]

    def descriptions(self) -> list[Sentence]:
        for c in self.case.charges:
            if c.description:
                return [Sentence(f"The charge was described as: {c.description}.", "payments")]
        return []

    def ce3(self) -> list[Sentence]:
        priors = self.case.ce3_priors
        if len(priors) < 2:
            return []
        if self.case.ce3_disputed:  # the table under it shows what each matches on
            told = [f"order {p.order_number} on {p.date}" for p in priors]
            return [Sentence("Visa Compelling Evidence 3.0: the same card paid for earlier orders "
                             f"that were never disputed, {_list(told)}, which match this order "
                             "on the values in the table below.", "history")]  # fmt: skip
        told = [
            f"order {p.order_number} on {p.date} (matching {_list([LABELS[m] for m in p.matched])})"
            for p in priors
        ]
        return [Sentence("Visa Compelling Evidence 3.0: the same card paid for earlier orders that were "
                         f"never disputed, {_list(told)}.", "history")]  # fmt: skip

    def _cite(self, doc: str, page: int | None) -> str:
        return _page(doc, page, self.exhibits.get(doc))

    cite = _cite  # reason_points' sentences cite documents as the letter does

    def files(self) -> list[Sentence]:
        skip = self.argued | {name for name, _ in self.case.other_parcels}  # never supporting
        names = [d.name for d in self.case.documents if d.name not in skip]
        rank = {name: i for i, name in enumerate(self.exhibits)}  # in their labels' order
        names.sort(key=lambda n: rank.get(n, len(rank)))
        if not names:
            return []
        self.listed = names[:MAX_ITEMS]  # the ones _list names (the others: "and N more")
        rest = [f"Exhibit {x.label} ({x.words})" if (x := self.exhibits.get(n)) else n
                for n in names]  # fmt: skip
        return [Sentence(f"Attached as supporting documents: {_list(rest)}.", "files")]

    def conceded(self) -> list[Sentence]:
        """What our own records say for the cardholder (never under a heading that argues); the
        customer's own words quoted as the letter cites any document (its exhibit)."""
        out = []
        for c in self.case.contradictions:
            if c.accept and c.name != WORDS:
                out.append(Sentence(_cap(c.fact) + ".", "order"))
        if any(c.accept and c.name == WORDS for c in self.case.contradictions):
            for doc, m, st in self.case.stances():
                if st.kind != "concedes":
                    continue
                when = f"On {m.on.isoformat()}, " if m.on else ""
                who = m.author or "the customer"
                out.append(Sentence(_cap(f"{when}{who} wrote ({self._cite(doc.name, m.quote.page)}): "
                                         f"{_quoted(m.quote.text)}"), FILE + doc.name))  # fmt: skip
        return out

    def timeline(self) -> list[Sentence]:
        if len(self.case.timeline) < 2:
            return []
        events, left = R.kept_timeline(self.case.timeline)
        return [Sentence(f"{e.on}: {e.what}.", FILE + e.document if e.document else e.source)
                for e in events] + ([Sentence(left, "payments")] if left else [])  # fmt: skip


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


def _quoted(text: str) -> str:
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


# Per family: which facts argue the case, in the order a reviewer reads them.
_ARGUMENTS: dict[str, tuple[Callable[[_Facts], list[Sentence]], ...]] = {
    "fraud": (R.avs_rule, _Facts.messages, _Facts.delivered_to_verified_address, _Facts.ce3,
              _Facts.card_checks, _Facts.same_address, _Facts.customer, R.use_after_purchase,
              _Facts.shipped, _Facts.delivery, _Facts.files),
    "not_received": (_Facts.messages, _Facts.delivery, _Facts.shipped, R.use_after_purchase,
                     _Facts.files),
    "not_as_described": (_Facts.messages, _Facts.as_sold, _Facts.policy, _Facts.delivery,
                         _Facts.files),
    "credit_not_processed": (_Facts.refund, _Facts.messages, _Facts.policy, _Facts.delivery,
                             _Facts.files),
    "subscription_canceled": (R.renewal, R.no_cancellation, R.use_after_cancellation,
                              _Facts.messages, _Facts.policy, R.use_after_purchase,
                              _Facts.descriptions, _Facts.customer, _Facts.files),
    "duplicate": (R.two_purchases, R.paid_in_parts, _Facts.distinct_charges,
                  R.statement_answers, _Facts.files),
    "general": (_Facts.messages, _Facts.delivery, _Facts.shipped, R.use_after_purchase,
                _Facts.customer, _Facts.policy, _Facts.files),
}  # fmt: skip


def _address_conceded(case: CaseFacts) -> bool:
    """A failed card check or a freight forwarder (evidence/contradiction.py): the address is
    never argued as a match then."""
    return any(x.name in ("card check failed", "freight forwarder") for x in case.contradictions)


def partly_credited(case: CaseFacts) -> bool:
    """A credit short of the disputed amount, in its currency (another currency's credit is
    stated, never subtracted)."""
    disputed, credited = case.dispute.amount, case.credited
    same = not (case.dispute.currency and case.currency) or (
        case.dispute.currency.upper() == case.currency.upper()
    )
    return disputed is not None and same and 0 < credited < disputed


def build_letter(facts: DisputeFacts, attached: Sequence[str | DocumentFacts]) -> Letter:
    """The letter for one dispute's facts and the files attached to it (their names, or what
    was read from them)."""
    return letter_for(build_case(facts, documents_named(attached)))


def letter_for(case: CaseFacts, exhibits: Mapping[str, Exhibit] | None = None) -> Letter:
    """The letter for one case (evidence/case.py); `exhibits`: each document's label, by which
    the letter cites it (evidence/exhibits.py; none: by its name)."""
    facts = _Facts(case, exhibits or {})
    reason = case.dispute.reason
    family = family_of(reason)
    code = case.dispute.network_reason_code
    charge = case.disputed_charge
    brand = charge.card_brand if charge else ""  # never a declined attempt's
    sentences: list[Sentence] = []
    made: list[str] = []  # what wins (evidence/wins.py) counts the arguments a letter used
    for make in _ARGUMENTS[family]:
        said = [s for s in make(facts) if s not in sentences]
        made += [make.__name__] if said else []
        sentences += said
    conceded = facts.conceded()
    has_dispute = bool(case.dispute.reason or case.dispute.amount is not None or code)
    source = "dispute" if has_dispute else ""
    amount = _money(case.dispute.amount, case.dispute.currency)
    argued = any(s.source != "files" for s in sentences)
    # credit not processed argues the credit itself (a point): not said twice
    credit = facts.credit() if family != "credit_not_processed" else []
    request = REQUEST.format(amount=amount or "disputed") if argued and not conceded else ""
    if request and partly_credited(case) and case.dispute.amount is not None:  # the rest only
        currency = case.dispute.currency or case.currency
        request = REQUEST_REST.format(
            rest=_money(case.dispute.amount - case.credited, currency),
            amount=amount,
            credited=_money(case.credited, currency),
        )
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
        _cited([*conceded, *points, *rest, *timeline], facts.listed),
        header(case, code),
        tuple(made),
        tuple(facts.statement()),
        ce3_rows(case.ce3_disputed, case.ce3_priors) if "ce3" in made else (),
        R.purchase_rows(case) if "two_purchases" in made else (),
    )
