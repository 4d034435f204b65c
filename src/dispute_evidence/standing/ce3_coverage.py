"""CE 3.0 coverage: how much of the order history could make a fraud dispute qualify for Visa
Compelling Evidence 3.0 (evidence/ce3.py has the rule), decided months before by what checkout
logged.

- Per element, the share of orders (transactions: an order, or a charge no order claims) that
  carry it as ce3.py counts it: a public IP address, a device ID of at least 15 characters (the
  exports carry one device column; a fingerprint of 20+ characters in it counts too), a
  customer account ID, a shipping address (normalised); placeholders never count.
- Active card credentials: Visa cards (the payments export's card fingerprint; a card of no
  known brand counts too) with a transaction in the last 365 days. One *would qualify if disputed today* when it has at least two earlier
  transactions, paid, not disputed, not refunded, 120 to 365 days old, each carrying at least
  two elements, one of them IP or device: the evidence a dispute today could cite, supposing the
  disputed order carries the same elements (the matching itself needs that order).
- What if checkout captured one element on every order: the share that would qualify then.
Pure: the transactions frame (ce3.transactions) in, counts and plain lines out.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from dispute_evidence.evidence.ce3 import ELEMENTS, LABELS, MAX_DAYS, MIN_DAYS, MIN_DEVICE
from dispute_evidence.networks import VISA, network_of

NEEDED = 2
CAPTURE = {
    "customer_ip": "capture the customer's IP address at checkout",
    "device_id": "capture the device ID (15+ characters) at checkout",
    "customer_account_id": "record the customer account ID with each order",
    "shipping_address": "keep the shipping address with each order",
}
COLUMNS = [
    "element",
    "orders with it",
    "orders",
    "share of orders (%)",
    "cards that would qualify if every order had it",
    "active cards",
    "share of active cards (%)",
]


@dataclass
class Coverage:
    orders: int = 0
    with_element: dict[str, int] = field(default_factory=dict)
    active_cards: int = 0
    qualify: int = 0  # active cards that would qualify today
    if_captured: dict[str, int] = field(default_factory=dict)  # element -> cards that would
    lines: list[str] = field(default_factory=list)
    as_of: str = ""  # the day it was worked out (YYYY-MM-DD), when kept for later runs

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Coverage:
        return cls(**json.loads(text))

    def dated(self, day: str, why: str) -> Coverage:
        """The same figures, said to be as of `day` (`why`: when they are worked out again)."""
        lines = [line for line in self.lines if not line.startswith("as of ")]
        return Coverage(
            self.orders,
            dict(self.with_element),
            self.active_cards,
            self.qualify,
            dict(self.if_captured),
            [f"as of {day} ({why})", *lines],
            day,
        )

    def table(self) -> pd.DataFrame:
        """One row per element, then one for today's cards."""
        rows = [
            [
                LABELS[e],
                self.with_element.get(e, 0),
                self.orders,
                _pct(self.with_element.get(e, 0), self.orders),
                self.if_captured.get(e, 0),
                self.active_cards,
                _pct(self.if_captured.get(e, 0), self.active_cards),
            ]
            for e in ELEMENTS
        ]
        rows.append(
            [
                "as captured today",
                "",
                self.orders,
                None,
                self.qualify,
                self.active_cards,
                _pct(self.qualify, self.active_cards),
            ]
        )
        return pd.DataFrame(rows, columns=COLUMNS)


def _pct(n: int, of: int) -> float | None:
    return round(n / of * 100, 1) if of else None


def carried(tx: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per element, whether each transaction carries it as CE 3.0 counts it."""
    out = {}
    for e in ELEMENTS:
        values = tx[e].fillna("").astype(str) if e in tx else pd.Series("", index=tx.index)
        has = values != ""
        if e == "device_id":
            has &= values.str.len() >= MIN_DEVICE
        out[e] = has.to_numpy(dtype=bool)
    return out


def coverage(tx: pd.DataFrame, now: datetime | None = None) -> Coverage:
    """The shares and what-ifs of the transactions `tx` (ce3.transactions' frame)."""
    out = Coverage(orders=len(tx))
    if tx.empty:
        out.lines = ["CE 3.0 coverage: no orders or charges in your exports yet"]
        return out
    has = carried(tx)
    out.with_element = {e: int(has[e].sum()) for e in ELEMENTS}
    today = ((now or datetime.now(UTC)).astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)).days
    day = pd.to_numeric(tx["day"], errors="coerce").fillna(-1).to_numpy(dtype="int64")
    card = visa_cards(tx)
    age = today - day
    active = np.zeros(
        int(card.max(initial=-1)) + 1, dtype=bool
    )  # per card code: used in the last year
    active[card[(card >= 0) & (day >= 0) & (age >= 0) & (age <= MAX_DAYS)]] = True
    out.active_cards = int(active.sum())
    eligible = (
        _flag(tx, "paid")
        & ~_flag(tx, "disputed")
        & ~_flag(tx, "refunded")
        & (pd.to_numeric(tx["amount"], errors="coerce").fillna(0).to_numpy() > 0)
        & (card >= 0)
        & (age >= MIN_DAYS)
        & (age <= MAX_DAYS)
    )
    out.qualify = _qualifying(card, eligible, has, active)
    for e in ELEMENTS:
        everyone = {**has, e: np.ones(len(tx), bool)}
        out.if_captured[e] = _qualifying(card, eligible, everyone, active)
    out.lines = _lines(out)
    return out


def visa_cards(tx: pd.DataFrame) -> np.ndarray:
    """Each transaction's card as an integer code, -1 for none or for a card another brand
    named (CE 3.0 is Visa's alone; a card of no known brand counts)."""
    if "card" in tx:  # ce3.transactions coded the cards already
        card = tx["card"].to_numpy(dtype="int64")
    else:
        fingerprint = tx["fingerprint"].fillna("").astype(str)
        card = pd.factorize(fingerprint.where(fingerprint != ""))[0].astype("int64")
    brand = tx["brand"] if "brand" in tx else pd.Series("", index=tx.index)
    codes, brands = pd.factorize(brand.fillna("").astype(str))  # a handful: work on those
    elsewhere = np.array([b != "" and network_of(b) != VISA.key for b in brands] + [False])
    named = card[elsewhere[codes] & (card >= 0)]
    other = np.zeros(int(card.max(initial=-1)) + 2, dtype=bool)  # never empty: card.clip(0)
    other[named] = True
    return np.where((card >= 0) & ~other[card.clip(0)], card, -1)


def _flag(tx: pd.DataFrame, name: str) -> np.ndarray:
    if name not in tx:
        return np.zeros(len(tx), dtype=bool)
    flags: np.ndarray = tx[name].eq(True).to_numpy(dtype=bool)
    return flags


def _qualifying(
    card: np.ndarray, eligible: np.ndarray, has: dict[str, np.ndarray], active: np.ndarray
) -> int:
    """Active cards with at least two eligible transactions that could match (integer card
    codes counted with bincount: no text grouped, no Python per card)."""
    count = sum(has[e].astype(int) for e in ELEMENTS)
    good = eligible & (has["customer_ip"] | has["device_id"]) & (count >= NEEDED)
    per_card = np.bincount(card[good], minlength=len(active))
    return int(((per_card >= 2) & active).sum())


def _lines(c: Coverage) -> list[str]:
    """The shares in words, with the counts behind them, and what each capture would give."""
    lines = [
        f"{LABELS[e]}: on {c.with_element[e]:,} of {c.orders:,} orders "
        f"({c.with_element[e] / c.orders:.0%})"
        for e in ELEMENTS
    ]
    if not c.active_cards:
        lines.append(
            "no card fingerprint on an order of the last 365 days: no card can be "
            "followed (drop the Stripe payments export with its Card Fingerprint)"
        )
        return lines
    lines.append(
        f"as captured today, {c.qualify:,} of your {c.active_cards:,} active cards "
        f"({c.qualify / c.active_cards:.0%}) would qualify for CE 3.0 if disputed today"
    )
    gains = sorted(ELEMENTS, key=lambda e: -c.if_captured[e])
    for e in gains:
        if c.if_captured[e] > c.qualify:
            n = c.if_captured[e]
            lines.append(
                f"{CAPTURE[e]}: {n / c.active_cards:.0%} of your cards would qualify "
                f"({n:,} of {c.active_cards:,}, against {c.qualify:,} today)"
            )
    return lines
