"""`dispute-evidence status`: the amount at risk and the open disputes that still need
something, one line each, laid out by the column registry (reports/columns.py)."""

from __future__ import annotations

import pandas as pd

from dispute_evidence.reports.columns import Surface, line
from dispute_evidence.reports.money import money, needing_something


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
    lines += ["  " + line(Surface.STATUS, row) for row in need.head(limit).to_dict("records")]
    if len(need) > limit:
        lines.append(f"  … {len(need) - limit} more in the report's disputes.xlsx")
    return lines
