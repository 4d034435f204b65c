"""An approval sent at once: record it, then send just those disputes, as a run does.

`dispute-evidence approve` and the Prefect `approve` deployment come here. The approval is
recorded first (engine/review/approval.py), then the disputes it released go out through the run's own
path (engine/run_steps.py: the same run lock, the same client and budget, the same exactly-once
submitter), limited to them. When another run holds the inbox's lock the approval stays
recorded and that run (or, if it is already sending, the next one) sends it; the lines say
which. A run row and a report are written like any run's: a RunRequest with the trigger
"approve", opened by engine/run_steps.py's open_run.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dispute_evidence.api import ApiSettings
from dispute_evidence.api.pacer import RequestGate
from dispute_evidence.engine.delivery.submit import SubmitOutcome
from dispute_evidence.engine.reporting.report import Stages
from dispute_evidence.engine.review.approval import approve
from dispute_evidence.engine.run_steps import SEND_APPROVED, RunLocked, close_run, execute, open_run
from dispute_evidence.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from dispute_evidence.settings import RunRequest, Settings
from dispute_evidence.state.lifecycle import DisputeStatus
from dispute_evidence.state.store import StateStore

D = DisputeStatus


@dataclass
class ApproveSent:
    """What `approve` did: one line per dispute, and the command's exit code."""

    approved: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)  # at the API: evidence and every file
    run_id: str | None = None  # the run that sent them (None: nothing sent now)
    report: str | None = None
    exit_code: int = EXIT_OK


def approve_and_send(
    settings: Settings,
    inbox: Path | None,
    pids: Sequence[str],
    *,
    by: str,
    state: str | Path,
    api: ApiSettings | None,
    all_complete: bool = False,
    source: str = "approve command",
    gate: RequestGate | None = None,
) -> ApproveSent:
    """Approve `pids` (by `by`, a user name, through `source`), then send them now when `api`
    is given (None: record only)."""
    out = ApproveSent()
    policy = settings.review.policy()
    with StateStore(state, must_exist=True) as store:
        result = approve(
            store,
            pids,
            all_complete=all_complete,
            by=by,
            source=source,
            policy=policy,
            inbox=inbox,
        )
        work = set(store.disputes.work_queue())
    out.approved, out.refused, out.lines = result.approved, result.refused, result.already
    if result.refused and not (result.approved or result.already):
        out.exit_code = EXIT_USAGE
        return out
    versions = {
        **result.approved_before,
        **dict(zip(result.approved, result.versions, strict=True)),
    }
    # approved before but never sent (its approve stopped on a full disk): sent now
    waiting = [p for p in [*result.approved, *result.approved_before] if p in work]
    for pid in result.approved:
        if pid not in work:
            out.lines.append(f"{pid}: approved ({versions[pid]}) by {by}; nothing waits to be sent")
    if not waiting:
        return out
    if api is None or inbox is None:
        out.lines += [
            f"{p}: approved ({versions[p]}) by {by}; recorded only: the next run sends it"
            for p in waiting
        ]
        return out
    _send_now(settings, inbox, waiting, versions, by, state, api, out, gate)
    return out


def _send_now(
    settings: Settings,
    inbox: Path,
    waiting: list[str],
    versions: dict[str, str],
    by: str,
    state: str | Path,
    api: ApiSettings,
    out: ApproveSent,
    gate: RequestGate | None,
) -> None:
    """Send `waiting` under the run lock; say for each whether it is at the API now."""
    try:
        request = RunRequest(inbox=inbox, state=str(state), trigger="approve")
        session = open_run(settings, request, api=api, gate=gate)
    except RunLocked as exc:
        holder = str(exc).rsplit(": ", 1)[-1]
        out.lines += [
            f"{p}: approved ({versions[p]}) by {by}; run {holder} is working on this inbox: it "
            "sends it, or the next run does if it was already sending"
            for p in waiting
        ]
        return
    session = dataclasses.replace(session, only=frozenset(waiting))
    outcome, counts = "failed", None
    try:
        stages = Stages()  # the one sequence, sending what was approved: nothing ingested
        result = execute(session, SEND_APPROVED, stages=stages)
        submitted = stages.submitted
        assert submitted is not None  # (the plan submits)
        outcome, counts = result.outcome, result.counts
        out.run_id, out.report = session.run_id, str(result.report)
        where = {pid: _not_at_the_api(session.store, pid) for pid in waiting}
    finally:
        close_run(session, outcome, counts)
    if submitted.stopped:
        out.exit_code = submitted.stop_code
        if all(where[pid] is None for pid in waiting):
            out.lines.append(submitted.stopped)
    for pid in waiting:
        approved = f"{pid}: approved ({versions[pid]}) by {by}"
        if where[pid] is None:
            out.sent.append(pid)
            out.lines.append(
                f"{approved}; sent: its evidence and files are at the API (run {session.run_id})"
            )
        elif submitted.stopped:  # one line: what happened, what to do; the approval is kept
            out.lines.append(
                f"{approved} (the approval is kept); {_stopped(submitted, where[pid], inbox)}"
            )
        else:
            out.lines.append(f"{approved}; not sent yet ({where[pid]}); the next run tries again")
            out.exit_code = out.exit_code or EXIT_FAILED


def _stopped(submitted: SubmitOutcome, left: str | None, inbox: Path) -> str:
    """Why a dispute approved now was not (all) sent, when the API stopped the send, and what
    to do: the approval is kept, so the next run sends it, nothing twice."""
    gone = "its evidence went, " if left and left.endswith("not uploaded") else ""
    what = f"{gone}{left}" if gone else "not sent"
    if submitted.retry_at is None:  # key refused, API unreachable: the line says what to do
        return f"{what}: {submitted.stopped}"
    again = f"dispute-evidence run --inbox {shlex.quote(str(inbox))}"
    answer = submitted.answer[:1].lower() + submitted.answer[1:]
    return (
        f"{what}: {answer}; run again after {submitted.retry_at} (`{again}`, or the "
        "nightly run): it sends what is left, nothing twice."
    )


def _not_at_the_api(store: StateStore, pid: str) -> str | None:
    """None when the dispute's evidence and every file are at the API; else what is not."""
    from dispute_evidence.reports.wording import STATUS_WORDS

    row = store.disputes.dispute(pid) or {}
    if row.get("status") != D.SUBMITTED:
        status = str(row.get("status") or "unknown")
        why = row.get("last_error") or row.get("detail") or ""
        return STATUS_WORDS.get(status, status) + (f": {why}" if why else "")
    files = store.reports.file_table()
    mine = files.loc[files["provider_dispute_id"] == pid]
    left = int((mine["status"] != "uploaded").sum())
    return f"{left} file(s) not uploaded" if left else None
