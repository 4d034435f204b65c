"""Outcomes and win rates of the disputes we sent evidence for, from the statuses read back.

One row per (dimension, value): won, lost, still open, and the win rate (won / decided).
Dimensions: the dispute reason, the completeness verdict, and kinds of evidence (tracking
given, delivery confirmed, AVS match, files attached), so a team sees which evidence wins.
"""

from __future__ import annotations

from typing import Any

import orjson
import pandas as pd

from dispute_evidence.evidence.case import build_case
from dispute_evidence.evidence.completeness import ITEMS
from dispute_evidence.policies import outcome

COLUMNS = ["dimension", "value", "won", "lost", "open", "win rate"]


def outcomes_table(table: pd.DataFrame, payloads: dict[str, bytes]) -> pd.DataFrame:
    """Win rates by reason, verdict and evidence kind, over the disputes known at the API."""
    if table.empty or "api_status" not in table:
        return pd.DataFrame(columns=COLUMNS)
    sent = table.loc[table["dispute_id"].notna() & (table["dispute_id"] != "")].copy()
    if sent.empty:
        return pd.DataFrame(columns=COLUMNS)
    sent["outcome"] = sent["api_status"].map(outcome)
    kinds = {
        "tracking given": "tracking",
        "delivery confirmed": "delivered",
        "AVS match": "avs_match",
    }
    facts: dict[str, list[str]] = {k: [] for k in kinds}
    for pid in sent["provider_dispute_id"]:
        case = build_case(orjson.loads(payloads[pid]) if pid in payloads else {})
        for label, key in kinds.items():
            facts[label].append("yes" if ITEMS[key].present(case) else "no")
    for label, values in facts.items():
        sent[label] = values
    sent["files attached"] = (sent.get("files_total", 0) > 0).map({True: "yes", False: "no"})
    reason = sent["reason"] if "reason" in sent else pd.Series("", index=sent.index)
    sent["reason "] = reason.fillna("").replace("", "unknown")
    verdict = sent["completeness"] if "completeness" in sent else pd.Series("", index=sent.index)
    sent["evidence verdict"] = verdict.fillna("").map(
        lambda v: (
            "complete"
            if v == "complete"
            else "weak"
            if v.startswith("weak")
            else "missing something"
        )
    )
    rows = [_row("all", "all", sent)]
    for dim in ("reason ", "evidence verdict", *kinds, "files attached"):
        for value, group in sent.groupby(dim, sort=True):
            rows.append(_row(dim.strip(), str(value), group))
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(dimension: str, value: str, group: pd.DataFrame) -> list[Any]:
    won = int((group["outcome"] == "won").sum())
    lost = int((group["outcome"] == "lost").sum())
    still = int((group["outcome"] == "open").sum())
    rate = f"{won / (won + lost):.0%}" if won + lost else ""
    return [dimension, value, won, lost, still, rate]
