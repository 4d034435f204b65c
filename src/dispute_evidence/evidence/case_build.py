"""The case of one dispute, built: every fact the verdict, the letter, the data sheet, the advice and
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

from collections.abc import Sequence
from dataclasses import replace

from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence.case_contradictions import contradictions
from dispute_evidence.evidence.case_parts import Contradiction as Contradiction
from dispute_evidence.evidence.case_parts import Customer as Customer
from dispute_evidence.evidence.case_parts import Event as Event
from dispute_evidence.evidence.case_parts import Line as Line
from dispute_evidence.evidence.case_record import CaseFacts, as_number
from dispute_evidence.evidence.case_timeline import case_timeline
from dispute_evidence.evidence.credits import (
    credits_of,
    currency_of_order,
    logged_total,
)
from dispute_evidence.evidence.delivery import (
    day,
    one_delivery,
    other_parcel,
    shipments_of,
)
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.places import same_place
from dispute_evidence.evidence.views import DisputeView, sheet_view


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
    """The case for one dispute's facts (evidence/dispute_facts.py), its documents (what was read from
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
    customer = Customer(
        o.customer_name, email, o.billing_address, o.shipping_address, o.customer_ip, o.device_id
    )
    case = CaseFacts(
        order_number=o.order_number,
        order_date=day(o.order_date),
        total=as_number(o.order_total),
        currency=o.order_currency,
        refunded=as_number(o.refunded_amount) or logged_total(facts) or 0.0,
        refund_recorded=o.refunded_amount is not None or bool(facts.refunds),
        financial_status=o.financial_status,
        fulfillment_status=o.fulfillment_status,
        cancelled_on=day(o.cancelled_at),
        shipping_method=o.shipping_method,
        lines=tuple(
            Line(p.title, as_number(p.quantity), as_number(p.price), p.currency, p.price_from)
            for p in facts.products
        ),
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
