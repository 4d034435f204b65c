"""The points a letter argues for four reason families (issue 44 items 7 to 10; shared spec
rebuttal-by-reason.md), each a small named function of the case that says something only when
its fact is there: the disputed renewal and no cancellation before it (subscriptions), the two
purchases side by side or one order paid in parts (duplicates), Visa's AVS full-match rule
(fraud), and the account's use after the purchase and after a claimed cancellation (digital
goods). evidence/letter.py lists them per family, in the order a reviewer reads them.

Every sentence states what the case (evidence/case_record.py) shows and names its source; none says
who a person was. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from dispute_evidence.evidence.case_parts import Event
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.delivery import day
from dispute_evidence.evidence.digital import delivers
from dispute_evidence.evidence.dispute_facts import Activity, Charge, Purchase
from dispute_evidence.evidence.letter_head import money
from dispute_evidence.evidence.reason_checks import VISA_AVS_RULE, split_payment, visa_avs_rule
from dispute_evidence.evidence.sentence import Sentence
from dispute_evidence.evidence.stance import message_stance

TIMELINE_EVENTS = 8  # a letter's timeline: the key events always, the latest others to fill it
USES_SHOWN = 3  # events of the activity log quoted in one sentence
PURCHASES = "purchases"  # source key: the orders, payments and shipments exports, both orders
ACTIVITY = "activity"  # source key: the access or activity log
FILE = "file:"  # a source key naming one document (evidence/letter.py's)


class Cites(Protocol):
    """What a point needs of the letter being written: the case, and how it cites a document."""

    case: CaseFacts

    def cite(self, doc: str, page: int | None) -> str: ...


def _charge(c: Charge) -> str:
    said = f"{c.payment_id} ({money(c.payment_amount, c.currency.upper())}, {day(c.paid_at)})"
    return said.replace(", )", ")").replace(" ()", "")


def _and(items: Sequence[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


# -- subscriptions: the renewal disputed, and no cancellation before it ----------------------
def renewal(f: Cites) -> list[Sentence]:
    """The disputed renewal named as the header names it (the charge of the disputed amount
    before the dispute opened), with the charges of the subscription before it."""
    c = f.case
    charge = c.disputed_charge
    if charge is None or not charge.paid_at:
        return []
    live = sorted(c.live_charges, key=lambda x: x.paid_at)
    before = [x for x in live if x.paid_at < charge.paid_at]
    text = f"The disputed charge is the renewal of {day(charge.paid_at)}: {_charge(charge)}."
    if before:
        count = len(before) + c.charges_elided
        text += (
            f" It follows {count} earlier charge{'s' * (count != 1)} of the same "
            f"subscription, the first on {day(before[0].paid_at)}"
            f" ({before[0].payment_id})."
        )
    return [Sentence(text, "payments")]


def cancel_requests(case: CaseFacts) -> list[tuple[str, str, int, str]]:
    """The customer's messages asking to cancel: (date, document, page, text), oldest first."""
    charge = case.disputed_charge
    charged = day(charge.paid_at) if charge else ""
    return sorted(
        (m.on.isoformat() if m.on else "", doc.name, m.quote.page, m.quote.text)
        for doc in case.documents
        for m in doc.messages
        if "cancel" in message_stance(m.quote.text, "subscription_canceled", m.on, charged).why
    )


def claimed_cancellation(case: CaseFacts) -> str:
    """The date a cancellation was first claimed (a message asking to cancel, else the order's
    cancellation), "" when none is on record."""
    dated = [on for on, *_ in cancel_requests(case) if on]
    return min([*dated, *([case.cancelled_on] if case.cancelled_on else [])], default="")


def no_cancellation(f: Cites) -> list[Sentence]:
    """That no cancellation came before the disputed renewal: the first request on record and
    its date after it, or none on record at all (a request before it concedes: not said here)."""
    c = f.case
    charge = c.disputed_charge
    paid = day(charge.paid_at) if charge else ""
    if not paid:
        return []
    asks = cancel_requests(c)
    if any(on and on < paid for on, *_ in asks) or (c.cancelled_on and c.cancelled_on < paid):
        return []  # conceded (evidence/case_contradictions.py names it), never argued
    if asks:
        on, doc, page, _text = asks[0]
        when = f" is dated {on}" if on else " is undated"
        return [
            Sentence(
                f"The customer's first request to cancel on record ({f.cite(doc, page)})"
                f"{when}, after the renewal of {paid}: no cancellation came before "
                "the disputed charge.",
                FILE + doc,
            )
        ]
    return [
        Sentence(f"Our records hold no request to cancel before the renewal of {paid}.", "order")
    ]


def kept_timeline(events: Sequence[Event], limit: int = TIMELINE_EVENTS) -> tuple[list[Event], str]:
    """The events a letter's timeline shows, oldest first, and a note of those left out ("" when
    none is): every key event (the order, the disputed charge, a cancellation, a message, the
    dispute's opening), then the latest others up to `limit` (issue 44 item 7: a timeline cut
    at 8 lost the renewal disputed)."""
    if len(events) <= limit:
        return list(events), ""
    keep = {i for i, e in enumerate(events) if e.key}
    for i in reversed(range(len(events))):
        if len(keep) >= limit:
            break
        keep.add(i)
    left = [e for i, e in enumerate(events) if i not in keep]
    if not left:
        return list(events), ""
    charges = sum(e.source == "payments" for e in left)
    what = "charges" if charges == len(left) else "events"
    span = left[0].on if len(left) == 1 else f"{left[0].on} to {left[-1].on}"
    return [e for i, e in enumerate(events) if i in keep], (
        f"{len(left)} other {what[:-1] if len(left) == 1 else what} ({span}) not listed here."
    )


# -- duplicates: two purchases side by side, or one order paid in parts ----------------------
def two_purchases(f: Cites) -> list[Sentence]:
    """A duplicate claim's other charge is another order's: the two purchases named, side by
    side (the table under this point shows orders, items, tracking and amounts:
    `purchase_rows`). Only one other charge is ever shown (evidence/duplicates.py)."""
    c, charge = f.case, f.case.disputed_charge
    if not c.other_purchases or charge is None:
        return []
    if any(x.name == "charged twice" for x in c.contradictions):  # this order's own two
        return []
    p = c.other_purchases[0]
    ours = set(x.title for x in c.lines)
    differ = bool(ours) and bool(p.items) and not ours & set(p.items)
    shipped = bool(c.tracking_numbers) and bool(p.tracking_numbers)
    what = (
        "two separate purchases"
        + (" of different items" if differ else "")
        + (", each shipped on its own" if shipped else "")
    )
    return [
        Sentence(
            f"The charge disputed, {_charge(charge)}, paid for order {c.order_number}; the other "
            f"charge of {money(charge.payment_amount, charge.currency.upper())} that day paid for "
            f"order {p.order_number} ({p.payment_id}): {what}, as the table below shows.",
            PURCHASES,
        )
    ]


def purchase_rows(case: CaseFacts) -> tuple[tuple[str, ...], ...]:
    """The disputed order and each other purchase side by side: order, charge, amount, items,
    tracking, shipped."""
    charge = case.disputed_charge
    if not case.other_purchases or charge is None:
        return ()
    ours = Purchase(
        case.order_number,
        charge.payment_id,
        charge.paid_at,
        charge.payment_amount,
        charge.currency,
        tuple(dict.fromkeys(x.title for x in case.lines)),
        case.tracking_numbers,
        min((s.shipped_on for s in case.shipments if s.shipped_on), default=""),
    )
    shown = (ours, case.other_purchases[0])  # exactly the two
    rows = [
        ("", *(f"Order {p.order_number}" for p in shown)),
        ("Charge", *(f"{p.payment_id} · {day(p.paid_at)}".strip(" ·") for p in shown)),
        ("Amount", *(money(p.amount, p.currency.upper()) for p in shown)),
        ("Items", *(", ".join(p.items) for p in shown)),
        ("Tracking", *(", ".join(p.tracking_numbers) for p in shown)),
        ("Shipped", *(day(p.shipped_at) for p in shown)),
    ]
    return tuple(r for r in rows if any(r[1:]))


def paid_in_parts(f: Cites) -> list[Sentence]:
    """Two charges of one amount that together pay the order's total: one purchase paid in
    parts (a 128.00 order paid by two 64.00 charges), not charged twice."""
    c = f.case
    live = sorted(c.live_charges, key=lambda x: x.paid_at)
    total = c.order_value
    if c.other_purchases or not split_payment(live, total):
        return []
    return [
        Sentence(
            f"Order {c.order_number} came to {money(total, (c.currency or live[0].currency).upper())} "
            f"and was paid in {len(live)} parts: {_and([_charge(x) for x in live])}. Together they "
            "pay the one order once; no charge was taken twice.",
            "payments",
        )
    ]


def statement_answers(f: Cites) -> list[Sentence]:
    """A duplicate claim answered by the merchant's statement (why the charges differ): a
    point that the statement below makes, so the letter argues and asks for the reversal."""
    if not f.case.statement:
        return []
    return [
        Sentence(
            "Why the charges are not a duplicate is set out in the merchant's statement below.",
            "statement",
        )
    ]


# -- fraud: Visa's April 2026 rule, before the merits ---------------------------------------
def avs_rule(f: Cites) -> list[Sentence]:
    """Visa's AVS full-match rule, its conditions each shown for the charge (the thesis says
    the dispute is invalid; this point lets the reviewer check why)."""
    c = f.case
    rule = visa_avs_rule(c.disputed_charge, c.merchant_country, code=c.dispute.network_reason_code)
    if rule is None:
        return []
    return [
        Sentence(
            f"{VISA_AVS_RULE} makes a card-absent fraud dispute invalid on a US, "
            "Canadian or UK domestic transaction from 23 October 2026 whose address "
            f"check fully matched. Charge {rule.charge} meets each condition: a Visa "
            f"card issued in {rule.where}, the merchant's country; paid on "
            f"{rule.paid}; street and postcode checks both passed.",
            "payments",
        )
    ]


# -- digital goods and services: what was delivered is use ----------------------------------
def _when(at: str) -> str:
    """ "2026-11-20T08:05:00Z" as "2026-11-20 08:05 UTC" (the ingest writes times in UTC)."""
    if len(at) >= 16 and at[10] == "T":
        return f"{at[:10]} {at[11:16]} UTC"
    return at


def _seen(ip: str, device: str) -> str:
    """ " from IP address …, device …" ("" when the log gives neither)."""
    seen = ", ".join(
        x for x in (f"IP address {ip}" if ip else "", f"device {device}" if device else "") if x
    )
    return f" from {seen}" if seen else ""


def _use(a: Activity) -> str:
    return f"{a.event} on {_when(a.at)}" + _seen(a.ip, a.device)


def _since_purchase(c: CaseFacts) -> tuple[str, list[Activity]]:
    """The purchase's day and the account's events from it on."""
    charge = c.disputed_charge
    start = day(charge.paid_at) if charge else c.order_date
    return start, [a for a in c.activity if a.at[:10] >= start] if start else list(c.activity)


def _uses(events: Sequence[Activity]) -> str:
    """Events as logged, with their time; an IP and device all of them share said once."""
    seen = {(a.ip, a.device) for a in events}
    if len(events) > 1 and len(seen) == 1 and any(next(iter(seen))):
        each = ", both" if len(events) == 2 else ", all"
        return (
            _and([f"{a.event} on {_when(a.at)}" for a in events]) + each + _seen(*next(iter(seen)))
        )
    return _and([_use(a) for a in events])


def use_after_purchase(f: Cites) -> list[Sentence]:
    """The account's use after the purchase, from the merchant's access log: how many events,
    the deliveries first (a download, an activation: what delivers a licence), then the
    latest, with their IP and device."""
    c = f.case
    start, used = _since_purchase(c)
    if not used:
        return []
    count = max(c.activity_total, len(used)) if len(used) == len(c.activity) else len(used)
    account = used[0].account
    first = [a for a in used if delivers(a.event)][: USES_SHOWN - 1] or used[:1]
    latest = [a for a in used if a not in first][-(USES_SHOWN - len(first)) :]
    listed = sorted(dict.fromkeys([*first, *latest]), key=lambda a: a.at)
    since = f" after the purchase on {start}" if start else ""
    whose = f"The account {account}" if account else "The customer's account"
    among = ": " if len(listed) >= count else ", among them: "  # never more uses than listed
    return [
        Sentence(
            f"{whose} was used {count} time{'s' * (count != 1)}{since}, per the "
            f"access log{among}{_and([_use(a) for a in listed])}.",
            ACTIVITY,
        )
    ]


def digital_delivery(f: Cites) -> list[Sentence]:
    """A digital order's delivery: the download or activation the access log shows on the
    buyer's account after the purchase (what delivers a licence), and its use since; nothing
    for an order of physical goods (the log is never matched to one: evidence/activity.py)."""
    c = f.case
    start, used = _since_purchase(c)
    if not used or c.shipments or c.tracking_numbers:
        return []
    delivered = [a for a in used if delivers(a.event)][: USES_SHOWN - 1]
    count = max(c.activity_total, len(used)) if len(used) == len(c.activity) else len(used)
    whose = f"the account {used[0].account}" if used[0].account else "the customer's account"
    after = f" after the purchase on {start}" if start else ""
    if not delivered:
        return [
            Sentence(
                f"the access log (its events listed on the data sheet) shows {whose} "
                f"used {count} time"
                f"{'s' * (count != 1)}{after}, the first {_use(used[0])}.",
                ACTIVITY,
            )
        ]
    text = (
        f"the access log (its events listed on the data sheet) shows order {c.order_number} "
        f"delivered to {whose}{after}: "
        f"{_uses(delivered)}"
    )
    rest = [a for a in used if a not in delivered]
    if rest:
        text += (
            f"; the account was used {count} time{'s' * (count != 1)} in all, the latest "
            f"{rest[-1].event} on {_when(rest[-1].at)}"
        )
    return [Sentence(text + ".", ACTIVITY)]


def use_after_cancellation(f: Cites) -> list[Sentence]:
    """The account's use after the cancellation the customer claims (subscriptions)."""
    c = f.case
    claimed = claimed_cancellation(c)
    after = [a for a in c.activity if claimed and a.at[:10] > claimed]
    if not after:
        return []
    last = after[-1]
    return [
        Sentence(
            f"After the cancellation claimed on {claimed}, the account was used "
            f"{len(after)} more time{'s' * (len(after) != 1)}, per the access log, the "
            f"latest {_use(last)}.",
            ACTIVITY,
        )
    ]
