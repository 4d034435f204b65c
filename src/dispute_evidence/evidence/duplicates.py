"""A duplicate claim's other charge (issue 44 item 8): the charge of the same amount, on the same
day, on the same card (or, without card facts, by the same customer) that paid for another
order. Such a pair is two purchases, not one charged twice: the letter shows them side by side
(orders, items, tracking, amounts; evidence/reason_points.py).

Built once per build, and only when a duplicate dispute asks: the payments export's charges
grouped by amount and day. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dispute_evidence.evidence.facts import Charge, OrderFacts, Purchase
from dispute_evidence.evidence.payments import NOT_CHARGED

MAX_OTHERS = 2  # other purchases shown beside the disputed one
_IDENTITY = ("card_fingerprint", "card_last4", "customer_email")


def _cents(value: Any) -> int | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if f != f else round(f * 100)


@dataclass
class SameDayCharges:
    """The payments export's charges that took money, by (amount in cents, day)."""

    records: dict[str, pd.DataFrame]
    _by_key: dict[tuple[int, str], list[dict[str, Any]]] | None = field(default=None, init=False)

    def _index(self) -> dict[tuple[int, str], list[dict[str, Any]]]:
        if self._by_key is None:
            self._by_key = {}
            pays = self.records.get("payments")
            if pays is not None and not pays.empty:
                pays = pays.drop_duplicates("payment_id", keep="last")
                taken = ~pays["payment_status"].astype(str).str.lower().isin(NOT_CHARGED)
                for row in pays.loc[taken].to_dict("records"):
                    cents, on = _cents(row.get("payment_amount")), str(row.get("paid_at"))[:10]
                    if cents is not None and on:
                        self._by_key.setdefault((cents, on), []).append(row)
        return self._by_key

    def others(self, order: OrderFacts, charge: Charge | None) -> tuple[Purchase, ...]:
        """The other orders paid by a charge of this charge's amount on its day, on the same
        card (fingerprint, else last 4 digits) or, without card facts, by the same customer."""
        if charge is None or charge.payment_amount is None or not charge.paid_at:
            return ()
        cents = _cents(charge.payment_amount)
        rows = self._index().get((cents or 0, charge.paid_at[:10]), [])
        mine = {"customer_email": order.customer_email or charge.customer_email,
                "card_last4": charge.card_last4}  # fmt: skip
        mine |= {k: str(r.get(k) or "") for r in rows if r.get("payment_id") == charge.payment_id
                 for k in ("card_fingerprint",)}  # fmt: skip
        found = [
            r for r in rows
            if str(r.get("order_number") or "") not in ("", order.order_number)
            and r.get("payment_id") != charge.payment_id and _same_payer(mine, r)
        ]  # fmt: skip
        first: dict[str, dict[str, Any]] = {}  # one charge per order: its first
        for r in found:
            first.setdefault(str(r["order_number"]), r)
        return tuple(self._purchase(r) for r in list(first.values())[:MAX_OTHERS])

    def _purchase(self, row: dict[str, Any]) -> Purchase:
        number = str(row["order_number"])
        lines = _rows_of(self.records.get("orders"), number)
        ships = _rows_of(self.records.get("shipments"), number)
        tracking = tuple(dict.fromkeys(t for t in _texts(ships, "tracking_number") if t))
        shipped = min((d for d in _texts(ships, "shipped_at") if d), default="")
        delivered = max((d for d in _texts(ships, "delivered_at") if d), default="")
        amount = float(row["payment_amount"])
        return Purchase(number, str(row.get("payment_id") or ""), str(row.get("paid_at") or ""),
                        int(amount) if amount.is_integer() else amount,
                        str(row.get("currency") or ""),
                        tuple(dict.fromkeys(t for t in _texts(lines, "product_title") if t)),
                        tracking, shipped, delivered)  # fmt: skip


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
