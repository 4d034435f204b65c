"""Every approval given, kept: who, from where, which evidence version, applied or why not.

`disputes.approved_*` holds the approval in force (engine/review.py); this log keeps each one
ever given, so a later approval never overwrites an earlier one, and the report can list them
(its "Approvals" sheet) and show who approved each dispute's current evidence on its row.
"""

from __future__ import annotations

import pandas as pd
from sqlalchemy import select

from dispute_evidence.state.schema import approvals, disputes
from dispute_evidence.state.store import StateStore, now_iso

LOG_COLUMNS = {
    "provider_dispute_id": "For dispute",  # not "Dispute": this sheet is no Approve table
    "version": "Evidence version",
    "approved_by": "Approved by",
    "source": "How",
    "at": "At (UTC)",
    "applied": "Applied",
    "note": "Note",
}


def log_approval(
    store: StateStore,
    pid: str,
    evidence_hash: str,
    who: str,
    source: str,
    *,
    applied: bool,
    note: str = "",
) -> None:
    """Keep one approval given (or refused by policy: `applied` False and `note` says why)."""
    with store.engine.begin() as c:
        c.execute(
            approvals.insert().values(
                provider_dispute_id=pid,
                evidence_hash=evidence_hash,
                version="v" + evidence_hash[:12],
                approved_by=who[:200],
                source=source[:300],
                at=now_iso(),
                applied=applied,
                note=note[:500],
            )
        )


def approvers_of(store: StateStore, pid: str, evidence_hash: str) -> list[str]:
    """Who has approved this version of the dispute's evidence so far (applied or waiting for
    a second approver), in order, each once."""
    q = (
        select(approvals.c.approved_by)
        .where(
            approvals.c.provider_dispute_id == pid,
            approvals.c.evidence_hash == evidence_hash,
            approvals.c.note.in_(("", SECOND_WANTED)),
        )
        .order_by(approvals.c.id)
    )
    with store.engine.connect() as c:
        return list(dict.fromkeys(r[0] for r in c.execute(q)))


SECOND_WANTED = "waits for a second approver"


def approval_log(store: StateStore) -> pd.DataFrame:
    """Every approval kept, oldest first, with the report's column names."""
    q = select(*(approvals.c[k] for k in LOG_COLUMNS)).order_by(approvals.c.id)
    with store.engine.connect() as c:
        rows = [dict(r._mapping) for r in c.execute(q)]
    frame = pd.DataFrame(rows, columns=list(LOG_COLUMNS))
    frame["applied"] = frame["applied"].map(lambda v: "yes" if v else "no")
    return frame.rename(columns=LOG_COLUMNS)


def approved_words(store: StateStore) -> dict[str, str]:
    """Per dispute, the approval in force as a row shows it: "alice (approve command), v…,
    2026-11-25 02:40 UTC"."""
    q = select(
        disputes.c.provider_dispute_id, disputes.c.approved_by, disputes.c.approved_hash,
        disputes.c.approved_at,
    ).where(disputes.c.approved_hash.is_not(None))  # fmt: skip
    with store.engine.connect() as c:
        rows = c.execute(q).all()
    return {
        pid: f"{by or 'unknown'}, v{(sha or '')[:12]}, {_minute(at)}" for pid, by, sha, at in rows
    }


def _minute(at: str | None) -> str:
    return (at or "")[:16].replace("T", " ") + " UTC" if at else ""
