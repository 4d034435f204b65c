"""The letter's thesis: its body's first sentence answers the claim with the decisive proof and
names its exhibit (issue 44, item 4; rebuttal-by-reason.md "Thesis first"):

    The cardholder says the goods were not received; UPS's signed proof of delivery
    (Exhibit A) shows the parcel delivered on 2026-10-06 to 12 Elm Street, Boston, MA 02108,
    the shipping address entered at checkout, signed for by A. Smith.

Each maker states one fact the case shows, or nothing; a reason's playbook
(evidence/playbooks.py) names which it tries, in order, and the first that has its fact is the
thesis. Third-party proof (a carrier's signed document, the issuer's checks, the customer's own
words) comes before our own records. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from dispute_evidence.evidence import reason_points as R
from dispute_evidence.evidence.ce3 import LABELS
from dispute_evidence.evidence.credit_lead import credit_lead
from dispute_evidence.evidence.delivery import day
from dispute_evidence.evidence.letter_facts import FILE, Facts, partly_credited, quoted
from dispute_evidence.evidence.messages import message_cues
from dispute_evidence.evidence.places import COUNTRIES, place_parts, same_place
from dispute_evidence.evidence.playbooks import claim_words, playbook_for
from dispute_evidence.evidence.reason_checks import VISA_AVS_RULE, visa_avs_rule
from dispute_evidence.evidence.sentence import Sentence


def _carrier(facts: Facts, tracking: str) -> str:
    """The carrier of the parcel a proof names (our shipment record ties it to the order)."""
    ships = facts.case.shipments
    named = [s for s in ships if tracking and s.tracking_number == tracking]
    ship = named[0] if named else ships[0] if len(ships) == 1 else None
    return ship.carrier if ship and ship.carrier else ""


def _to(facts: Facts, where: str) -> str:
    """ " to 12 Elm Street, the shipping address entered at checkout": the place a proof states
    (the second part only when the two name one place); "" when it states none."""
    entered = facts.case.customer.shipping_address
    if not where:  # a place the proof does not state is not said
        return ""
    same = entered and (same_place(where, entered) or _without_country(where, entered))
    return f" to {where}" + (", the shipping address entered at checkout" if same else "")


def _without_country(where: str, entered: str) -> bool:
    """A proof's address that is the entered one, written without its last parts (the country:
    "12 Elm Street, Boston, MA 02108" for "12 Elm Street, Boston, MA, 02108, United States")."""
    pw, pe = place_parts(where), place_parts(entered)
    said, whole = "".join(pw), "".join(pe)
    rest = whole[len(said) :] if whole.startswith(said) else None
    return bool(pw and pe) and pw[0] == pe[0] and rest in ("", *COUNTRIES.values())


def signed_delivery(facts: Facts) -> Sentence | None:
    """A carrier's proof of delivery read from a document: its date, place and signer."""
    d, case = facts.case.delivery, facts.case
    if not (d.delivered and d.source == "files" and (d.on or d.signed_by or d.where)):
        return None
    carrier = _carrier(facts, d.tracking_number)
    whose = f"{carrier}'s" if carrier else "The carrier's"
    signed = " signed" if d.signed_by else ""
    on = f" on {d.on}" if d.on and not case.hidden("delivered") else ""
    by = f", signed for by {d.signed_by}" if d.signed_by else ""
    facts.argued.add(d.document)
    return Sentence(
        f"{whose}{signed} proof of delivery ({facts.cite(d.document, d.page)}) shows "
        f"the parcel delivered{on}{_to(facts, d.where)}{by}.",
        FILE + d.document,
    )


def carrier_delivery(facts: Facts) -> Sentence | None:
    """The carrier's delivery as our shipment record holds it (no document to quote)."""
    d, case = facts.case.delivery, facts.case
    if not d.delivered or d.source != "shipments" or not d.on or case.hidden("delivered"):
        return None
    carrier = _carrier(facts, d.tracking_number)
    parcel = f"{carrier} tracking number {d.tracking_number}".strip() if d.tracking_number else ""
    what = parcel or "the parcel"
    return Sentence(f"our shipment record shows {what} delivered on {d.on}.", "shipments")


def customer_words(facts: Facts) -> Sentence | None:
    """The customer's own words that answer the claim, quoted with their exhibit."""
    for doc, m, st in facts.case.stances():
        if st.kind == "supports" and st.certain:  # an uncertain reading is the analyst's
            facts.argued.add(doc.name)
            when = f" on {m.on.isoformat()}" if m.on else ""
            who = m.author or "the customer"
            # a complaint taken back in the same message: said so in our words, then quoted
            wrote = "withdrew the complaint in writing" if _retracted(m.quote.text) else "wrote"
            cite = facts.cite(doc.name, m.quote.page)
            return Sentence(
                f"{who} {wrote}{when} ({cite}): {quoted(m.quote.text)}", FILE + doc.name
            )
    return None


def _retracted(text: str) -> bool:
    """The message takes back a complaint it made ("… never mind, it works fine now")."""
    cues = message_cues(text)
    return any(c.retract for c in cues) and any(not c.retract for c in cues)


def verified_delivery(facts: Facts) -> Sentence | None:
    """Fraud: the issuer's address check passed and the goods went to that verified address."""
    c = facts.case
    if not (c.delivery.delivered and c.same_address and c.customer.shipping_address):
        return None
    ch = next((x for x in c.charges if x.avs_line1_check.lower() == "pass"), None)
    if ch is None:
        return None
    zip_ = " and postcode" if ch.avs_zip_check.lower() == "pass" else ""
    proof = ""
    if c.delivery.source == "files":
        proof = f" ({facts.cite(c.delivery.document, c.delivery.page)})"
        facts.argued.add(c.delivery.document)
    return Sentence(
        f"the card issuer's address check passed (street{zip_}) for charge "
        f"{ch.payment_id}, and the order was delivered{proof} to that verified "
        f"billing address, {c.customer.shipping_address}.",
        "payments",
    )


def avs_rule(facts: Facts) -> Sentence | None:
    """Fraud: Visa's April 2026 AVS rule makes the dispute invalid; said on its own, before the
    merits, short: the rule, the transaction and the match (reason_checks.visa_avs_rule)."""
    c = facts.case
    rule = visa_avs_rule(c.disputed_charge, c.merchant_country, code=c.dispute.network_reason_code)
    if rule is None:
        return None
    return Sentence(
        f"This dispute is invalid under {VISA_AVS_RULE}: charge {rule.charge} of "
        f"{rule.paid} is a card-absent {rule.domestic} Visa transaction whose "
        "address check fully matched (street and postcode).",
        "payments",
    )


def ce3(facts: Facts) -> Sentence | None:
    """Fraud: Visa Compelling Evidence 3.0 qualifies: the two earlier undisputed orders on the
    same card, and the IP address or device ID they share with this one (exactly the same
    values, never a near match: ce3.py)."""
    priors = facts.case.ce3_priors
    if len(priors) < 2:
        return None
    told = " and ".join(f"{p.order_number} ({p.date})" for p in priors[:2])
    shared = [LABELS[k] for k in PRIMARY_ORDER if all(k in p.matched for p in priors[:2])]
    same = (
        f"from the same {' and '.join(shared)} as this one"
        if shared
        else "each from this one's IP address or device ID"
    )
    return Sentence(
        f"it qualifies for Visa Compelling Evidence 3.0: the same card "
        f"paid for orders {told}, never disputed, {same} (table below).",
        "history",
    )


PRIMARY_ORDER = ("device_id", "customer_ip")  # CE 3.0's elements that must match, one at least


def as_sold(facts: Facts) -> Sentence | None:
    said = facts.as_sold()
    return said[0] if said else None


def credit(facts: Facts) -> Sentence | None:
    """A credit already made on the order: its amount, date and reference."""
    dated = [x for x in facts.case.credits if x.amount]
    if not dated or partly_credited(facts.case):  # a partial credit answers only its part
        return None
    x = dated[0]
    return Sentence(f"a refund of {x.words()} was already issued on this order.", x.source)


def policy_refusal(facts: Facts) -> Sentence | None:
    """The policy clause that answers why no refund is owed (its number and page)."""
    said = facts.policy()
    return said[0] if said else None


_WINDOW = re.compile(
    r"\bwithin\s{1,3}(\d{1,3})\s{1,3}(?:calendar\s)?days?\s{1,3}of\s{1,3}deliver", re.I
)


def return_window(facts: Facts) -> Sentence | None:
    """Credit not processed: the policy's return window against the dates the case shows (the
    delivery, the dispute's opening), so the clause answers why no refund is owed."""
    said = facts.policy()
    case, d = facts.case, facts.case.delivery
    found = _WINDOW.search(said[0].text) if said else None
    if not said or found is None or not (d.delivered and d.on) or case.hidden("delivered"):
        return None
    clause = said[0].text.removesuffix(".")
    text = f"{clause}; the order was delivered on {d.on}"
    late = _days(d.on, case.opened_on)
    if late > int(found.group(1)):  # the window had closed before the dispute opened
        text += f", and the dispute opened on {case.opened_on}, {late} days after delivery"
    return Sentence(text + ".", said[0].source)


def _days(first: str, then: str) -> int:
    """Days from one YYYY-MM-DD date to another; 0 when either is not one."""
    try:
        return (date.fromisoformat(then[:10]) - date.fromisoformat(first[:10])).days
    except ValueError:
        return 0


def policy_terms(facts: Facts) -> Sentence | None:
    return policy_refusal(facts)


def digital_delivery(facts: Facts) -> Sentence | None:
    """A licence, a download, an account: delivered by use (the access log, issue 44 item 10)."""
    said = R.digital_delivery(facts)
    return said[0] if said else None


def two_purchases(facts: Facts) -> Sentence | None:
    """Duplicate: the other charge paid for another order, shipped on its own."""
    said = facts.two_purchases()
    return said[0] if said else None


def distinct_charges(facts: Facts) -> Sentence | None:
    said = facts.distinct_charges()
    return said[0] if said else None


def uncancelled_renewal(facts: Facts) -> Sentence | None:
    """Subscriptions: the charge disputed is a renewal under the terms, and no cancellation
    came before it (the first request on record, if any, is dated after it)."""
    renewed, kept_on = R.renewal(facts), R.no_cancellation(facts)
    charge = facts.case.disputed_charge
    if not (renewed and kept_on and charge):
        return None
    after = kept_on[0].text.rstrip(".")
    after = after[:1].lower() + after[1:] if after.startswith(("Our ", "The ")) else after
    return Sentence(
        f"the disputed charge {charge.payment_id} is the subscription's renewal of "
        f"{day(charge.paid_at)}, and {after}.",
        kept_on[0].source,
    )


THESES: dict[str, Callable[[Facts], Sentence | None]] = {
    f.__name__: f
    for f in (
        signed_delivery,
        carrier_delivery,
        customer_words,
        verified_delivery,
        avs_rule,
        ce3,
        as_sold,
        credit,
        policy_refusal,
        return_window,
        policy_terms,
        two_purchases,
        distinct_charges,
        digital_delivery,
        uncancelled_renewal,
    )
}


# theses that answer the dispute itself, not the claim: said without "The cardholder says …;"
ON_ITS_OWN = frozenset({"avs_rule"})


def claim(reason: str) -> str:
    """The claim in plain words, as a sentence's start ("The cardholder says …")."""
    words = claim_words(reason) or (
        f"the cardholder disputes this payment (reason given: {reason})"
        if reason.strip() and reason.strip().lower() != "general"
        else "the cardholder disputes this payment"
    )
    words = words.removesuffix(" (fraud)").removesuffix(" (no specific reason given)")
    return words[:1].upper() + words[1:]


def thesis(facts: Facts, argues: bool = True) -> Sentence:
    """The body's first sentence: the claim, answered by the first fact the reason's playbook
    names that the case shows; the claim alone when it shows none, or when our own records
    concede it (`argues` False)."""
    reason = facts.case.dispute.reason
    lead = credit_lead(facts.case)  # a credit before the dispute answers any reason: it leads
    if lead:
        first = lead[0]
        return Sentence(f"{claim(reason)}; {first.text[:1].lower()}{first.text[1:]}", first.source)
    for name in playbook_for(reason).thesis if argues else ():
        said = THESES[name](facts)
        if said is not None and name in ON_ITS_OWN:
            return said
        if said is not None:
            text = said.text[:1].lower() + said.text[1:] if _lower(said.text) else said.text
            return Sentence(f"{claim(reason)}; {text}", said.source)
    return Sentence(f"{claim(reason)}.", "dispute")


def _lower(text: str) -> bool:
    """Whether a sentence's first word is a common word (lower-cased after the semicolon), not
    a name ("UPS's", "Ann Smith wrote")."""
    first = text.split(" ", 1)[0]
    return first in ("The", "A", "An", "Our", "As", "On", "One", "It") or first.islower()


__all__ = ["THESES", "thesis"]
