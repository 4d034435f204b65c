"""Charges from a payments export (Stripe's, or the canonical payments layout): which disputed
order each belongs to, the facts a reviewer reads, and disputed charges no listed dispute covers."""

from __future__ import annotations

from typing import Any

import pandas as pd

from dispute_evidence.ingest.tables import Reject

PAYMENT_TEXT = (
    "payment_id",
    "payment_intent",
    "paid_at",
    "currency",
    "payment_status",
    "customer_email",
    "card_name",
    "card_brand",
    "card_last4",
    "card_funding",
    "card_country",
    "avs_line1_check",
    "avs_zip_check",
    "cvc_check",
    "description",
    "dispute_reason",
    "dispute_status",
)
PAYMENT_NUMBERS = ("payment_amount", "amount_refunded")
OPEN_DISPUTE_STATUSES = ("needs_response", "warning_needs_response")  # Stripe's, awaiting evidence
# a charge in one of these states took no money: it cannot be the one disputed
NOT_CHARGED = frozenset({"failed", "canceled", "cancelled", "incomplete", "uncaptured",
                         "blocked", "declined", "expired", "requires_payment_method"})  # fmt: skip
MAX_PAYMENTS = 5  # an order with more charges than this is unusual; the first few tell the story


def payments_by_order(
    disputes: pd.DataFrame, order_facts: dict[str, dict[str, Any]], payments: pd.DataFrame | None
) -> tuple[pd.DataFrame, dict[str, list[int]], list[Reject]]:
    """Charges of the disputed orders: by order number, or by the order's payment reference
    (a charge or PaymentIntent id). The latest export of each charge wins. Also the charges
    awaiting a dispute response that join no listed dispute."""
    if payments is None or payments.empty:
        return (
            pd.DataFrame(columns=[*PAYMENT_TEXT, *PAYMENT_NUMBERS, "dispute_evidence_due"]),
            {},
            [],
        )
    wanted = set(disputes["order_number"].astype(str))
    by_ref: dict[str, str] = {}
    shared = set()  # a reference on two orders identifies neither
    for order, facts in order_facts.items():
        if (ref := facts.get("payment_reference")) and by_ref.setdefault(ref, order) != order:
            shared.add(ref)
    for ref in shared:
        del by_ref[ref]
    pays = payments.drop_duplicates("payment_id", keep="last")
    order_of = (
        pays["order_number"].astype(str).where(pays["order_number"].astype(str).isin(wanted), "")
    )
    for col in ("payment_id", "payment_intent"):
        via_ref = pays[col].astype(str).map(by_ref).fillna("")
        order_of = order_of.where(order_of != "", via_ref)
    keep = order_of != ""
    unlisted = unlisted_disputes(
        pays.loc[~keep & pays["dispute_status"].isin(OPEN_DISPUTE_STATUSES)]
    )
    pays = pays.loc[keep].reset_index(drop=True)
    groups: dict[str, list[int]] = {}
    for i, order in enumerate(order_of[keep].tolist()):
        groups.setdefault(order, []).append(i)
    return pays, groups, unlisted


def unlisted_disputes(charges: pd.DataFrame) -> list[Reject]:
    out = []
    for c in charges.to_dict("records"):
        order = f"order {c['order_number']}" if c["order_number"] else "no order number"
        reason = (
            f"charge {c['payment_id']} is disputed ({c['dispute_reason'] or 'no reason given'}, "
            f"{c['dispute_status']}) but the disputes list has no dispute for it ({order}); "
            "add its dispute id (dp_…) and order number to the disputes list"
        )
        out.append(
            Reject(c["_file"], c["_sheet"] or None, int(c["_row"]), "id", c["payment_id"], reason)
        )
    return out


def payment_facts(rows: list[int], pc: dict[str, list[Any]]) -> list[dict[str, Any]]:
    facts = []
    for i in rows[:MAX_PAYMENTS]:
        entry: dict[str, Any] = {f: v for f in PAYMENT_TEXT if (v := pc[f][i])}
        entry.update({f: v for f in PAYMENT_NUMBERS if (v := pc[f][i]) is not None})
        facts.append(entry)
    return facts


def due_from_payments(rows: list[int], pc: dict[str, list[Any]]) -> str | None:
    """A deadline the disputes list lacks, from the one disputed charge that states it."""
    dues = {pc["dispute_evidence_due"][i] for i in rows} - {""}
    return dues.pop() if len(dues) == 1 else None


def disputed_charge(
    charges: list[dict[str, Any]], amount: float | None, currency: str | None
) -> dict[str, Any] | None:
    """The charge of an order that the dispute is about: the one the payments export marks as
    disputed, else one that took money, preferring the one whose amount (and currency) is the
    dispute's, and of those the latest (a subscription's renewal, not its first charge). Never
    a failed attempt: an order's first charge is often a declined card."""
    flagged = [c for c in charges if c.get("dispute_status") or c.get("dispute_reason")]
    taken = [c for c in charges if str(c.get("payment_status") or "").lower() not in NOT_CHARGED]
    latest = sorted(flagged or taken, key=lambda c: str(c.get("paid_at") or ""), reverse=True)
    candidates = latest
    for c in candidates:
        if _same_amount(c, amount, currency):
            return c
    return candidates[0] if candidates else None


def _same_amount(charge: dict[str, Any], amount: float | None, currency: str | None) -> bool:
    paid = charge.get("payment_amount")
    if amount is None or paid is None:
        return False
    theirs = str(charge.get("currency") or "").lower()
    if currency and theirs and theirs != currency.lower():
        return False
    return abs(float(paid) - float(amount)) < 0.005
