"""Credits given back on an order, each with its date and reference when the exports give them:
a refund stated without either is weak evidence ("credit not processed" asks for both)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dispute_evidence.evidence.dispute_facts import DisputeFacts

MAX_CREDITS = 3  # stated on a page; the payload keeps up to five (evidence/payments.py)


@dataclass(frozen=True)
class Credit:
    amount: float | None
    currency: str
    on: str  # YYYY-MM-DD, "" when the export gives no date
    reference: str  # the refund's own reference, or the charge refunded
    source: str  # "refunds" (a refunds log) or "payments" (a charge's refunded amount)

    def words(self) -> str:
        """'20.00 INR on 2026-10-05 (reference re_1)': what was credited, when, under what."""
        text = f"{self.amount:,.2f} {self.currency}".strip() if self.amount is not None else ""
        if self.on:
            text += f" on {self.on}"
        if self.reference:
            what = "charge" if self.source == "payments" else "reference"
            text += f" ({what} {self.reference})"
        return text.strip()


def currency_of_order(facts: DisputeFacts) -> str:
    """The order's currency: its total's, else its lines'. A charge or credit whose record
    names no currency is in it (never printed bare: "25,792.00 INR", not "25,792.00")."""
    return facts.order.order_currency or next(
        (str(p.currency) for p in facts.products if p.currency), ""
    )


def credits_of(facts: DisputeFacts) -> tuple[Credit, ...]:
    """The dispute's credits: a refunds log's when it has any, else the refunded amounts of the
    order's charges."""
    order_currency = currency_of_order(facts)
    logged = [
        Credit(
            _amount(r.refund_amount),
            r.currency or order_currency,
            _day(r.refunded_at),
            r.refund_reference,
            "refunds",
        )
        for r in facts.refunds
    ]
    if logged:
        return tuple(logged)
    return tuple(
        Credit(
            _amount(c.amount_refunded),
            c.currency or order_currency,
            _day(c.refunded_at),
            c.payment_id,
            "payments",
        )
        for c in facts.charges
        if (_amount(c.amount_refunded) or 0) > 0
    )


def logged_total(facts: DisputeFacts) -> float | None:
    """What a refunds log credits the order in all (None without one)."""
    amounts = [_amount(r.refund_amount) for r in facts.refunds]
    return sum(a for a in amounts if a) if amounts else None


def _amount(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if f == f else None


def _day(value: Any) -> str:
    text = str(value or "").strip()
    return text[:10] if re.match(r"\d{4}-\d{2}-\d{2}", text) else ""


CENT = 0.005


def same_currency(a: str, b: str) -> bool:
    """Two currencies that are one (a currency not given is taken as the other's)."""
    return not (a and b) or a.strip().upper() == b.strip().upper()


@dataclass(frozen=True)
class CreditCheck:
    """The credits against the disputed amount (issue 44 items 1 and 12): only a credit in the
    dispute's currency is subtracted or counts as covering it; one in another currency is
    stated, never converted."""

    same: float  # credited in the dispute's currency
    other: tuple[Credit, ...]  # in another currency: stated, never subtracted
    before: tuple[Credit, ...]  # in the dispute's currency, dated before the dispute opened
    opened_on: str  # YYYY-MM-DD, "" when not known

    def covers_before(self, disputed: float | None) -> bool:
        """The disputed amount was credited back before the dispute opened: the answer."""
        if disputed is None or disputed <= 0 or not self.before:
            return False
        return sum(x.amount or 0.0 for x in self.before) + CENT >= disputed


def credit_check(
    credits: tuple[Credit, ...],
    refunded: float,
    order_currency: str,
    dispute_currency: str,
    opened_on: str,
) -> CreditCheck:
    """The credits read against the dispute: the exports' credits (each with its currency),
    else the orders export's refunded amount (in the order's currency)."""
    if not credits and refunded > 0:
        credits = (Credit(refunded, order_currency, "", "", "order"),)
    mine = dispute_currency or order_currency
    same = [x for x in credits if same_currency(x.currency or order_currency, mine)]
    other = tuple(x for x in credits if x not in same and (x.amount or 0) > 0)
    before = tuple(x for x in same if x.on and opened_on and x.on < opened_on)
    return CreditCheck(sum(x.amount or 0.0 for x in same), other, before, opened_on)
