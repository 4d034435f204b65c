"""Every approval given, kept: who, from where, which evidence version, applied or why not.

`disputes.approved_*` holds the approval in force (engine/review/approval.py); this log keeps each one
ever given, so a later approval never overwrites an earlier one, and the report can list them
(its "Approvals" sheet) and show who approved each dispute's current evidence on its row.
The rows are the store's (state/approvals.py); this module words them for the report.
"""

from __future__ import annotations

from typing import Protocol

import pandas as pd

from dispute_evidence.state.holders import HasApprovals


class LogParts(HasApprovals, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


LOG_COLUMNS = {
    "provider_dispute_id": "For dispute",  # not "Dispute": this sheet is no Approve table
    "version": "Evidence version",
    "approved_by": "Approved by",
    "source": "How",
    "at": "At (UTC)",
    "applied": "Applied",
    "note": "Note",
}


def approval_log(store: LogParts) -> pd.DataFrame:
    """Every approval kept, oldest first, with the report's column names."""
    frame = pd.DataFrame(store.approvals.approval_log_rows(LOG_COLUMNS), columns=list(LOG_COLUMNS))
    frame["applied"] = frame["applied"].map(lambda v: "yes" if v else "no")
    return frame.rename(columns=LOG_COLUMNS)


def approved_words(store: LogParts) -> dict[str, str]:
    """Per dispute, the approval in force as a row shows it: "alice (approve command), v…,
    2026-11-25 02:40 UTC"."""
    return {
        pid: f"{by or 'unknown'}, v{(sha or '')[:12]}, {_minute(at)}"
        for pid, by, sha, at in store.approvals.approvals_in_force()
    }


def _minute(at: str | None) -> str:
    return (at or "")[:16].replace("T", " ") + " UTC" if at else ""
