"""Where each dispute's money stands (waiting for you, not sent yet, sent, past due, won, lost),
by currency: the page's "Money" section and `dispute-evidence status`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.engine.outcomes import outcome
from dispute_evidence.names import visible

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


def money_bucket(status: Any, api_status: Any) -> str:
    if str(status) == "closed":
        decided = outcome(api_status)
        return {"won": WON, "lost": LOST}.get(decided, CLOSED)
    return _BUCKET_OF_STATUS.get(str(status), WAITING_FOR_YOU)


def amount_of(row: dict[str, Any]) -> float | None:
    try:
        value = float(row.get("amount"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def currency_of(row: dict[str, Any]) -> str:
    return text(row.get("currency")).upper() or "(no currency)"


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


def money(table: pd.DataFrame) -> Money:
    """Amounts by where each dispute stands and by currency."""
    sums: dict[tuple[str, str], float] = {}
    count: dict[str, int] = {}
    for row in table.to_dict("records"):
        bucket, cur = money_bucket(row.get("status"), row.get("api_status")), currency_of(row)
        count[bucket] = count.get(bucket, 0) + 1
        sums[bucket, cur] = sums.get((bucket, cur), 0.0) + (amount_of(row) or 0.0)
    currencies = sorted({cur for _, cur in sums})
    rows = [  # the currency is the column's heading
        (b, count[b], [fmt_money(sums[b, c]) if (b, c) in sums else "" for c in currencies])
        for b in BUCKETS
        if b in count
    ]
    risk = [
        fmt_money(sum(sums.get((b, c), 0.0) for b in AT_RISK), c)
        for c in currencies
        if any((b, c) in sums for b in AT_RISK)
    ]
    return Money(currencies, rows, risk, sum(count.get(b, 0) for b in AT_RISK))


def needing_something(table: pd.DataFrame) -> pd.DataFrame:
    """Open disputes that still need something: waiting for a person (data, a fix, an
    approval), or sent or due to be sent while the evidence misses what the reason needs."""
    if table.empty:
        return table
    bucket = [money_bucket(s, a) for s, a in zip(table["status"], _api_status(table), strict=True)]
    waiting = pd.Series(bucket, index=table.index) == WAITING_FOR_YOU
    open_ = pd.Series(bucket, index=table.index).isin(AT_RISK)
    missing = table.get("what_to_add", pd.Series("", index=table.index)).fillna("") != ""
    return table.loc[waiting | (open_ & missing)]


def _api_status(table: pd.DataFrame) -> pd.Series:
    return table["api_status"] if "api_status" in table else pd.Series(None, index=table.index)


def status_lines(
    table: pd.DataFrame, waiting_approval: int | None = None, limit: int = 10
) -> list[str]:
    """`status`: the amount at risk, disputes waiting for approval (where that status exists),
    and the open disputes that still need something, nearest deadline first."""
    m = money(table)
    risk = " · ".join(m.at_risk) or "nothing"
    lines = [f"Amount at risk: {risk} in {m.open_disputes} open dispute(s)"]
    if waiting_approval is not None:
        lines.append(f"Waiting for your approval: {waiting_approval} dispute(s)")
    need = needing_something(table)
    lines.append(f"Open disputes that still need something: {len(need)}")
    for row in need.head(limit).to_dict("records"):
        days = row.get("days_left")
        due = "no deadline" if days is None or days != days else f"{int(days)} days left"
        add = text(row.get("what_to_add"))
        todo = f"add {add}" if add else text(row.get("next_step"))
        state = text(row.get("state_words") or row.get("status_words") or row.get("status"))
        amount = fmt_money(amount_of(row), text(row.get("currency")))
        lines.append(
            f"  {text(row['provider_dispute_id']):<28} {due:<15} {amount:>14}  {state}: {todo}"
        )
    if len(need) > limit:
        lines.append(f"  … {len(need) - limit} more in the report's disputes.xlsx")
    return lines
