"""A case's timeline (evidence/case_record.py): its dated facts, oldest first, each marked key when a
shortened timeline must keep it (evidence/reason_points.py kept_timeline). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from dispute_evidence.documents.facts import DocumentFacts, Message
from dispute_evidence.evidence.case_parts import Event
from dispute_evidence.evidence.credits import Credit
from dispute_evidence.evidence.delivery import DeliveryFact, Shipment, day
from dispute_evidence.evidence.digital import delivers
from dispute_evidence.evidence.dispute_facts import Activity, Charge
from dispute_evidence.evidence.stance import Stance


class CaseFacts(Protocol):
    """What the timeline reads of a case (evidence/case_record.py CaseFacts)."""

    @property
    def order_number(self) -> str: ...
    @property
    def order_date(self) -> str: ...
    @property
    def cancelled_on(self) -> str: ...
    @property
    def shipments(self) -> Sequence[Shipment]: ...
    @property
    def delivery(self) -> DeliveryFact: ...
    @property
    def credits(self) -> Sequence[Credit]: ...
    @property
    def live_charges(self) -> Sequence[Charge]: ...
    @property
    def disputed_charge(self) -> Charge | None: ...
    @property
    def opened_on(self) -> str: ...
    @property
    def activity(self) -> Sequence[Activity]: ...
    def stances(self) -> list[tuple[DocumentFacts, Message, Stance]]: ...
    def hidden(self, what: str) -> bool: ...


def case_timeline(case: CaseFacts) -> tuple[Event, ...]:
    """The dated facts of the case, oldest first (a date a contradiction hides is left out)."""
    events: list[Event] = []
    if case.order_date and not case.hidden("ordered"):
        events.append(
            Event(case.order_date, f"Order {case.order_number} placed", "order", key=True)
        )
    disputed, live = case.disputed_charge, case.live_charges
    first = min(live, key=lambda c: c.paid_at) if live else None
    for c in live:  # the disputed one and the first (a subscription's sign-up) are key; a
        # failed attempt took no money: never "paid"
        if paid := day(c.paid_at):
            events.append(
                Event(
                    paid, f"Charge {c.payment_id} paid", "payments", key=c is disputed or c is first
                )
            )
    for s in case.shipments:
        if s.shipped_on and not case.hidden("shipped"):
            how = f" with {s.carrier}" if s.carrier else ""
            events.append(Event(s.shipped_on, f"Shipped{how}", "shipments"))
    d = case.delivery
    if d.delivered and d.on and not case.hidden("delivered"):
        signed = f", signed by {d.signed_by}" if d.signed_by else ""
        events.append(Event(d.on, f"Delivered{signed}", d.source, d.document))
    delivered: dict[str, list[str]] = {}  # a digital order's delivery: its download, activation
    for a in case.activity:
        if delivers(a.event) and a.event not in delivered.setdefault(a.at[:10], []):
            delivered[a.at[:10]].append(a.event)
    for on, logged in delivered.items():
        said = " and ".join(logged)
        events.append(Event(on, f"{said[:1].upper()}{said[1:]} (access log)", "activity", key=True))
    if case.cancelled_on:
        events.append(Event(case.cancelled_on, "Order cancelled", "order", key=True))
    for x in case.credits:  # a credit before the dispute is its answer: dated, with its reference
        if x.on and x.amount:
            said = replace(x, on="").words()  # "20.00 USD (reference re_1)": dated by the line
            events.append(Event(x.on, f"Credit of {said} issued", x.source, key=True))
    for doc, m, st in case.stances():  # what each message says to the claim, when it says it
        if m.on:
            who = m.author or "The customer"
            what = f" ({st.why})" if st.kind != "neutral" and st.why else ""
            events.append(Event(m.on.isoformat(), f"{who} wrote{what}", "files", doc.name, True))
    if case.opened_on:
        events.append(Event(case.opened_on, "Dispute opened", "dispute", key=True))
    return tuple(sorted(events, key=lambda e: e.on))
