"""The case of one dispute: every fact the verdict, the letter, the data sheet, the advice and
the report read, built once from the payload we send and the documents attached to it.

One delivery fact per case (`CaseFacts.delivery`): a proof of delivery read from a document
wins (signed proof over the carrier's row, and both are stated when they disagree); else a
carrier row that says delivered; else a document or carrier row that says it was not
(returned, failed, non-delivered); else unknown. A proof whose text names another parcel (a
tracking number, or else a street address, that is not this dispute's shipment's) is no
evidence for this dispute: it is named as a contradiction and never argued. Everything that says "delivered" reads it, so the verdict, the
letter and the data sheet cannot disagree.

Consistency checks are named contradictions (`Contradiction`), each with what to do: the
timeline out of order, the carrier against a document, the order's own status against the
claim. Addresses are compared as places (evidence/places.py). Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import DocumentFacts, Message
from dispute_evidence.evidence.case_checks import (
    IN_PART,
    money_against_words,
    other_unsure,
    statement_against_concession,
    to_confirm,
)
from dispute_evidence.evidence.case_parts import Contradiction as Contradiction
from dispute_evidence.evidence.case_parts import Customer as Customer
from dispute_evidence.evidence.case_parts import Event as Event
from dispute_evidence.evidence.case_parts import Line as Line
from dispute_evidence.evidence.case_timeline import case_timeline
from dispute_evidence.evidence.ce3 import Prior
from dispute_evidence.evidence.contradiction import fraud_concessions
from dispute_evidence.evidence.credits import (
    CENT,
    Credit,
    CreditCheck,
    credit_check,
    credits_of,
    currency_of_order,
    logged_total,
)
from dispute_evidence.evidence.delivery import (
    DeliveryFact,
    Shipment,
    day,
    in_part,
    one_delivery,
    other_parcel,
    shipments_of,
)
from dispute_evidence.evidence.facts import Activity, Charge, DisputeFacts, Purchase
from dispute_evidence.evidence.payments import disputed_charge
from dispute_evidence.evidence.places import same_place
from dispute_evidence.evidence.playbooks import (
    CREDIT_NOT_PROCESSED,
    DUPLICATE,
    NOT_RECEIVED,
    family_of,
    playbook_for,
)
from dispute_evidence.evidence.products import Listing
from dispute_evidence.evidence.reason_checks import split_payment
from dispute_evidence.evidence.stance import (
    CHOICES,
    Author,
    Stance,
    merchant_names,
    message_key,
    message_stance,
)
from dispute_evidence.evidence.statement import others_addresses
from dispute_evidence.evidence.views import DisputeView, sheet_view

WORDS = "the customer's words"  # a contradiction: what the customer wrote concedes the claim
_FAILED = re.compile(r"fail|declin|cancel|void|incomplete|requires", re.I)


@dataclass(frozen=True)
class CaseFacts:
    """Everything one dispute's case rests on, read once."""

    order_number: str
    order_date: str
    total: float | None
    currency: str
    refunded: float
    refund_recorded: bool  # the orders export has a refunded amount (0 included)
    financial_status: str
    fulfillment_status: str
    cancelled_on: str
    shipping_method: str
    lines: tuple[Line, ...]
    charges: tuple[Charge, ...]
    customer: Customer
    shipments: tuple[Shipment, ...]
    tracking_numbers: tuple[str, ...]  # every tracking number the evidence names
    documents: tuple[DocumentFacts, ...]
    dispute: DisputeView
    api: DisputeView | None
    ce3_priors: tuple[Prior, ...]
    delivery: DeliveryFact
    carrier_delivery: DeliveryFact  # the carrier's own word (may differ: see contradictions)
    same_address: bool
    timeline: tuple[Event, ...]
    contradictions: tuple[Contradiction, ...]
    # documents whose text names another parcel: {file name: what it names}, never argued
    other_parcels: tuple[tuple[str, str], ...] = ()
    credits: tuple[Credit, ...] = ()  # each refund with its date and reference (credits.py)
    statement: str = ""  # the merchant's own words (evidence/statement.py): never a fact
    as_sold: tuple[Listing, ...] = ()  # each line's listing as sold (evidence/products.py)
    merchant: MerchantProfile | None = None  # who answers (the letter's head and signature)
    ce3_disputed: Prior | None = None  # its CE 3.0 values, shown beside the priors'
    stance_choices: tuple[tuple[str, str], ...] = ()  # the analyst's, per message key
    charges_elided: int = 0  # the order's charges between its first and latest not kept
    other_purchases: tuple[Purchase, ...] = ()  # a duplicate claim's other charge, its order
    other_unsure: tuple[str, ...] = ()  # the charges it could be, none certain (duplicates.py)
    activity: tuple[Activity, ...] = ()  # the account's use (evidence/activity.py)
    activity_total: int = 0
    merchant_country: str = ""

    @property
    def reason(self) -> str:
        return self.dispute.reason.strip().lower()

    @property
    def kinds(self) -> list[str]:
        return [d.kind for d in self.documents]

    @property
    def against(self) -> tuple[Contradiction, ...]:
        return tuple(c for c in self.contradictions if c.weakens)

    @property
    def accept_because(self) -> tuple[str, ...]:
        """Why the merchant's own data says to accept ("" reasons: fight on)."""
        return tuple(c.fact for c in self.contradictions if c.accept)

    @property
    def credited(self) -> float:
        """What was credited back on the order: the orders export's refunded amount, else the
        payments export's refunded amounts."""
        if self.refunded > 0:
            return self.refunded
        return sum(_number(c.amount_refunded) or 0.0 for c in self.charges)

    @property
    def order_value(self) -> float | None:
        """The order's total, else its lines' sum (price x quantity) when every line gives both."""
        if self.total is not None:
            return self.total
        sums = [x.price * x.quantity for x in self.lines
                if x.price is not None and x.quantity is not None]  # fmt: skip
        return sum(sums) if self.lines and len(sums) == len(self.lines) else None

    @property
    def live_charges(self) -> tuple[Charge, ...]:
        """The charges that took money (a failed or declined attempt took none)."""
        return tuple(c for c in self.charges if not _FAILED.search(c.payment_status))

    @property
    def disputed_charge(self) -> Charge | None:
        """The charge the dispute is about (evidence/payments.py: disputed_charge)."""
        view = self.dispute
        return disputed_charge(self.charges, view.amount, view.currency, view.opened_on)

    @property
    def hidden_fulfilment(self) -> bool:
        """Whether the fulfilment status contradicts a recorded shipment (not printed)."""
        return any(c.name == "fulfilment status" for c in self.contradictions)

    @property
    def opened_on(self) -> str:
        """When the dispute opened (the disputes list's, else the API's), "" when not known."""
        return self.dispute.opened_on or (self.api.opened_on if self.api else "")

    @property
    def credit_check(self) -> CreditCheck:
        """The credits against the disputed amount, by currency and date (credits.py)."""
        return credit_check(self.credits, self.refunded, self.currency, self.dispute.currency,
                            self.opened_on)  # fmt: skip

    def stances(self) -> list[tuple[DocumentFacts, Message, Stance]]:
        """Each message of the case's documents with its stance for the claim, read whole
        (evidence/stance.py); the analyst's choice, where made, stands for the reading."""
        return list(self._stances)

    @functools.cached_property
    def _stances(self) -> tuple[tuple[DocumentFacts, Message, Stance], ...]:
        """stances(), read once per case (the checks, the letter and the verdict all ask)."""
        family = family_of(self.reason)
        charge = self.disputed_charge
        charged = day(charge.paid_at if charge else "")
        cu, chosen = self.customer, dict(self.stance_choices)
        # words older than the order (or its first charge: a subscription's) are not about it
        dates = [self.order_date, *(day(c.paid_at) for c in self.charges)]
        since = min((d for d in dates if d), default="")
        who = Author(
            tuple(x for x in (cu.email, cu.name) if x),
            merchant_names(self.merchant.merchant_name, self.merchant.merchant_website)
            if self.merchant
            else (),
        )
        out = []
        for doc in self.documents:
            for m in doc.messages:
                st = message_stance(m.quote.text, family, m.on, charged, m.author, who,
                                    since)  # fmt: skip
                pick = chosen.get(message_key(m.quote.text))
                if pick in CHOICES and not st.merchant:
                    st = Stance(CHOICES[pick], f"the analyst confirmed: {pick}")
                out.append((doc, m, st))
        return tuple(out)

    def hidden(self, what: str) -> bool:
        """A date no page states as fact ("ordered", "shipped", "delivered"): the timeline
        puts it out of order, so which one is wrong is the analyst's to say."""
        return any(what in c.hides for c in self.contradictions)

    def withheld(self, what: str) -> str:
        """Why a date is not stated ("timeline: shipped before ordered"), "" when it is."""
        return "; ".join(c.name for c in self.contradictions if what in c.hides)

    def said(self, delivery: DeliveryFact) -> str:
        """A delivery fact (the case's, or one carrier row's) in words, its date withheld when
        the timeline puts the delivery out of order."""
        return delivery.worded(self.withheld("delivered") if delivery.delivered else "")

    @property
    def delivery_words(self) -> str:
        """The case's one delivery fact as every page states it (the data sheet's Delivery
        line, the report's Delivery column); "" when no shipment or document speaks of it."""
        if not (self.shipments or self.delivery.delivered or self.delivery.source == "files"):
            return ""
        said = self.said(self.delivery)  # one parcel of several delivered: said as partial
        return in_part(said, self.delivery, self.shipments) or said


def _number(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if f == f else None


def documents_named(files: Sequence[str | DocumentFacts]) -> tuple[DocumentFacts, ...]:
    """Documents known by their file names only (kind from the name), or already read."""
    return tuple(
        f if isinstance(f, DocumentFacts) else DocumentFacts(f, "", K.kind_of(f), "not_read")
        for f in files
    )


def documents_of_kinds(files: Sequence[str | DocumentFacts]) -> tuple[DocumentFacts, ...]:
    """Documents known by their kinds only (documents/kinds.py), or already read."""
    return tuple(
        f if isinstance(f, DocumentFacts) else DocumentFacts(f"document {i + 1}", "", f, "not_read")
        for i, f in enumerate(files)
    )


def build_case(
    facts: DisputeFacts,
    documents: Sequence[DocumentFacts] = (),
    api: DisputeView | None = None,
) -> CaseFacts:
    """The case for one dispute's facts (evidence/facts.py), its documents (what was read from
    each, or only its kind), and the API's view of the dispute when a read-back knows it."""
    o = facts.order
    docs = tuple(documents)
    ships = shipments_of(facts.shipments)
    tracking = facts.tracking_numbers
    ours = (*tracking, *(s.tracking_number for s in ships))
    others = tuple(
        (d.name, why) for d in docs if (why := other_parcel(d, ours, o.shipping_address))
    )
    argued = [d for d in docs if d.name not in dict(others)]
    delivery, carrier = one_delivery(ships, argued)
    email = o.customer_email or next(
        (c.customer_email for c in facts.charges if c.customer_email), ""
    )
    customer = Customer(o.customer_name, email, o.billing_address, o.shipping_address,
                        o.customer_ip, o.device_id)  # fmt: skip
    case = CaseFacts(
        order_number=o.order_number,
        order_date=day(o.order_date),
        total=_number(o.order_total),
        currency=o.order_currency,
        refunded=_number(o.refunded_amount) or logged_total(facts) or 0.0,
        refund_recorded=o.refunded_amount is not None or bool(facts.refunds),
        financial_status=o.financial_status,
        fulfillment_status=o.fulfillment_status,
        cancelled_on=day(o.cancelled_at),
        shipping_method=o.shipping_method,
        lines=tuple(
            Line(p.title, _number(p.quantity), _number(p.price), p.currency, p.price_from)
            for p in facts.products
        ),  # fmt: skip
        charges=tuple(
            c if c.currency else replace(c, currency=currency_of_order(facts))
            for c in facts.charges
        ),
        customer=customer,
        shipments=ships,
        tracking_numbers=tracking,
        documents=docs,
        dispute=sheet_view(facts),
        api=api,
        ce3_priors=facts.ce3_priors,
        ce3_disputed=facts.ce3_disputed,
        delivery=delivery,
        carrier_delivery=carrier,
        same_address=bool(customer.billing_address)
        and same_place(customer.billing_address, customer.shipping_address),
        timeline=(),
        contradictions=(),
        other_parcels=others,
        credits=credits_of(facts),
        statement=facts.statement.text.strip() if facts.statement else "",
        as_sold=facts.as_sold,
        merchant=facts.merchant,
        stance_choices=facts.stance_choices,
        charges_elided=facts.charges_elided,
        other_purchases=facts.other_purchases,
        other_unsure=facts.other_unsure,
        activity=facts.activity,
        activity_total=facts.activity_total,
        merchant_country=facts.merchant_country,
    )
    return _checked(case)


def _checked(case: CaseFacts) -> CaseFacts:
    """The case with its contradictions, then its timeline (which leaves out what they hide)."""
    case = replace(case, contradictions=tuple(contradictions(case)))
    return replace(case, timeline=case_timeline(case))


def for_reason(case: CaseFacts, reason: str) -> CaseFacts:
    """The same case argued for another reason (the disputes list's, when the payload's
    differs): its checks made again for that reason."""
    if reason.strip().lower() == case.reason:
        return case
    return _checked(replace(case, dispute=replace(case.dispute, reason=reason)))


# -- the checks ----------------------------------------------------------------------------
def contradictions(case: CaseFacts) -> list[Contradiction]:
    """Every named inconsistency of the case, in the order a reviewer would notice them."""
    dates = _timeline_checks(case)
    hidden = any("delivered" in c.hides for c in dates)
    twice = _charged_twice(case)  # the other charge found on this order: no other to name
    out = [
        *dates,
        *_carrier_vs_document(case, hidden),
        *_status_vs_claim(case),
        *twice,
        *fraud_concessions(case.reason, case.live_charges, case.customer.shipping_address),
        *_words_against(case),
        *_shipped_in_part(case),
        *_other_parcels(case),
        *to_confirm(case.stances()),
        *money_against_words(
            case.credits, case.refunded, case.currency, case.statement, case.dispute
        ),  # fmt: skip
        *_statement_names_another(case),
        *([] if twice else other_unsure(case.other_unsure, case.disputed_charge)),
    ]
    return out + statement_against_concession(case.statement, out)


def _statement_names_another(case: CaseFacts) -> list[Contradiction]:
    """The merchant's statement names another customer's e-mail address (issue 45, item 11)."""
    own = [case.customer.email, *(c.customer_email for c in case.charges)]
    site = case.merchant.merchant_website if case.merchant else ""
    if not case.statement or not (others := others_addresses(case.statement, own, site)):
        return []
    fact = f"the merchant's statement names {', '.join(others[:3])}, not this order's customer"
    todo = "remove another customer's address from the statement, or confirm it is this one's"
    return [Contradiction("statement names another", fact, todo, weakens=False, internal=True)]


def _other_parcels(case: CaseFacts) -> list[Contradiction]:
    """Each proof of delivery whose text names another parcel: not argued, and the analyst
    told (never the reviewer: it is another customer's delivery)."""
    return [
        Contradiction(
            "proof of delivery for another parcel",
            f"{name} names {why}; it is not argued for this dispute",
            f"remove {name} from this dispute's files, or rename it for the dispute whose "
            "parcel it names",
            internal=True,
        )
        for name, why in case.other_parcels
    ]


_DATES_TODO = (
    "check the order date (orders export) and the ship and delivery dates (shipments sheet) "
    "and drop the corrected file; until they agree the letter states neither date"
)


def _timeline_checks(case: CaseFacts) -> list[Contradiction]:
    out = []
    shipped = min((s.shipped_on for s in case.shipments if s.shipped_on), default="")
    if shipped and case.order_date and shipped < case.order_date:
        out.append(Contradiction("timeline: shipped before ordered",
                                 f"shipped on {shipped}, before the order date {case.order_date}",
                                 _DATES_TODO, hides=("ordered", "shipped")))  # fmt: skip
    delivered = case.delivery.on if case.delivery.delivered else ""
    if delivered and shipped and delivered < shipped:
        out.append(Contradiction("timeline: delivered before shipped",
                                 f"delivered on {delivered}, before the ship date {shipped}",
                                 _DATES_TODO, hides=("shipped", "delivered")))  # fmt: skip
    elif delivered and case.order_date and delivered < case.order_date:
        out.append(Contradiction("timeline: delivered before ordered",
                                 f"delivered on {delivered}, before the order date {case.order_date}",
                                 _DATES_TODO, hides=("ordered", "delivered")))  # fmt: skip
    return out


def _carrier_vs_document(case: CaseFacts, date_hidden: bool) -> list[Contradiction]:
    """The carrier against a proof of delivery (its date left out when the timeline hides it:
    the timeline's own check names it)."""
    d, carrier = case.delivery, case.carrier_delivery
    if d.source != "files" or not d.delivered or not carrier.status or carrier.delivered:
        return []
    proof = (
        "delivery"
        + (f" on {d.on}" if d.on and not date_hidden else "")
        + (f", signed by {d.signed_by}" if d.signed_by else "")
    )
    return [
        Contradiction(
            "carrier vs document",
            f"the carrier shows '{carrier.status}' but {d.cite} records {proof}",
            "the signed proof is used and both are stated; if the proof is for another parcel, "
            "remove it",
            weakens=False,
        )
    ]


def _money(value: float, currency: str) -> str:
    """As every amount we print reads: thousands separated, two decimals, its currency."""
    return f"{value:,.2f} {currency}".strip()


def _currency(case: CaseFacts) -> str:
    """The order's currency: its total's, else its lines', else the dispute's."""
    lines = next((x.currency for x in case.lines if x.currency), "")
    return case.currency or str(lines or "") or case.dispute.currency


def _status_vs_claim(case: CaseFacts) -> list[Contradiction]:
    """The order's own status against the claim: what the merchant's data concedes."""
    out = []
    family, d = family_of(case.reason), case.delivery
    shipped = any(s.shipped_on or s.tracking_number for s in case.shipments)
    unfulfilled = case.fulfillment_status.strip().lower() in ("unfulfilled", "not fulfilled")
    if family == NOT_RECEIVED and unfulfilled and not shipped and not d.delivered:
        out.append(Contradiction(
            "order unfulfilled",
            f"the order was never fulfilled (fulfilment status: {case.fulfillment_status}) and "
            "no shipment is recorded",
            "accept the dispute (the goods did not go out); if they did, drop the shipments "
            "sheet with the tracking number", accept=True))  # fmt: skip
    elif family == NOT_RECEIVED and d.state == "not_delivered" and d.source == "files":
        out.append(Contradiction(
            "document says not delivered", f"{d.cite} says “{d.quote}”",
            "a proof of the delivery that followed, or consider accepting the dispute"))  # fmt: skip
    elif family == NOT_RECEIVED and case.carrier_delivery.status and not d.delivered:
        out.append(Contradiction(
            "carrier says not delivered", f"carrier shows {case.carrier_delivery.status}",
            "proof of delivery (a delivery confirmation or signature), or consider accepting "
            "the dispute"))  # fmt: skip
    if case.credit_check.covers_before(case.dispute.amount):
        pass  # credited before the dispute opened: the letter's answer, never a concession
    elif family == CREDIT_NOT_PROCESSED and case.credited > 0:
        full = _fully_credited(case)
        out.append(Contradiction(
            "refund recorded", f"a refund of {_money(case.credited, _currency(case))} is recorded"
            + (f": the {full} was credited" if full else ""),
            "if the refund went out before the dispute, send its receipt (date and reference): a "
            "chargeback would pay twice; else accept the dispute", accept=full is not None))  # fmt: skip
    elif (full := _fully_credited(case)) is not None:
        out.append(Contradiction(
            "order fully refunded",
            f"the {full} was fully refunded ({_money(case.credited, _currency(case))})",
            "accept the dispute, or send the refund receipt showing it was refunded before "
            "the dispute", accept=True))  # fmt: skip
    if case.cancelled_on:
        out.append(Contradiction(
            "order cancelled", f"the order was cancelled on {case.cancelled_on}",
            "check whether the charge should stand; if not, accept the dispute",
            accept=True))  # fmt: skip
    return out


def _shipped_in_part(case: CaseFacts) -> list[Contradiction]:
    """An order in several parcels, some delivered and some not: delivery stated as partial;
    and Shopify's "unfulfilled" beside a recorded shipment (a courier portal's parcel)."""
    out = []
    parcels = [s for s in case.shipments if s.tracking_number]
    open_ = [s for s in parcels if not s.delivery.delivered]
    if case.delivery.delivered and case.delivery.source != "files" and open_ and len(parcels) > 1:
        left = ", ".join(f"{s.tracking_number} ({s.delivery.status or 'no delivery recorded'})"
                         for s in open_)  # fmt: skip
        out.append(Contradiction(
            IN_PART, f"{len(parcels) - len(open_)} of {len(parcels)} parcels are "
            f"shown delivered; not delivered: {left}",
            "proof of delivery of every parcel, or accept the part not delivered"))  # fmt: skip
    unfulfilled = case.fulfillment_status.strip().lower() in ("unfulfilled", "not fulfilled")
    if unfulfilled and parcels:
        out.append(Contradiction(
            "fulfilment status", f"the orders export says '{case.fulfillment_status}' but "
            f"{len(parcels)} shipment(s) are recorded",
            "mark the order fulfilled in the shop if it shipped (the data sheet leaves the "
            "status out)", weakens=False))  # fmt: skip
    return out


def _fully_credited(case: CaseFacts) -> str | None:
    """ "order" or "disputed amount" when a credit covers it, else None: only a credit in the
    dispute's currency counts (one in another currency is stated, never converted)."""
    credited = case.credit_check.same
    if credited <= 0:
        return None
    if case.dispute.amount is not None and credited + CENT >= case.dispute.amount:
        return "disputed amount"
    if case.total and credited + CENT >= case.total:
        return "order"
    return None


def _charged_twice(case: CaseFacts) -> list[Contradiction]:
    """A duplicate claim the payments export proves: two charges of one amount on one day."""
    if family_of(case.reason) != DUPLICATE:
        return []
    seen: dict[tuple[float | None, str], list[Charge]] = {}
    for c in case.live_charges:
        seen.setdefault((_number(c.payment_amount), day(c.paid_at)), []).append(c)
    for (amount, on), same in seen.items():
        if len(same) > 1 and amount is not None and not split_payment(same, case.order_value):
            ids = " and ".join(c.payment_id or "?" for c in same)
            currency = (same[0].currency or case.currency).upper()
            return [Contradiction(
                "charged twice",
                f"{len(same)} charges of {_money(amount, currency)} were made "
                f"on {on or 'the same day'} for this order ({ids})",
                "refund the second charge and accept the dispute; if they paid two orders, "
                "correct each charge's order in the payments export and drop it again (the "
                "letter then shows the two purchases side by side)", accept=True)]  # fmt: skip
    return []


def _words_against(case: CaseFacts) -> list[Contradiction]:
    """What the customer's own words concede, dated and quoted; never argued. It makes the
    advice "accept" where the reason turns on those words (a defect with nothing saying the
    goods are fine, a return with no credit, a cancellation before the charge)."""
    stances = case.stances()
    supported = any(st.kind == "supports" and st.certain for _, _, st in stances)
    out = []
    for doc, m, st in stances:
        if st.kind != "concedes" or not st.certain:
            continue
        when = f"on {m.on.isoformat()} " if m.on else ""
        who = m.author or "the customer"
        fact = (f"{who} wrote {when}({doc.name}, page {m.quote.page}): “{m.quote.text}” "
                f"({st.why})")  # fmt: skip
        accept = {
            "always": True,
            "unless_supported": not supported,
            "unless_credited": case.credited <= 0,
            "never": False,
        }[playbook_for(case.reason).words_concede]
        out.append(Contradiction(
            WORDS, fact,
            "accept the dispute; if the message does not concede this claim, say so: "
            f"dispute-evidence stance <this dispute> {message_key(m.quote.text)} "
            "supports|leave-out" if accept
            else "not quoted in the letter; the rest of the case answers the claim",
            accept=accept))  # fmt: skip
    return out
