"""The case of one dispute as a record: every fact the verdict, the letter, the data sheet, the
advice and the report read (evidence/case_build.py builds it once, from the payload we send and
the documents attached to it; evidence/case_contradictions.py names what disagrees in it).

One delivery fact per case (`CaseFacts.delivery`): see case_build.py. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.documents.facts import DocumentFacts, Message
from dispute_evidence.evidence.case_parts import Contradiction as Contradiction
from dispute_evidence.evidence.case_parts import Customer as Customer
from dispute_evidence.evidence.case_parts import Event as Event
from dispute_evidence.evidence.case_parts import Line as Line
from dispute_evidence.evidence.ce3 import Prior
from dispute_evidence.evidence.credits import (
    Credit,
    CreditCheck,
    credit_check,
)
from dispute_evidence.evidence.delivery import (
    DeliveryFact,
    Shipment,
    day,
    in_part,
)
from dispute_evidence.evidence.dispute_facts import Activity, Charge, Purchase
from dispute_evidence.evidence.payments import disputed_charge
from dispute_evidence.evidence.playbooks import (
    family_of,
)
from dispute_evidence.evidence.products import Listing
from dispute_evidence.evidence.stance import (
    CHOICES,
    Author,
    Stance,
    merchant_names,
    message_key,
    message_stance,
)
from dispute_evidence.evidence.views import DisputeView

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
        return sum(as_number(c.amount_refunded) or 0.0 for c in self.charges)

    @property
    def order_value(self) -> float | None:
        """The order's total, else its lines' sum (price x quantity) when every line gives both."""
        if self.total is not None:
            return self.total
        sums = [
            x.price * x.quantity
            for x in self.lines
            if x.price is not None and x.quantity is not None
        ]
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
        return credit_check(
            self.credits, self.refunded, self.currency, self.dispute.currency, self.opened_on
        )

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
                st = message_stance(m.quote.text, family, m.on, charged, m.author, who, since)
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


def as_number(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if f == f else None
