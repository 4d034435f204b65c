"""What the state says still needs a person, as problems: disputes not sent, files not
uploaded, evidence that misses what its reason needs. Part of the report (engine/reporting/report.py)."""

from __future__ import annotations

import pandas as pd

from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports.wording import STATUS_WORDS
from dispute_evidence.state.lifecycle import OPEN_DISPUTE, OPEN_FILE, DisputeStatus, FileStatus
from dispute_evidence.states import Hold, HoldKind, VerdictKind, VerdictLine


def state_problems(
    disputes: pd.DataFrame, files: pd.DataFrame, *, dry_run: bool = False
) -> list[Problem]:
    """What the state says still needs a person: disputes not sent, files not uploaded. In a
    dry run, what is merely waiting to be sent is the preview, not a problem."""
    out = []
    waiting = {DisputeStatus.SUBMITTED, DisputeStatus.CLOSED}  # closed: in the outcomes instead
    waiting |= {DisputeStatus.PENDING} if dry_run else set()
    waiting |= {DisputeStatus.AWAITING_APPROVAL}  # review.held_problems says what waits
    held_for_approval = set(
        disputes.loc[disputes["status"] == DisputeStatus.AWAITING_APPROVAL, "provider_dispute_id"]
    )
    by_view = _held_by_api_view(disputes)
    shown = ~disputes["status"].isin(waiting) | disputes["provider_dispute_id"].isin(by_view)
    for d in disputes.loc[shown].itertuples(index=False):
        why = next((str(x) for x in (d.detail, d.last_error) if isinstance(x, str) and x), "")
        hold = Hold.parse(why)
        out.append(
            Problem(
                ProblemKind.OVER_NETWORK_LIMIT
                if hold is not None and hold.kind is HoldKind.LIMIT
                else ProblemKind.EVIDENCE_HELD
                if hold is not None and hold.held
                else ProblemKind(f"dispute_{d.status}"),
                d.provider_dispute_id,
                why or STATUS_WORDS.get(d.status, d.status),
                dispute=d.provider_dispute_id,
            )
        )
    past_due = set(
        disputes.loc[disputes["status"] == DisputeStatus.PAST_DUE, "provider_dispute_id"]
    )
    held = set(  # its files wait with it: the dispute's own problem says why
        disputes.loc[disputes["status"] == DisputeStatus.INCOMPLETE, "provider_dispute_id"]
    )
    sent = files["status"].isin([FileStatus.UPLOADED, FileStatus.IN_PACKET])  # in its packet
    for f in files.loc[~sent].itertuples(index=False):
        if f.provider_dispute_id in held and f.status == FileStatus.PENDING:
            continue
        if f.provider_dispute_id in held_for_approval | by_view and f.status in OPEN_FILE:
            continue  # waits with its dispute (for approval, or for the two views to agree)
        if f.status == FileStatus.REJECTED:
            kind, why = ProblemKind.EVIDENCE_REFUSED, f.last_error or "refused by the API"
        elif f.provider_dispute_id in past_due:
            kind, why = ProblemKind.EVIDENCE_PAST_DUE, "not sent: past its dispute's deadline"
        elif dry_run and f.status == FileStatus.PENDING:
            continue  # "would upload"
        else:
            kind, why = ProblemKind.EVIDENCE_NOT_YET_UPLOADED, f.last_error or "not uploaded yet"
        out.append(
            Problem(
                kind,
                f"{f.provider_dispute_id} {f.file_name}",
                why,
                file=f.file_name,
                dispute=f.provider_dispute_id,
            )
        )
    return out


def _held_by_api_view(disputes: pd.DataFrame) -> set[str]:
    """Disputes sent once and held since because the API's view differs from the disputes list
    (engine/delivery/api_views.py): a person must say which is right, from the run that finds it on,
    though their status stays 'submitted'."""
    out = set()
    for d in disputes.loc[disputes["status"] != DisputeStatus.CLOSED].itertuples(index=False):
        hold = Hold.parse(d.detail) if isinstance(d.detail, str) else None
        if hold is not None and hold.kind is HoldKind.API_VIEW:
            out.add(str(d.provider_dispute_id))
    return out


def weak_evidence(table: pd.DataFrame) -> list[Problem]:
    """Disputes still open to evidence whose evidence misses what their reason needs."""
    open_ = table["status"].isin(OPEN_DISPUTE)
    verdicts = table["completeness"].map(VerdictLine.parse)
    weak = table.loc[open_ & verdicts.map(lambda v: v.wanting).astype(bool)]
    return [
        Problem(
            ProblemKind.EVIDENCE_WEAK
            if verdicts[i].kind is VerdictKind.WEAK
            else ProblemKind.EVIDENCE_INCOMPLETE,
            str(r.provider_dispute_id),
            f"{r.completeness} ({r.reason or 'general'}); add: {r.what_to_add}",
            dispute=str(r.provider_dispute_id),
        )
        for i, r in zip(weak.index, weak.itertuples(index=False), strict=True)
    ]
