"""A duplicate claim's other charge (issue 44 item 8): the one charge the cardholder says
duplicated the disputed one. It is another order's charge of the same amount, on the same day,
on the same card (or, without card facts, by the same customer), and the nearest in time to the
disputed charge. It must also be that order's own purchase: the order is in the orders export
with its items, the charge is the order's first (a renewal of an unrelated subscription is not
a purchase made beside this one), and it has its own shipment when this order has one (a
tracking number of its own, never this order's).

The letter shows exactly the two purchases side by side (orders, items, tracking, amounts;
evidence/reason_points.py). When no single charge is certain (two or more equally near, or the
merchant's statement names none of them), none is shown: the analyst is told which charges it
could be (`Counterpart.unsure`), and the merchant's statement naming one (its charge id or order
number) settles it.

Built once per build, and only when a duplicate dispute asks: the payments export's charges
grouped by amount and day. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pandas as pd

from dispute_evidence.evidence.dispute_facts import Charge, OrderFacts, Purchase
from dispute_evidence.evidence.payments import NOT_CHARGED

_IDENTITY = ("card_fingerprint", "card_last4", "customer_email")


def _cents(value: Any) -> int | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if f != f else round(f * 100)


def _seconds(at: Any) -> float | None:
    """A charge's time as seconds (a day alone: its midnight), None when unreadable."""
    text = str(at or "").strip().replace("T", " ").removesuffix("Z")[:19]
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


@dataclass(frozen=True)
class Counterpart:
    """The other charge a duplicate claim names: the purchase it paid for, when one alone is
    certain; else the charges it could be ("ch_B (order 5001)"), for the analyst."""

    purchase: Purchase | None = None
    unsure: tuple[str, ...] = ()


@dataclass
class SameDayCharges:
    """The payments export's charges that took money, by (amount in cents, day)."""

    records: dict[str, pd.DataFrame]
    _by_key: dict[tuple[int, str], list[dict[str, Any]]] | None = field(default=None, init=False)
    _first: dict[str, str] = field(default_factory=dict, init=False)  # order -> first charge id

    def _index(self) -> dict[tuple[int, str], list[dict[str, Any]]]:
        if self._by_key is None:
            self._by_key = {}
            pays = self.records.get("payments")
            if pays is not None and not pays.empty:
                pays = pays.drop_duplicates("payment_id", keep="last")
                taken = ~pays["payment_status"].astype(str).str.lower().isin(NOT_CHARGED)
                rows = sorted(
                    pays.loc[taken].to_dict("records"), key=lambda r: str(r.get("paid_at") or "")
                )
                for row in rows:
                    cents, on = _cents(row.get("payment_amount")), str(row.get("paid_at"))[:10]
                    self._first.setdefault(
                        str(row.get("order_number") or ""), str(row.get("payment_id") or "")
                    )
                    if cents is not None and on:
                        self._by_key.setdefault((cents, on), []).append(row)
        return self._by_key

    def counterpart(
        self,
        order: OrderFacts,
        charge: Charge | None,
        tracking: Sequence[str] = (),
        statement: str = "",
    ) -> Counterpart:
        """The other order's purchase the disputed charge is said to duplicate: of its amount,
        on its day, on the same card, another order's own first charge, with its items (and
        its own shipment when this order has one); the nearest in time, or the one the
        merchant's statement names. None certain: the candidates, for the analyst."""
        if charge is None or charge.payment_amount is None or not charge.paid_at:
            return Counterpart()
        rows = self._index().get((_cents(charge.payment_amount) or 0, charge.paid_at[:10]), [])
        mine = {
            "customer_email": order.customer_email or charge.customer_email,
            "card_last4": charge.card_last4,
        }
        mine |= {
            k: str(r.get(k) or "")
            for r in rows
            if r.get("payment_id") == charge.payment_id
            for k in ("card_fingerprint",)
        }
        found = [
            r
            for r in rows
            if str(r.get("order_number") or "") not in ("", order.order_number)
            and r.get("payment_id") != charge.payment_id
            and _same_payer(mine, r)
            and self._first.get(str(r["order_number"])) == str(r.get("payment_id") or "")
        ]
        shown = [(r, self._purchase(r)) for r in found]
        ours = set(tracking)
        shown = [
            (r, p)
            for r, p in shown
            if p.items and not ours & set(p.tracking_numbers) and (p.tracking_numbers or not ours)
        ]
        if not shown:
            return Counterpart()
        named = [(r, p) for r, p in shown if _names(statement, p)]
        if len(named) == 1:
            return Counterpart(named[0][1])
        at = _seconds(charge.paid_at)
        gaps = [
            abs((_seconds(r.get("paid_at")) or 0.0) - at) if at is not None else 0.0
            for r, _ in shown
        ]
        nearest = [p for (_, p), gap in zip(shown, gaps, strict=True) if gap == min(gaps)]
        if len(nearest) == 1:
            return Counterpart(nearest[0])
        return Counterpart(
            unsure=tuple(f"{p.payment_id} (order {p.order_number})" for p in nearest)
        )

    def _purchase(self, row: dict[str, Any]) -> Purchase:
        number = str(row["order_number"])
        lines = _rows_of(self.records.get("orders"), number)
        ships = _rows_of(self.records.get("shipments"), number)
        tracking = tuple(dict.fromkeys(t for t in _texts(ships, "tracking_number") if t))
        shipped = min((d for d in _texts(ships, "shipped_at") if d), default="")
        delivered = max((d for d in _texts(ships, "delivered_at") if d), default="")
        amount = float(row["payment_amount"])
        return Purchase(
            number,
            str(row.get("payment_id") or ""),
            str(row.get("paid_at") or ""),
            int(amount) if amount.is_integer() else amount,
            str(row.get("currency") or ""),
            tuple(dict.fromkeys(t for t in _texts(lines, "product_title") if t)),
            tracking,
            shipped,
            delivered,
        )


def _names(statement: str, p: Purchase) -> bool:
    """Whether the merchant's statement names this purchase: its charge id or order number."""
    words = set(re.findall(r"[\w-]+", statement.lower()))
    return bool(words & {p.payment_id.lower(), p.order_number.lower().lstrip("#")} - {""})


def _same_payer(mine: dict[str, str], row: dict[str, Any]) -> bool:
    """The same card (its fingerprint, else its last 4 digits), else the same customer email:
    the first identity both sides give decides."""
    for key in _IDENTITY:
        ours, theirs = str(mine.get(key) or "").strip().lower(), str(row.get(key) or "").strip()
        if ours and theirs:
            return ours == theirs.lower()
    return False


def _rows_of(frame: pd.DataFrame | None, order: str) -> pd.DataFrame | None:
    if frame is None or frame.empty:
        return None
    return frame.loc[frame["order_number"].astype(str) == order]


def _texts(frame: pd.DataFrame | None, column: str) -> Sequence[str]:
    if frame is None or column not in frame:
        return []
    return [str(v) for v in frame[column].fillna("").tolist()]
