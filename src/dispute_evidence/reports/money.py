"""Where each dispute's money stands (waiting for you, not sent yet, sent, past due, won, lost),
by currency: the page's "Money" section and `dispute-evidence status`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.names import visible
from dispute_evidence.policies import outcome

# Where a dispute's money stands, in the order the page lists them.
WAITING_FOR_YOU, NOT_SENT_YET, SENT = "waiting for you", "not sent yet", "sent"
PAST_DUE, WON, LOST, CLOSED = "past due", "won", "lost", "closed"
BUCKETS = (WAITING_FOR_YOU, NOT_SENT_YET, SENT, PAST_DUE, WON, LOST, CLOSED)
AT_RISK = frozenset({WAITING_FOR_YOU, NOT_SENT_YET, SENT})  # still open: money not yet decided
_BUCKET_OF_STATUS = {"pending": NOT_SENT_YET, "submitted": SENT, "past_due": PAST_DUE}
# Any other status (incomplete, rejected, not_found, waiting for approval, ...) waits for a person.


def text(value: Any) -> str:
    """A value as one visible line ('' for missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return " ".join(visible(str(value)).split())


def money_bucket(status: Any, api_status: Any, days_left: Any = None) -> str:
    """Where one dispute's money stands; one not sent whose deadline passed is past due even
    before a run marks it so (a dry run's preview)."""
    if str(status) == "closed":
        decided = outcome(api_status)
        return {"won": WON, "lost": LOST}.get(decided, CLOSED)
    bucket = _BUCKET_OF_STATUS.get(str(status), WAITING_FOR_YOU)
    late = days_left is not None and days_left == days_left and days_left < 0
    return PAST_DUE if late and bucket in (NOT_SENT_YET, WAITING_FOR_YOU) else bucket


def amount_of(row: dict[str, Any]) -> float | None:
    try:
        value = float(row.get("amount"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def fmt_money(amount: float | None, currency: str = "") -> str:
    if amount is None:
        return ""
    return f"{amount:,.2f} {currency}".strip()


@dataclass
class Money:
    currencies: list[str]
    rows: list[tuple[str, int, list[str]]]  # (bucket, disputes, amount per currency)
    at_risk: list[str]  # "1,234.00 USD" per currency
    open_disputes: int


def buckets(table: pd.DataFrame) -> pd.Series:
    """Where each dispute's money stands (one of BUCKETS), row by row."""
    api, days = _api_status(table), _column(table, "days_left")
    return pd.Series(
        [money_bucket(*row) for row in zip(table["status"], api, days, strict=True)],
        index=table.index,
        dtype=object,
    )


def money(table: pd.DataFrame) -> Money:
    """Amounts by where each dispute stands and by currency."""
    if table.empty or "status" not in table:
        return Money([], [], [], 0)
    frame = pd.DataFrame(
        {
            "bucket": buckets(table),
            "currency": _column(table, "currency").map(_currency_words),
            "amount": pd.to_numeric(_column(table, "amount"), errors="coerce"),
        }
    )
    frame.loc[~frame["amount"].map(math.isfinite), "amount"] = 0.0
    sums = frame.groupby(["bucket", "currency"])["amount"].sum().to_dict()
    count = frame["bucket"].value_counts().to_dict()
    currencies = sorted({cur for _, cur in sums})
    rows = [  # the currency is the column's heading
        (b, int(count[b]), [fmt_money(sums[b, c]) if (b, c) in sums else "" for c in currencies])
        for b in BUCKETS
        if b in count
    ]
    risk = [
        fmt_money(sum(sums.get((b, c), 0.0) for b in AT_RISK), c)
        for c in currencies
        if any((b, c) in sums for b in AT_RISK)
    ]
    return Money(currencies, rows, risk, int(sum(count.get(b, 0) for b in AT_RISK)))


@functools.lru_cache(maxsize=256)  # a few currencies over thousands of disputes
def _currency_words(value: Any) -> str:
    return text(value).upper() or "(no currency)"


def _column(table: pd.DataFrame, name: str) -> pd.Series:
    return table[name] if name in table else pd.Series(None, index=table.index, dtype=object)


def needing_something(table: pd.DataFrame) -> pd.DataFrame:
    """Open disputes that still need something: waiting for a person (data, a fix, an
    approval), or sent or due to be sent while the evidence misses what the reason needs."""
    if table.empty:
        return table
    bucket = buckets(table)
    waiting, open_ = bucket == WAITING_FOR_YOU, bucket.isin(AT_RISK)
    missing = table.get("what_to_add", pd.Series("", index=table.index)).fillna("") != ""
    if "needs_something" in table:  # the engine's own reading (weak and held ones too)
        missing |= table["needs_something"].astype(bool)
    return table.loc[waiting | (open_ & missing)]


def _api_status(table: pd.DataFrame) -> pd.Series:
    return _column(table, "api_status")


def days_left_words(days: int) -> str:
    """ "1 day left", "3 days left"; a past deadline as "due 2 days ago"."""
    if days < 0:
        return f"due {-days} day{'s' if days != -1 else ''} ago"
    return f"{days} day{'s' if days != 1 else ''} left"
