"""What a report shows in full, and what it only counts: the nightly report's cost follows the
work that is still open, not the history of every dispute the merchant ever had.

A dispute is *history* once it ended (closed by the provider, or past its deadline unsent) more
than RECENT_DAYS (14) days ago: its row keeps its stored columns (status, amount, deadline, outcome) but
skips the per-dispute work (completeness, letter, advice), the page counts it instead of
listing it, and its row goes to one workbook per month it ended in (reports/history/), written
once that month is wholly history (reports/writer.py).
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.state.lifecycle import DisputeStatus

RECENT_DAYS = 14  # an ended dispute stays in full view this long
ENDED = (DisputeStatus.CLOSED, DisputeStatus.PAST_DUE)


def mark_history(table: pd.DataFrame, days: int = RECENT_DAYS) -> pd.Series:
    """True for the rows that are history. Adds `ended_month` ('YYYY-MM' a history row ended
    in, else '') and `history_book` (that month once all of it is history, else '')."""
    # closed: when the API said so; past due: when it became so here (an API status read
    # weeks earlier, before a re-send, says nothing of when the deadline was missed)
    api_said = table["api_status_at"].where(table["status"] != DisputeStatus.PAST_DUE)
    when = pd.to_datetime(api_said.fillna(table["updated_at"]), utc=True, errors="coerce")
    cutoff = clock.now() - timedelta(days=days)
    old = table["status"].isin(ENDED) & (when < pd.Timestamp(cutoff))
    table["ended_month"] = when.dt.strftime("%Y-%m").where(old, "").fillna("")
    done = {
        m for m in set(table["ended_month"]) if m and _month_end(m) < cutoff.strftime("%Y-%m-%d")
    }
    table["history_book"] = table["ended_month"].where(table["ended_month"].isin(done), "")
    return old


def is_history(table: pd.DataFrame) -> pd.Series:
    """True for the rows `mark_history` marked as history (none when it has not run)."""
    return table.get("ended_month", pd.Series("", index=table.index)).fillna("") != ""


def history_columns(old: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """History rows with the columns the full rows have, filled without per-dispute work."""
    out = old.copy()
    for col in like.columns.difference(out.columns):
        out[col] = ""
    out["state_words"] = out["status_words"].where(
        out["status"] != DisputeStatus.PAST_DUE, "past its deadline, not sent"
    )
    out["next_step"] = out["status"].map({DisputeStatus.PAST_DUE: "none (past the deadline)"})
    out["next_step"] = out["next_step"].fillna("")
    out["needs_something"] = False
    return out


def _month_end(month: str) -> str:
    first = pd.Timestamp(f"{month}-01")
    return str((first + pd.offsets.MonthEnd(0)).strftime("%Y-%m-%d"))
