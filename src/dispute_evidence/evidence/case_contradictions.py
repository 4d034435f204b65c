"""The checks of a case (evidence/case_record.py): every named inconsistency, in the order a
reviewer would notice them, each with what to do (`Contradiction`): the timeline out of
order, the carrier against a document, the order's own status against the claim, what the
customer's own words concede. Addresses are compared as places (evidence/places.py). Pure.
"""

from __future__ import annotations

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
from dispute_evidence.evidence.case_record import CaseFacts, as_number
from dispute_evidence.evidence.contradiction import fraud_concessions
from dispute_evidence.evidence.credits import (
    CENT,
)
from dispute_evidence.evidence.delivery import (
    day,
)
from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.playbooks import (
    CREDIT_NOT_PROCESSED,
    DUPLICATE,
    NOT_RECEIVED,
    family_of,
    playbook_for,
)
from dispute_evidence.evidence.reason_checks import split_payment
from dispute_evidence.evidence.stance import (
    message_key,
)
from dispute_evidence.evidence.statement import others_addresses

WORDS = "the customer's words"  # a contradiction: what the customer wrote concedes the claim


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
        ),
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
        out.append(
            Contradiction(
                "timeline: shipped before ordered",
                f"shipped on {shipped}, before the order date {case.order_date}",
                _DATES_TODO,
                hides=("ordered", "shipped"),
            )
        )
    delivered = case.delivery.on if case.delivery.delivered else ""
    if delivered and shipped and delivered < shipped:
        out.append(
            Contradiction(
                "timeline: delivered before shipped",
                f"delivered on {delivered}, before the ship date {shipped}",
                _DATES_TODO,
                hides=("shipped", "delivered"),
            )
        )
    elif delivered and case.order_date and delivered < case.order_date:
        out.append(
            Contradiction(
                "timeline: delivered before ordered",
                f"delivered on {delivered}, before the order date {case.order_date}",
                _DATES_TODO,
                hides=("ordered", "delivered"),
            )
        )
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
    """The order's own status against the claim: what the merchant's data concedes. A parcel
    the carrier (or the merchant's own proof) shows not delivered, with no proof that it was,
    concedes a not-received claim (shared spec, rebuttal-by-reason: "parcels still in transit
    or returned"): held as advice: accept for a person, never argued from the shipment alone."""
    out = []
    family, d = family_of(case.reason), case.delivery
    shipped = any(s.shipped_on or s.tracking_number for s in case.shipments)
    unfulfilled = case.fulfillment_status.strip().lower() in ("unfulfilled", "not fulfilled")
    if family == NOT_RECEIVED and unfulfilled and not shipped and not d.delivered:
        out.append(
            Contradiction(
                "order unfulfilled",
                f"the order was never fulfilled (fulfilment status: {case.fulfillment_status}) and "
                "no shipment is recorded",
                "accept the dispute (the goods did not go out); if they did, drop the shipments "
                "sheet with the tracking number",
                accept=True,
            )
        )
    elif family == NOT_RECEIVED and d.state == "not_delivered" and d.source == "files":
        out.append(
            Contradiction(
                "document says not delivered",
                f"{d.cite} says “{d.quote}”",
                "a proof of the delivery that followed, to fight it; else accept the dispute",
                accept=True,
            )
        )
    elif family == NOT_RECEIVED and case.carrier_delivery.status and not d.delivered:
        out.append(
            Contradiction(
                "carrier says not delivered",
                f"carrier shows {case.carrier_delivery.status}",
                "proof of delivery (a delivery confirmation or signature), to fight it; else "
                "accept the dispute",
                accept=True,
            )
        )
    if case.credit_check.covers_before(case.dispute.amount):
        pass  # credited before the dispute opened: the letter's answer, never a concession
    elif family == CREDIT_NOT_PROCESSED and case.credited > 0:
        full = _fully_credited(case)
        out.append(
            Contradiction(
                "refund recorded",
                f"a refund of {_money(case.credited, _currency(case))} is recorded"
                + (f": the {full} was credited" if full else ""),
                "if the refund went out before the dispute, send its receipt (date and reference): a "
                "chargeback would pay twice; else accept the dispute",
                accept=full is not None,
            )
        )
    elif (full := _fully_credited(case)) is not None:
        out.append(
            Contradiction(
                "order fully refunded",
                f"the {full} was fully refunded ({_money(case.credited, _currency(case))})",
                "accept the dispute, or send the refund receipt showing it was refunded before "
                "the dispute",
                accept=True,
            )
        )
    if case.cancelled_on:
        out.append(
            Contradiction(
                "order cancelled",
                f"the order was cancelled on {case.cancelled_on}",
                "check whether the charge should stand; if not, accept the dispute",
                accept=True,
            )
        )
    return out


def _shipped_in_part(case: CaseFacts) -> list[Contradiction]:
    """An order in several parcels, some delivered and some not: delivery stated as partial;
    and Shopify's "unfulfilled" beside a recorded shipment (a courier portal's parcel)."""
    out = []
    parcels = [s for s in case.shipments if s.tracking_number]
    open_ = [s for s in parcels if not s.delivery.delivered]
    if case.delivery.delivered and case.delivery.source != "files" and open_ and len(parcels) > 1:
        left = ", ".join(
            f"{s.tracking_number} ({s.delivery.status or 'no delivery recorded'})" for s in open_
        )
        out.append(
            Contradiction(
                IN_PART,
                f"{len(parcels) - len(open_)} of {len(parcels)} parcels are "
                f"shown delivered; not delivered: {left}",
                "proof of delivery of every parcel, or accept the part not delivered",
            )
        )
    unfulfilled = case.fulfillment_status.strip().lower() in ("unfulfilled", "not fulfilled")
    if unfulfilled and parcels:
        out.append(
            Contradiction(
                "fulfilment status",
                f"the orders export says '{case.fulfillment_status}' but "
                f"{len(parcels)} shipment(s) are recorded",
                "mark the order fulfilled in the shop if it shipped (the data sheet leaves the "
                "status out)",
                weakens=False,
            )
        )
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
        seen.setdefault((as_number(c.payment_amount), day(c.paid_at)), []).append(c)
    for (amount, on), same in seen.items():
        if len(same) > 1 and amount is not None and not split_payment(same, case.order_value):
            ids = " and ".join(c.payment_id or "?" for c in same)
            currency = (same[0].currency or case.currency).upper()
            return [
                Contradiction(
                    "charged twice",
                    f"{len(same)} charges of {_money(amount, currency)} were made "
                    f"on {on or 'the same day'} for this order ({ids})",
                    "refund the second charge and accept the dispute; if they paid two orders, "
                    "correct each charge's order in the payments export and drop it again (the "
                    "letter then shows the two purchases side by side)",
                    accept=True,
                )
            ]
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
        fact = f"{who} wrote {when}({doc.name}, page {m.quote.page}): “{m.quote.text}” ({st.why})"
        accept = {
            "always": True,
            "unless_supported": not supported,
            "unless_credited": case.credited <= 0,
            "never": False,
        }[playbook_for(case.reason).words_concede]
        out.append(
            Contradiction(
                WORDS,
                fact,
                "accept the dispute; if the message does not concede this claim, say so: "
                f"dispute-evidence stance <this dispute> {message_key(m.quote.text)} "
                "supports|leave-out"
                if accept
                else "not quoted in the letter; the rest of the case answers the claim",
                accept=accept,
            )
        )
    return out
