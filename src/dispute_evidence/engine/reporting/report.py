"""Report assembly: the dispute table (one plain row per dispute), the problems the state
still shows, the counts and headline, the exit code, and the dry run's preview. The steps
(engine/prepare/build.py) do the work; this module says what it came to."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.documents.kinds import ANOTHER_PARCEL
from dispute_evidence.engine.delivery.api_readback import ReadOutcome
from dispute_evidence.engine.delivery.submit import SubmitOutcome
from dispute_evidence.engine.prepare.build import IngestOutcome, PrepareOutcome, is_summary
from dispute_evidence.engine.prepare.case import (
    CaseReader,
    add_case_columns,
    case_problems,
    case_reader,
    pending_by_threshold,
)
from dispute_evidence.engine.prepare.pdf_versions import api_version_words
from dispute_evidence.engine.prepare.storedocs_intake import store_documents_column
from dispute_evidence.engine.reporting.deadline_alerts import AlertOutcome
from dispute_evidence.engine.reporting.headline import headline, stop_words
from dispute_evidence.engine.reporting.history import history_columns, is_history, mark_history
from dispute_evidence.engine.reporting.outcomes import outcomes_table, remembered_kinds
from dispute_evidence.engine.reporting.picture import Picture
from dispute_evidence.engine.reporting.standing_alerts import ratio_alert_counts, standing_of
from dispute_evidence.engine.reporting.state_problems import state_problems, weak_evidence
from dispute_evidence.engine.reporting.wins import what_wins
from dispute_evidence.engine.review.approval import (
    ReviewOutcome,
    annotate,
    held_problems,
    write_approval_preview,
)
from dispute_evidence.engine.review.log import approval_log
from dispute_evidence.engine.review.plan import DeliveryPlan, plan_delivery
from dispute_evidence.engine.review.preview import write_dry_run_preview
from dispute_evidence.engine.session import SubmitStats
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.completeness import assess_case
from dispute_evidence.evidence.delivery import with_held_proofs
from dispute_evidence.exits import (
    EXIT_FAILED,
    EXIT_NEEDS_YOU,
    EXIT_OK,
    Stop,
)
from dispute_evidence.policies import AdvicePolicy
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports import NEEDS_A_PERSON, RunReport, write_report
from dispute_evidence.reports.rows import DisputeRow, dispute_rows
from dispute_evidence.reports.standing_files import write_standing
from dispute_evidence.reports.wins_files import write_wins
from dispute_evidence.reports.wording import STATUS_WORDS
from dispute_evidence.reports.writer import write_approvals
from dispute_evidence.state.holders import (
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
)
from dispute_evidence.state.lifecycle import OPEN_DISPUTE, DisputeStatus, FileStatus
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.store import now_iso
from dispute_evidence.states import Hold, HoldKind, VerdictKind


class ReportParts(HasDisputes, HasGenerated, HasKept, HasRecords, HasReports, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


if TYPE_CHECKING:
    from dispute_evidence.engine.session import RunSession

# About a file that was sent as it should be: how it was matched, that it was not read (the
# page's file list and problems.csv say it; the row's "File problems" are what needs fixing)
FILE_NOTES = frozenset({ProblemKind.EVIDENCE_MATCHED_BY_CONTENT, ProblemKind.DOCUMENT_NOT_READ})


# 4: the API could not be reached (or kept failing) before anything was sent.


@dataclass
class Stages:
    """What the stages of one pass of the sequence came to (engine/run_steps.py `execute`); a stage
    its plan leaves out stays empty: an approval sends without ingesting, a run stopped part
    way reports only what it sent."""

    ingested: IngestOutcome = field(default_factory=IngestOutcome)
    prepared: PrepareOutcome = field(default_factory=lambda: PrepareOutcome(rebuilt=False))
    reviewed: ReviewOutcome | None = None  # what waits for approval
    planned: DeliveryPlan | None = None  # what review handed delivery: held back, and why
    submitted: SubmitOutcome | None = None  # None: nothing was sent (a dry run)
    alerted: AlertOutcome | None = None


@dataclass(frozen=True)
class RunResult:
    run_id: str
    exit_code: int
    outcome: str
    report: Path
    counts: dict[str, int] = field(default_factory=dict)
    stopped: str | None = None  # why sending stopped (the key was refused)

    def as_dict(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "report": str(self.report),
            "run_id": self.run_id,
            "counts": self.counts,
            "outcome": self.outcome,
            "stopped": self.stopped,
        }


@dataclass
class Snapshot:
    """What a report reads from the state once: the file rows, the payloads, and, for the
    disputes it works on (`open_for`: not the year's history), their file names and each one's
    case (evidence/case_record.py), built once from its payload and documents."""

    store: ReportParts
    inbox: Path | None  # whose documents folder holds what was read from each file
    files: pd.DataFrame
    payloads: dict[str, bytes]
    names: dict[str, list[str]] = field(default_factory=dict)
    _build: CaseReader | None = None  # a dispute's case, as the review hold and alerts build it
    _cases: dict[str, CaseFacts] = field(default_factory=dict)

    @classmethod
    def read(cls, store: ReportParts, inbox: Path | None = None) -> Snapshot:
        return cls(store, inbox, store.reports.file_table(), store.disputes.payloads())

    def open_for(self, pids: Collection[str]) -> None:
        """The disputes the report works on: their file names and documents read at once."""
        self.names = self.store.disputes.file_names(pids)
        self._build = case_reader(self.store, self.inbox, pids)

    def case(self, pid: str) -> CaseFacts | None:
        """The dispute's case, built on first use (only disputes the report works on)."""
        if pid not in self._cases and (body := self.payloads.get(pid)) is not None:
            if self._build is None:
                self._build = case_reader(self.store, self.inbox)
            self._cases[pid] = self._build(pid, body)
        return self._cases.get(pid)

    def cases(self, pids: Iterable[str]) -> dict[str, CaseFacts]:
        return {pid: case for pid in pids if (case := self.case(pid)) is not None}


def report(session: RunSession, stages: Stages) -> RunResult:
    """Decide the run's outcome and write its report: the whole current picture (problems kept
    from earlier runs included) and what changed since the last report."""
    store, review, prepared = session.store, stages.reviewed, stages.prepared
    ingested, submitted, alerted = stages.ingested, stages.submitted, stages.alerted
    snap = Snapshot.read(store, session.opts.inbox)
    problems = run_problems(session, stages)
    advice = session.opts.advice
    table = dispute_table(store, problems, dry_run=session.dry_run, advice=advice, snap=snap)
    annotate(table, store, review)
    problems = table_problems(table, snap.files, store, review, problems, session.dry_run)
    counts = run_counts(session, ingested, submitted, alerted, review, table, problems)
    counts["new_files"] += prepared.evidence_read  # files read, each file once: sheets + evidence
    counts["repeated_files"] += prepared.evidence_repeated
    if prepared.retention is not None:  # [retention] is set: say what it removed
        counts.update(prepared.retention.counts())
    code = _exit(session, stages, counts)
    if session.dry_run:
        write_dry_run_preview(session.report_folder, store, files=snap.files)
    held = table.loc[table["status"] == D.AWAITING_APPROVAL, "provider_dispute_id"].tolist()
    write_approval_preview(session.report_folder, store, held)
    outcome = headline(counts, session.dry_run, stopped=stop_words(submitted))
    if submitted and submitted.interrupted:
        sent = submitted.stats.evidence_sent
        outcome = f"Interrupted: {sent} sent so far; run again to finish"
    picture = Picture.of(table, problems)
    changes = picture.changes_since(Picture.from_kept(store.kept.last_picture()))
    store.kept.keep_picture(picture.kept(), now_iso())  # a dry run writes this to its copy only
    standing = standing_of(alerted, store, session.opts.standing)  # the alerts' own, if any
    rep = RunReport(
        session.run_id,
        outcome,
        session.dry_run,
        counts,
        table,
        problems,
        changes=changes,
        **_outcomes(store, table, snap),
        files=snap.files,
        config=session.config,
        notices=review.notices if review else [],
        cleared=prepared.retention.disputes if prepared.retention else [],
        standing=write_standing(standing, session.report_folder),
    )
    path = write_report(rep, session.report_folder, partial(write_wins, rep.outcomes, rep.wins))
    if not (log := approval_log(store)).empty:  # every approval given, who and how
        write_approvals(log, session.report_folder)
    stopped = submitted.stopped if submitted else None
    return RunResult(session.run_id, code, outcome, path, counts, stopped)


def _outcomes(store: ReportParts, table: pd.DataFrame, snap: Snapshot) -> dict[str, Any]:
    """Win rates by reason and evidence kind (each payload's remembered), and what wins."""
    sent = table.loc[table["dispute_id"].fillna("") != "", "provider_dispute_id"]
    kinds = remembered_kinds(store, sent, snap.payloads)
    return {
        "outcomes": outcomes_table(table, kinds),
        "wins": what_wins(store, table, snap.payloads, snap.case),
    }


def run_problems(session: RunSession, stages: Stages) -> list[Problem]:
    """What this run and the earlier ones found before the dispute table is made: the API
    stopping, moved deadlines, held disputes, configuration, ingest and build problems."""
    problems: list[Problem] = []
    submitted, alerted, review = stages.submitted, stages.alerted, stages.reviewed
    if submitted and submitted.stopped:
        subject = "API key" if submitted.stop == Stop.KEY_REFUSED else "API"
        problems.append(Problem(ProblemKind.RUN_STOPPED, subject, submitted.stopped))
    if submitted is not None:
        problems += _read_back_problems(submitted.read, submitted.stats.deadlines_moved)
    if session.opts.merchant is None:
        problems.append(
            Problem(
                ProblemKind.MERCHANT_PROFILE_MISSING,
                "[merchant] in the config",
                "no merchant profile is configured: evidence goes without merchant_profile",
            )
        )
    problems += [*stages.ingested.problems(), *stages.prepared.problems()]
    problems += [Problem.from_dict(d) for d in session.store.runs.open_problems()]
    problems += review.problems if review else []
    if alerted is not None and alerted.problem:
        problems.append(Problem(ProblemKind.ALERT_NOT_SENT, "[alerts] block", alerted.problem))
    return problems


def _read_back_problems(read: ReadOutcome, first_sent: list[tuple[str, str, str]]) -> list[Problem]:
    """Deadlines the API moved (read back, or seen as a dispute was first sent to), and
    disputes the read-back held."""
    moved = [
        Problem(
            ProblemKind.DEADLINE_MOVED,
            pid,
            f"the API's deadline is {now} (the sheet said {was}); the API's is used",
            dispute=pid,
        )
        for pid, was, now in [*read.moved, *first_sent]
    ]
    return moved + [
        Problem(ProblemKind.DISPUTE_HELD, pid, why, dispute=pid)
        for pid, why in read.held.items()
        if not _api_view_hold(why)  # kept on the dispute's row: state_problems says it
    ]


def _api_view_hold(why: str) -> bool:
    hold = Hold.parse(why)
    return hold is not None and hold.kind is HoldKind.API_VIEW


def table_problems(
    table: pd.DataFrame,
    files: pd.DataFrame,
    store: ReportParts,
    review: ReviewOutcome | None,
    problems: list[Problem],
    dry_run: bool,
) -> list[Problem]:
    """`problems` and what the dispute table shows: disputes and files not done, held ones,
    weak evidence and the case (a dispute held by advice is not also "pending"). A dispute
    that ended over two weeks ago (history: past its deadline unsent, or closed) is counted on
    the page, not listed again as a problem every night for the rest of the year."""
    ended = is_history(table)
    files = files.loc[~files["provider_dispute_id"].isin(table.loc[ended, "provider_dispute_id"])]
    table = table.loc[~ended]
    problems = problems + state_problems(table, files, dry_run=dry_run)
    problems += held_problems(table, review)
    problems += weak_evidence(table)
    case = case_problems(table, store)
    held = {p.dispute for p in case if p.kind == ProblemKind.CASE_HELD}  # not "pending": held
    problems = [
        p for p in problems if p.kind != ProblemKind.DISPUTE_PENDING or p.dispute not in held
    ]
    return problems + case


def run_counts(
    session: RunSession,
    ingested: IngestOutcome,
    submitted: SubmitOutcome | None,
    alerted: AlertOutcome | None,
    review: ReviewOutcome | None,
    table: pd.DataFrame,
    problems: list[Problem],
) -> dict[str, int]:
    """The run's figures, as its report and its runs row keep them."""
    stats = submitted.stats if submitted else SubmitStats()
    complete = (table["status"] == DisputeStatus.SUBMITTED) & (
        table["files_uploaded"] == table["files_total"]
    )
    counts = {
        "new_files": ingested.new_files,
        "repeated_files": ingested.repeated_files,
        "rows_rejected": ingested.rows_rejected,
        "evidence_sent": stats.evidence_sent,
        "files_uploaded": stats.files_uploaded,  # each one the API answered in this run
        "files_found_at_api": stats.files_reconciled,  # there already (an earlier upload)
        "requests": submitted.requests if submitted else 0,
        "reads": submitted.read.reads if submitted else 0,
        "closed_now": len(submitted.read.closed) if submitted else 0,
        "disputes": len(table),
        "complete": int(complete.sum()),
        "need_you": sum(1 for p in problems if p.kind in NEEDS_A_PERSON),
        "not_read_yet": len(ingested.waiting_files),
        "evidence_complete": int(
            (table.get("completeness", pd.Series(dtype=str)) == "complete").sum()
        ),
        "awaiting_approval": int((table["status"] == D.AWAITING_APPROVAL).sum()),
        "swept": len(review.swept) if review else 0,
        "alerted": len(alerted.alerted) if alerted else 0,
        **ratio_alert_counts(alerted),  # a month's dispute ratio newly at watch or over
    }
    if stats.locked:  # another run (a fleet worker) held them: the next run sends them
        counts["locked"] = stats.locked
    if session.dry_run:
        counts["would_send"] = int((table["next_step"] == WOULD_SEND).sum())
        goes = table["status"].isin((D.PENDING, D.SUBMITTED)) & (table["next_step"] != PAST_DUE)
        counts["would_upload"] = int((table["files_total"] - table["files_uploaded"])[goes].sum())
    return counts


def _exit(session: RunSession, stages: Stages, counts: dict[str, int]) -> int:
    """0: every dispute sent or skipped by a rule, nothing needs a person; 1: anything failed
    or was refused; 5: the run did its work and left something for a person (exits.py)."""
    submitted = stages.submitted
    if submitted and submitted.interrupted:
        return submitted.interrupted
    if session.dry_run:
        return EXIT_OK
    if submitted and submitted.stopped:
        return submitted.stop_code
    states = session.store.reports.status_counts()
    failed = submitted is not None and submitted.stats.failed
    planned = stages.planned or plan_delivery(session.store, session.opts.advice)
    by_rule, unknown = pending_by_threshold(session.store, planned.held)
    if failed or any(states.get(s) for s in (D.REJECTED, D.NOT_FOUND)):
        return EXIT_FAILED
    if states.get(D.PENDING, 0) > by_rule:  # held under the fight threshold: skipped by a rule
        return EXIT_FAILED
    return EXIT_NEEDS_YOU if counts.get("need_you") or unknown else EXIT_OK


WOULD_SEND = "would send its evidence"
PAST_DUE = "past its deadline: would not be sent"
DATA_HELD = "held: would go out wrong"  # its order's data: a row not used, lines short


LISTED = ("provider_dispute_id", "amount", "currency", "reason")  # from the disputes list


def dispute_table(
    store: ReportParts,
    problems: Sequence[Problem] = (),
    *,
    dry_run: bool = False,
    advice: AdvicePolicy | None = None,
    snap: Snapshot | None = None,
) -> pd.DataFrame:
    """One row per dispute, nearest deadline first: its status in words, days left, its file
    counts and file problems, and (in a dry run) what a real run would do with it now. `snap`:
    what the caller already read from the state (else read here)."""
    snap = Snapshot.read(store) if snap is None else snap
    disputes, files = store.reports.dispute_rows(), snap.files
    # vectorised: a Python lambda per dispute was the report's largest cost after a year
    counted = files.assign(
        uploaded=(files["status"] == FileStatus.UPLOADED).astype(int),
        counted=(files["status"] != FileStatus.IN_PACKET).astype(int),  # those go in the packet
    )
    per = counted.groupby("provider_dispute_id").agg(
        files_uploaded=("uploaded", "sum"), files_total=("counted", "sum")
    )
    table = (
        disputes.merge(per, left_on="provider_dispute_id", right_index=True, how="left")
        .fillna({"files_uploaded": 0, "files_total": 0})
        .astype({"files_uploaded": int, "files_total": int})
        .drop(columns=["submitted_hash"])
        .sort_values(["response_due_by", "provider_dispute_id"], na_position="last")
        .reset_index(drop=True)
    )
    listed = store.records.load_records(["disputes"], LISTED)["disputes"]
    if not listed.empty:  # the disputes list's own columns, as last dropped
        listed = listed.drop_duplicates("provider_dispute_id", keep="last")
        keep = [c for c in LISTED[1:] if c in listed]
        table = table.merge(
            listed[["provider_dispute_id", *keep]], on="provider_dispute_id", how="left"
        )
    due = pd.to_datetime(table["response_due_by"], utc=True, errors="coerce")
    left = (due - pd.Timestamp(clock.now())) / pd.Timedelta(days=1)
    table["days_left"] = left.map(lambda d: None if pd.isna(d) else int(d // 1))
    table["status_words"] = table["status"].map(STATUS_WORDS).fillna(table["status"])
    bad_files: dict[str, list[str]] = {}
    held_proofs: dict[str, list[str]] = {}  # another parcel's: the Delivery column says so
    for p in problems:
        if p.dispute and p.file and p.kind not in FILE_NOTES:
            bad_files.setdefault(p.dispute, []).append(f"{p.file}: {p.what}")
            if p.what.startswith(ANOTHER_PARCEL):
                held_proofs.setdefault(p.dispute, []).append(p.file)
    table["file_problems"] = table["provider_dispute_id"].map(
        lambda pid: "; ".join(bad_files.get(pid, []))
    )
    table["store_documents"] = store_documents_column(table, files)
    # ended long ago: counted, not worked on (engine/reporting/history.py)
    old = mark_history(table)
    full = table.loc[~old].reset_index(drop=True)
    snap.open_for(set(full["provider_dispute_id"]))
    _add_completeness(full, store, snap, held_proofs)
    add_case_columns(
        full, store, advice, payloads=snap.payloads, cases=snap.cases(full["provider_dispute_id"])
    )
    typed = dispute_rows(full)  # each dispute's words read once into typed values
    full["next_step"] = [_next_step(r, dry_run) for r in typed]
    full["state_words"] = [plain_state(r, dry_run) for r in typed]
    full["needs_something"] = [needs_something(r) for r in typed]
    if not old.any():
        return full
    rows = pd.concat([full, history_columns(table.loc[old], full)], ignore_index=True)
    order = ["response_due_by", "provider_dispute_id"]
    return rows.sort_values(order, na_position="last", kind="stable").reset_index(drop=True)


def _open(r: DisputeRow) -> bool:
    """Evidence can still go to it: not closed, not refused, not past its deadline."""
    late = (r.days_left or 0) < 0
    return r.status in (DisputeStatus.PENDING, DisputeStatus.SUBMITTED) and not late


def needs_something(r: DisputeRow) -> bool:
    """An open dispute whose evidence a person should still add to (or decide on)."""
    if r.status == DisputeStatus.INCOMPLETE:
        return (r.days_left or 0) >= 0
    return _open(r) and (r.verdict.wanting or r.held)


def plain_state(r: DisputeRow, dry_run: bool = False) -> str:
    """One plain line for a dispute, the same in every report and in `status`: what was done,
    what it still lacks, and the time left ("sent, still missing proof of delivery, 4 days
    left"). Sent is not done while something is missing."""
    days = r.days_left
    late = (days or 0) < 0
    if r.status == DisputeStatus.PENDING and late or r.status == DisputeStatus.PAST_DUE:
        return "past its deadline, not sent"
    if r.status == DisputeStatus.INCOMPLETE:
        parts = [DATA_HELD if r.held else "waiting for data"]
    elif r.status == DisputeStatus.PENDING:
        parts = ["would be sent" if dry_run else "not sent yet"]
    elif r.status == DisputeStatus.AWAITING_APPROVAL:
        # nothing of it is sent until then; held as "advice: accept" says why
        accept = r.holds(HoldKind.ADVICE_ACCEPT)
        parts = [f"{r.detail}, not sent" if accept else "waiting for your approval"]
    elif r.status == DisputeStatus.SUBMITTED:
        waiting = r.files_waiting
        parts = ["sent"] + ([f"{waiting} file(s) still to upload"] if waiting else [])
        if r.held:
            parts.append("an update is held")
    else:
        return r.status_words
    if r.verdict.kind is VerdictKind.MISSING:
        parts.append("still missing " + r.verdict.words)
    elif r.verdict.kind is VerdictKind.WEAK:
        parts.append(r.verdict.text)
    elif r.verdict.kind is VerdictKind.COMPLETE and r.status in OPEN_DISPUTE:
        parts.append("complete")
    if days is not None:
        parts.append(f"{days} day{'s' if days != 1 else ''} left")
    return ", ".join(parts)


def _add_completeness(
    table: pd.DataFrame, store: ReportParts, snap: Snapshot, proofs: dict[str, list[str]]
) -> None:
    """Columns: the reason-aware verdict, what to add, the case's one delivery fact (and the
    `proofs` held as another parcel's) and its named contradictions, the current summary PDF."""
    names = snap.names
    verdicts, adds, summaries, delivery, contradictions = [], [], [], [], []
    reasons = table["reason"] if "reason" in table else pd.Series("", index=table.index)
    still_open = table["status"].isin(OPEN_DISPUTE)
    held = [r.status == D.INCOMPLETE and r.held for r in dispute_rows(table)]
    for pid, reason, open_, held_ in zip(
        table["provider_dispute_id"], reasons.fillna(""), still_open, held, strict=True
    ):
        own = names.get(pid, [])
        versions = sorted((n for n in own if is_summary(pid, n)), key=_version)
        summaries.append(versions[-1] if versions else "")
        case = snap.case(pid)
        if case is None:  # the State column's words: a held one is not waiting for anything
            verdicts.append(DATA_HELD if held_ else "waiting for data")
            adds.append("")
            delivery.append("")
            contradictions.append("")
            continue
        cells = case_cells(case, str(reason))
        verdicts.append(cells["completeness"])
        adds.append(cells["what_to_add"] if open_ else "")  # nothing more can go to it
        delivery.append(with_held_proofs(cells["delivery"], proofs.get(pid, [])))
        contradictions.append(cells["contradictions"])
    table["completeness"], table["what_to_add"], table["summary_pdf"] = verdicts, adds, summaries
    table["delivery"], table["contradictions"] = delivery, contradictions
    _add_generated(table, store)


def case_cells(case: CaseFacts, reason: str = "") -> dict[str, str]:
    """A dispute's row cells read from its case: the verdict (for `reason`, else the case's),
    what to add, the one delivery fact as every page states it, the named contradictions."""
    verdict = assess_case(case, reason or None)
    return {
        "completeness": verdict.text,
        "what_to_add": verdict.what_to_add,
        "delivery": case.delivery_words,
        "contradictions": "; ".join(
            f"{c.name}: {c.fact} (do: {c.todo})" for c in case.contradictions
        ),
    }


def _add_generated(table: pd.DataFrame, store: ReportParts) -> None:
    """Columns: which generated version the API holds (and whether it is current), and the
    packet a reviewer sees (what the page links to)."""
    history = store.generated.generated_versions(table["provider_dispute_id"])
    state = store.generated.generated_state(table["provider_dispute_id"])
    at_api, packets = [], []
    for pid in table["provider_dispute_id"]:
        made_from, material = state.get(pid, (None, None))
        versions = history.get(pid, [])
        at_api.append(api_version_words(versions, made_from, material))
        packets.append(str(versions[-1]["packet_path"] or "") if versions else "")
    table["generated_at_api"], table["packet_path"] = at_api, packets


def _version(name: str) -> int:
    stem = name.removesuffix(".pdf")
    tail = stem.rsplit("-v", 1)[-1]
    return int(tail) if "-v" in stem and tail.isdigit() else 1


def _next_step(r: DisputeRow, dry_run: bool) -> str:
    """What a run does next with this dispute (a dry run: would do now), in words."""
    if r.advice.held:  # under the fight threshold (or no amount to weigh): the advice says so
        return r.advice.text
    waiting = r.files_waiting
    if r.holds(HoldKind.API_VIEW):  # nothing goes, whatever waits
        return r.detail
    if r.status == DisputeStatus.PENDING:
        if r.days_left is not None and r.days_left < 0:
            return PAST_DUE
        return WOULD_SEND if dry_run else "sent by the next run"
    if r.status == DisputeStatus.SUBMITTED and waiting:
        return f"would upload {waiting} file(s)" if dry_run else f"{waiting} file(s) to upload"
    if r.status == DisputeStatus.SUBMITTED and r.held:
        return "an update is " + r.detail
    if r.status == DisputeStatus.SUBMITTED and needs_something(r):
        return f"add: {r.what_to_add}; the next run sends it"
    if r.status == DisputeStatus.INCOMPLETE:
        return r.detail or "waiting for data"
    if r.status == DisputeStatus.PAST_DUE:
        return "none (past the deadline)"
    if r.status == DisputeStatus.AWAITING_APPROVAL:
        if r.holds(HoldKind.ADVICE_ACCEPT):
            return (
                "accept the dispute (your records concede it), or approve it to fight anyway: "
                f"dispute-evidence approve {r.provider_dispute_id}"
            )
        return "waiting for your approval"
    return ""
