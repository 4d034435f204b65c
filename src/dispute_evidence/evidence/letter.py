"""The rebuttal letter: page 1 of the evidence summary, a short argument per reason family made
only of facts the payload holds, each sentence naming its source.

Rules: a sentence is written only when its fact is there (a missing fact leaves its sentence
out); nothing is asserted that the data does not show: "delivered" needs a delivery date or a
status that says delivered, and neither contradicted (a later status such as "in transit" or
"returned" on the same shipment, a status saying "not delivered"); a check is called passed
only when the export says "pass". Deterministic: the same payload, files and sources give the
same sentences in the same order. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

FAMILIES = {
    "fraudulent": "fraud",
    "unrecognized": "fraud",
    "product_not_received": "not_received",
    "product_unacceptable": "not_as_described",
    "credit_not_processed": "credit_not_processed",
    "subscription_canceled": "subscription_canceled",
    "duplicate": "duplicate",
}
REASON_WORDS = {
    "fraudulent": "the cardholder says they did not authorise this payment (fraud)",
    "unrecognized": "the cardholder does not recognise this payment",
    "product_not_received": "the cardholder says the goods were not received",
    "product_unacceptable": "the cardholder says the goods were not as described or were defective",
    "credit_not_processed": "the cardholder says a refund or credit they were owed was not processed",
    "subscription_canceled": "the cardholder says they were charged after cancelling a subscription",
    "duplicate": "the cardholder says they were charged more than once for one purchase",
}
# Source keys: what a sentence rests on. The engine may name the file and row of each.
SOURCE_WORDS = {
    "dispute": "the disputes list",
    "order": "the orders export",
    "payments": "the payments export",
    "shipments": "the shipments sheet",
    "history": "the order history (orders and payments exports, every file read so far)",
    "files": "the files attached to this dispute",
}
SOURCE_TITLES = {
    "dispute": "The dispute",
    "order": "The order",
    "payments": "The payment",
    "shipments": "The shipment",
    "history": "Earlier orders on the card",
    "files": "Attached documents",
}
MAX_ITEMS = 5  # products or files named in one sentence
_NOT_DELIVERED = re.compile(r"\b(not|un|non)[ -]?deliver|fail|return|attempt|exception|lost")


@dataclass(frozen=True)
class Sentence:
    text: str
    source: str  # a SOURCE_WORDS key


@dataclass(frozen=True)
class Letter:
    family: str
    reason_line: str  # the dispute in plain words (what the cardholder says, not our claim)
    reason_source: str
    context: tuple[Sentence, ...]  # the order itself: what is disputed, not an argument
    sentences: tuple[Sentence, ...]  # our claims, each backed by one fact

    @property
    def claims(self) -> bool:
        return bool(self.sentences)

    def sources(self) -> list[str]:
        """The source keys, in first-use order (the appendix numbers them so)."""
        keys = [self.reason_source] if self.reason_source else []
        keys += [s.source for s in (*self.context, *self.sentences)]
        return list(dict.fromkeys(keys))


def family_of(reason: str) -> str:
    return FAMILIES.get(reason.strip().lower(), "general")


def _money(amount: Any, currency: Any) -> str:
    try:
        value = float(amount)
    except (TypeError, ValueError):
        return ""
    return f"{value:,.2f} {currency or ''}".strip()


def _day(value: Any) -> str:
    return str(value or "")[:10]


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


def _list(items: list[str]) -> str:
    shown = items[:MAX_ITEMS]
    more = f" and {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else ""
    return (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]) + more


def delivered(shipment: dict[str, Any]) -> str | None:
    """The delivery date (or "" when only the status says so), or None when not shown delivered."""
    status = str(shipment.get("delivery_status") or "").lower()
    if status and (_NOT_DELIVERED.search(status) or "deliver" not in status):
        return None  # "in transit", "returned", "not delivered": never call it delivered
    if shipment.get("delivered_at"):
        return _day(shipment["delivered_at"])
    return "" if status else None


class _Facts:
    """The payload's facts, read once, with the sentences each makes."""

    def __init__(self, payload: dict[str, Any], attached: list[str]) -> None:
        self.extra = dict(payload.get("additional_evidence") or {})
        self.products = list(payload.get("products") or [])
        self.charges = [dict(c) for c in self.extra.get("payments") or []]
        self.shipments = [dict(s) for s in self.extra.get("shipments") or []]
        self.attached = attached
        self.dispute = dict(self.extra.get("dispute") or {})

    def reason(self) -> str:
        own = self.dispute.get("reason") or next(
            (c["dispute_reason"] for c in self.charges if c.get("dispute_reason")), ""
        )
        return str(own)

    def order(self) -> list[Sentence]:
        e, out = self.extra, []
        total = _money(e.get("order_total"), e.get("order_currency"))
        if e.get("order_date"):
            worth = f" for {total}" if total else ""
            out.append(
                Sentence(
                    f"Order {e['order_number']} was placed on {_day(e['order_date'])}{worth}.",
                    "order",
                )
            )
        if self.products:
            names = [
                f"{p.get('product_title', '')} × {_qty(p.get('quantity'))}" for p in self.products
            ]
            out.append(Sentence(f"It was for: {_list(names)}.", "order"))
        return out  # fmt: skip

    def customer(self) -> list[Sentence]:
        e = self.extra
        who = " ".join(
            x
            for x in (
                e.get("customer_name"),
                f"<{e['customer_email']}>" if e.get("customer_email") else "",
            )
            if x
        )
        return [Sentence(f"The order was placed by {who}.", "order")] if who else []  # fmt: skip

    def card_checks(self) -> list[Sentence]:
        for c in self.charges:
            passed = [label for key, label in (("avs_line1_check", "the billing street address"),
                      ("avs_zip_check", "the billing postcode"), ("cvc_check", "the card security code (CVC)"))
                      if str(c.get(key, "")).lower() == "pass"]  # fmt: skip
            if passed:
                card = (
                    f" ({c['card_brand']} ending {c['card_last4']})"
                    if c.get("card_brand") and c.get("card_last4")
                    else ""
                )
                return [Sentence(f"The card issuer's checks on charge {c.get('payment_id', '')}{card} passed for {_list(passed)}.", "payments")]  # fmt: skip
        return []

    def same_address(self) -> list[Sentence]:
        bill, ship = self.extra.get("billing_address"), self.extra.get("shipping_address")
        if bill and ship and _norm(bill) == _norm(ship):
            return [
                Sentence(
                    f"The billing address and the shipping address are the same: {ship}.", "order"
                )
            ]
        return []

    def shipped(self) -> list[Sentence]:
        out = []
        for s in self.shipments[:MAX_ITEMS]:
            if not s.get("shipped_at") and not s.get("tracking_number"):
                continue
            when = f" on {_day(s['shipped_at'])}" if s.get("shipped_at") else ""
            how = f" with {s['carrier']}" if s.get("carrier") else ""
            track = f", tracking number {s['tracking_number']}" if s.get("tracking_number") else ""
            out.append(Sentence(f"The order was shipped{when}{how}{track}.", "shipments"))
        if out and self.extra.get("shipping_address"):
            out.append(Sentence(f"It was sent to {self.extra['shipping_address']}.", "order"))
        return out

    def delivery(self) -> list[Sentence]:
        out = []
        for s in self.shipments[:MAX_ITEMS]:
            when = delivered(s)
            if when is None:
                continue
            on = f" on {when}" if when else ""
            track = f" (tracking number {s['tracking_number']})" if s.get("tracking_number") else ""
            out.append(
                Sentence(f"The carrier records the order as delivered{on}{track}.", "shipments")
            )
        return out

    def refund(self) -> list[Sentence]:
        e = self.extra
        amount = float(e.get("refunded_amount") or 0)
        if amount > 0:
            return [
                Sentence(
                    f"A refund of {_money(amount, e.get('order_currency'))} was issued on this order.",
                    "order",
                )
            ]
        for c in self.charges:
            if float(c.get("amount_refunded") or 0) > 0:
                return [Sentence(f"Charge {c.get('payment_id', '')} shows {_money(c['amount_refunded'], c.get('currency'))} refunded.", "payments")]  # fmt: skip
        return []

    def charge_list(self) -> list[Sentence]:
        if not self.charges:
            return []
        parts = [f"{c.get('payment_id', '')} ({_money(c.get('payment_amount'), c.get('currency'))}, {_day(c.get('paid_at'))})".replace(", )", ")")
                 for c in self.charges]  # fmt: skip
        one = "one charge" if len(parts) == 1 else f"{len(parts)} charges"
        return [
            Sentence(f"Our payments export shows {one} for this order: {_list(parts)}.", "payments")
        ]

    def descriptions(self) -> list[Sentence]:
        for c in self.charges:
            if c.get("description"):
                return [Sentence(f"The charge was described as: {c['description']}.", "payments")]
        return []

    def ce3(self) -> list[Sentence]:
        priors = list((self.extra.get("visa_ce3") or {}).get("prior_transactions") or [])
        if len(priors) < 2:
            return []
        told = [
            f"order {p['order_number']} on {p['date']} (matching {_list(list(p['matched']))})"
            for p in priors
        ]
        return [Sentence("Visa Compelling Evidence 3.0: the same card paid for earlier orders that were "
                         f"never disputed, {_list(told)}.", "history")]  # fmt: skip

    def files(self) -> list[Sentence]:
        if not self.attached:
            return []
        return [Sentence(f"Attached as supporting documents: {_list(self.attached)}.", "files")]


def _qty(q: Any) -> str:
    try:
        f = float(q)
    except (TypeError, ValueError):
        return str(q or "")
    return str(int(f)) if f.is_integer() else f"{f:g}"


# Per family: which facts argue the case, in the order a reviewer reads them.
_ARGUMENTS: dict[str, tuple[Callable[[_Facts], list[Sentence]], ...]] = {
    "fraud": (_Facts.ce3, _Facts.card_checks, _Facts.same_address, _Facts.customer,
              _Facts.shipped, _Facts.delivery, _Facts.files),
    "not_received": (_Facts.shipped, _Facts.delivery, _Facts.files),
    "not_as_described": (_Facts.delivery, _Facts.refund, _Facts.files),
    "credit_not_processed": (_Facts.refund, _Facts.delivery, _Facts.files),
    "subscription_canceled": (_Facts.charge_list, _Facts.descriptions, _Facts.customer, _Facts.files),
    "duplicate": (_Facts.charge_list, _Facts.files),
    "general": (_Facts.customer, _Facts.shipped, _Facts.delivery, _Facts.files),
}  # fmt: skip


def reason_line(reason: str, code: str, brand: str, amount: str = "") -> str:
    """The dispute in plain words, with the network's reason code when an export gives one."""
    words = REASON_WORDS.get(reason.strip().lower())
    head = f"The dispute ({amount})" if amount else "The dispute"
    if words:
        text = f"{head}: {words}."
    elif reason and reason.strip().lower() != "general":
        text = f"{head}: the cardholder disputes this payment (reason given: {reason})."
    else:
        text = f"{head}: the cardholder disputes this payment (no specific reason given)."
    if code:
        network = f"{brand} reason code" if brand else "Network reason code"
        text = text[:-1] + f"; {network} {code}."
    return text


def build_letter(payload: dict[str, Any], attached: list[str]) -> Letter:
    """The letter for one dispute's payload and the files attached to it."""
    facts = _Facts(payload, attached)
    reason = facts.reason()
    family = family_of(reason)
    code = str(facts.dispute.get("network_reason_code") or "")
    brand = next((str(c["card_brand"]) for c in facts.charges if c.get("card_brand")), "")
    sentences: list[Sentence] = []
    for make in _ARGUMENTS[family]:
        sentences += [s for s in make(facts) if s not in sentences]
    source = "dispute" if (facts.dispute or code) else ("payments" if reason else "")
    amount = _money(facts.dispute.get("amount"), facts.dispute.get("currency"))
    return Letter(
        family,
        reason_line(reason, code, brand, amount),
        source,
        tuple(facts.order()),
        tuple(sentences),
    )
