"""Charges from a payments export (Stripe's, or the canonical payments layout): which disputed
order each belongs to, the facts a reviewer reads, and disputed charges no listed dispute covers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.evidence.amounts import payload_numbers
from dispute_evidence.evidence.dispute_facts import Charge, DisputeFacts, Refund
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
    "refunded_at",
    "arn",
    "authorization_code",
)
PAYMENT_NUMBERS = ("payment_amount", "amount_refunded")
OPEN_DISPUTE_STATUSES = ("needs_response", "warning_needs_response")  # Stripe's, awaiting evidence
# a charge in one of these states took no money: it cannot be the one disputed
NOT_CHARGED = frozenset(
    {
        "failed",
        "canceled",
        "cancelled",
        "incomplete",
        "uncaptured",
        "blocked",
        "declined",
        "expired",
        "requires_payment_method",
    }
)
# an order's charges kept: the first (a subscription's sign-up) and the latest, every charge the
# export flags as disputed among them; the ones between are counted, never silently lost
MAX_PAYMENTS = 13  # a sign-up and a year of monthly renewals


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


@dataclass(frozen=True)
class UnjoinedCharges:
    """A payments file's charges that join no order of the orders export."""

    line: Reject
    none_join: bool  # not one of the file's charges joins: its order column is likely wrong


def unjoined_charges(payments: pd.DataFrame | None, orders: pd.DataFrame) -> list[UnjoinedCharges]:
    """Per payments file, its charges that join no order, by number or by the order's payment
    reference: one line with their count and what to check. Said only when both exports are
    there (with no orders yet, no charge could join)."""
    if payments is None or payments.empty or orders.empty:
        return []
    refs = set(orders["payment_reference"].astype(str)) - {""}
    pays = payments.drop_duplicates("payment_id", keep="last")
    joins = (
        pays["order_number"].astype(str).isin(set(orders["order_number"].astype(str)))
        | pays["payment_id"].astype(str).isin(refs)
        | pays["payment_intent"].astype(str).isin(refs)
    )
    out = []
    for (file, sheet), joined in joins.groupby([pays["_file"], pays["_sheet"].fillna("")]):
        if joined.all():
            continue
        numbers = pays.loc[joined.index[~joined], "order_number"].astype(str)
        out.append(
            UnjoinedCharges(
                _unjoined_line(str(file), str(sheet), numbers, len(joined)),
                none_join=not joined.any(),
            )
        )
    return out


def _unjoined_line(file: str, sheet: str, numbers: pd.Series, total: int) -> Reject:
    carried = sorted(set(numbers) - {""})
    shown = ", ".join(carried[:3]) + (", …" if len(carried) > 3 else "")
    carry = (
        f"the order numbers they carry ({shown}) are none of the orders export's"
        if carried
        else "they carry no order number"
    )
    reason = (
        f"{len(numbers)} of {total} charges join no order: {carry}, and no order's payment "
        "reference names them. Check that the column read as the order number holds the shop's "
        "order numbers (Stripe: the `(metadata)` column the shop writes them to; map payments' "
        "order_number to it otherwise), and that the orders export covers these charges' orders"
    )
    return Reject(file, sheet or None, None, None, None, reason)


REFUND_TEXT = ("refunded_at", "refund_reference", "currency")
MAX_REFUNDS = 5


def refunds_by_order(refunds: pd.DataFrame | None, wanted: set[str]) -> dict[str, list[Refund]]:
    """Each disputed order's refunds from a refunds log: amount, date, reference, earliest
    first. A refund listed again (same reference; or, without one, the same amount and date)
    counts once, its latest listing winning."""
    if refunds is None or refunds.empty:
        return {}
    rows = refunds.loc[refunds["order_number"].astype(str).isin(wanted)]
    has_ref = rows["refund_reference"].astype(str) != ""
    rows = pd.concat(
        [
            rows.loc[has_ref].drop_duplicates(["order_number", "refund_reference"], keep="last"),
            rows.loc[~has_ref].drop_duplicates(
                ["order_number", "refund_amount", "refunded_at"], keep="last"
            ),
        ]
    ).sort_values("refunded_at", kind="stable")
    amounts = payload_numbers(rows["refund_amount"])
    out: dict[str, list[Refund]] = {}
    texts = zip(*(rows[f].astype(str).tolist() for f in REFUND_TEXT), strict=True)
    for order, amount, text in zip(rows["order_number"].astype(str), amounts, texts, strict=True):
        entry = Refund(amount, **dict(zip(REFUND_TEXT, text, strict=True)))
        if len(out.setdefault(order, [])) < MAX_REFUNDS:
            out[order].append(entry)
    return out


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


def payment_facts(rows: list[int], pc: dict[str, list[Any]]) -> tuple[tuple[Charge, ...], int]:
    """The order's charges as typed facts, oldest first, and how many were left out: of more
    than MAX_PAYMENTS, the first (the sign-up) and the latest are kept, and every charge the
    export flags as disputed (issue 44 item 7: a sixth renewal was lost from the letter)."""
    kept = kept_charges(rows, pc["paid_at"], pc["dispute_status"], pc["dispute_reason"])
    charges = tuple(
        Charge(
            **{f: v for f in PAYMENT_TEXT if (v := pc[f][i])},
            **{f: v for f in PAYMENT_NUMBERS if (v := pc[f][i]) is not None},
        )
        for i in kept
    )
    return charges, len(rows) - len(kept)


def kept_charges(
    rows: list[int], paid: list[str], *flags: list[str], limit: int = MAX_PAYMENTS
) -> list[int]:
    """Which of an order's charge rows are kept, oldest first (an undated one last, in the
    export's order): all of them up to `limit`; else the first, the latest and the flagged."""
    ordered = sorted(rows, key=lambda i: (not paid[i], paid[i]))
    if len(ordered) <= limit:
        return ordered
    flagged = [i for i in ordered if any(f[i] for f in flags)]
    chosen = {ordered[0], *flagged[: limit - 1]}
    for i in reversed(ordered):
        if len(chosen) >= limit:
            break
        chosen.add(i)
    return [i for i in ordered if i in chosen]


def due_from_payments(rows: list[int], pc: dict[str, list[Any]]) -> str | None:
    """A deadline the disputes list lacks, from the one disputed charge that states it."""
    dues = {pc["dispute_evidence_due"][i] for i in rows} - {""}
    return dues.pop() if len(dues) == 1 else None


def disputed_charge(
    charges: Sequence[Charge], amount: float | None, currency: str | None, opened: str = ""
) -> Charge | None:
    """The charge of an order that the dispute is about: the one the payments export marks as
    disputed, else one that took money, preferring the one whose amount (and currency) is the
    dispute's, and of those the latest (a subscription's renewal, not its first charge) made
    before the dispute opened (`opened`, YYYY-MM-DD, when known: a renewal after it is not the
    one disputed). Never a failed attempt: an order's first charge is often a declined card."""
    flagged = [c for c in charges if c.dispute_status or c.dispute_reason]
    taken = [c for c in charges if c.payment_status.lower() not in NOT_CHARGED]
    if opened and not flagged:
        taken = [c for c in taken if c.paid_at[:10] <= opened] or taken
    candidates = sorted(flagged or taken, key=lambda c: c.paid_at, reverse=True)
    for c in candidates:
        if _same_amount(c, amount, currency):
            return c
    return candidates[0] if candidates else None


def disputed_of(facts: DisputeFacts) -> Charge | None:
    """The disputed charge of a dispute's facts (as its case finds it)."""
    c = facts.claim
    amount = None if c.amount is None else float(c.amount)
    return disputed_charge(facts.charges, amount, c.currency, c.opened_on[:10])


def _same_amount(charge: Charge, amount: float | None, currency: str | None) -> bool:
    paid = charge.payment_amount
    if amount is None or paid is None:
        return False
    theirs = charge.currency.lower()
    if currency and theirs and theirs != currency.lower():
        return False
    return abs(float(paid) - float(amount)) < 0.005
