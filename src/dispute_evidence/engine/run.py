"""A whole run as small library steps (the Prefect flow wraps each as a task):
open -> ingest -> prepare -> submit -> report -> close."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from dispute_evidence.api import ApiSettings, DisputeEvidenceClient
from dispute_evidence.engine.pipeline import (
    IngestOutcome,
    PrepareOutcome,
    RunOptions,
    ingest_inbox_step,
    prepare_step,
    submit_step,
)  # fmt: skip
from dispute_evidence.engine.state import StateStore, new_owner, new_run_id
from dispute_evidence.engine.submit import RunAborted, SubmitStats
from dispute_evidence.inbox import InboxLayout, default_state
from dispute_evidence.reports import RunReport, write_report
from dispute_evidence.settings import Settings

log = logging.getLogger("dispute_evidence.run")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_AUTH = 0, 1, 2, 3


class RunLocked(Exception):
    """Another run holds this state store (and so this inbox)."""


@dataclass
class RunContext:
    settings: Settings
    store: StateStore
    opts: RunOptions
    run_id: str
    reports_dir: Path
    dry_run: bool
    trigger: str
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    progress: Any = None  # callable(done, total) for a terminal progress bar

    @property
    def report_folder(self) -> Path:
        return self.reports_dir / self.run_id


def open_run(settings: Settings, inbox: Path, *, state: str | Path | None = None, dry_run: bool = False,
             trigger: str = "manual", config_dir: Path = Path("."), wait_for_lock: float = 0.0,
             poll: float = 15.0, adopt: bool = False, reconcile: bool = False) -> RunContext:  # fmt: skip
    """Open the state store, take the run lock, and start a run row.

    With `wait_for_lock`, a run that finds another one working waits for it (up to that many
    seconds) instead of giving up: the nightly run must not be lost to an inbox-triggered one.
    `adopt` rebinds a state store to this inbox (it moved); `reconcile` makes a new state check
    the API's file listings before uploading (it replaces a lost or damaged one)."""
    inbox = inbox.expanduser().resolve()
    if not inbox.is_dir():
        raise FileNotFoundError(f"inbox {inbox} is not a folder")
    store = StateStore(state or settings.paths.state or default_state(inbox))
    label = trigger if not dry_run else f"{trigger} (dry run)"
    run_id = new_run_id()
    try:
        _take_lock(store, run_id, label, wait_for_lock, poll)
    except BaseException:
        store.close()
        raise
    try:
        store.start_run(label, run_id)
        store.mark_crashed_runs(except_run=run_id)
        store.bind_inbox(inbox, adopt=adopt)
        if reconcile:
            store.set_reconcile_uploads(True)
        return _context(settings, store, inbox, run_id, dry_run, trigger, config_dir)
    except BaseException as exc:  # the lock is ours: never leave it behind
        store.finish_run(run_id, f"failed: {type(exc).__name__}", {})
        store.release_run_lock(new_owner(run_id))
        store.close()
        raise


def _take_lock(store: StateStore, run_id: str, label: str, wait: float, poll: float) -> None:
    deadline = time.monotonic() + wait
    while holder := store.acquire_run_lock(new_owner(run_id)):
        if time.monotonic() >= deadline:
            store.start_run(label, run_id)
            store.finish_run(run_id, "skipped: another run in progress", {})
            raise RunLocked(f"another run is in progress on this inbox/state: {holder}")
        log.info("waiting for %s to finish", holder)
        time.sleep(min(poll, max(deadline - time.monotonic(), 0.0)))


def _context(settings: Settings, store: StateStore, inbox: Path, run_id: str, dry_run: bool,
             trigger: str, config_dir: Path) -> RunContext:  # fmt: skip
    ingest = settings.ingest
    opts = RunOptions(inbox=inbox, merchant=settings.merchant.profile(), mappings=settings.mappings(config_dir),
                      max_file_bytes=int(ingest.max_file_mb * 1e6), settle_seconds=ingest.settle_seconds,
                      archive=ingest.archive and not dry_run, concurrency=settings.api.concurrency)  # fmt: skip
    reports = settings.paths.reports or InboxLayout.at(inbox).default_reports
    return RunContext(settings, store, opts, run_id, Path(reports), dry_run, trigger)


def ingest(ctx: RunContext) -> IngestOutcome:
    out = ingest_inbox_step(ctx.store, ctx.opts, ctx.run_id)
    ctx.counts.update(new_files=out.new_files, repeated_files=out.repeated_files,
                      rows_rejected=sum(s.rows_rejected for s in out.summaries))  # fmt: skip
    for folder, why in out.folder_problems.items():
        ctx.notes.append(f"Inbox folder {folder}/ cannot be used: {why}")
    if out.waiting_files:
        ctx.notes.append(f"{len(out.waiting_files)} file(s) still being written; they will be read next run: "
                         + ", ".join(out.waiting_files[:5]))  # fmt: skip
    return out


def prepare(ctx: RunContext, ingested: IngestOutcome) -> PrepareOutcome:
    rebuild = ingested.new_files > 0 or ctx.store.needs_rebuild() or ctx.dry_run
    out = prepare_step(
        ctx.store, ctx.opts, ingested, ctx.run_id, rebuild=rebuild, dry_run=ctx.dry_run
    )
    if not ctx.dry_run:  # every file in the inbox is registered: reconciling them is enough
        ctx.store.set_reconcile_uploads(False)
    if ctx.dry_run:
        folder = ctx.report_folder / "payloads"
        folder.mkdir(parents=True, exist_ok=True)
        for pid, body in out.dry_payloads.items():
            (folder / f"{_safe(pid)}.json").write_bytes(
                orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2)
            )
        pd.DataFrame([(pid, f) for pid, fs in out.dry_matches.items() for f in fs],
                     columns=["provider_dispute_id", "file"]).to_csv(ctx.report_folder / "file_matches.csv", index=False)  # fmt: skip
    return out


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:120]


async def submit(ctx: RunContext, api: ApiSettings, on_done: Any = None) -> tuple[SubmitStats, int]:
    """Send what needs sending; returns stats and the number of HTTP attempts made."""
    owner, renewed = new_owner(ctx.run_id), [time.monotonic()]

    def done(pid: str) -> None:
        if time.monotonic() - renewed[0] > 60:
            ctx.store.renew_run_lock(owner)
            renewed[0] = time.monotonic()
        if on_done:
            on_done(pid)

    async with DisputeEvidenceClient(settings=api) as client:
        try:
            stats = await submit_step(ctx.store, client, ctx.opts, on_done=done)
        finally:
            ctx.counts["requests"] = client.stats.attempts
    ctx.counts.update(
        evidence_sent=stats.evidence_sent,
        files_uploaded=stats.files_uploaded + stats.files_reconciled,
    )
    return stats, ctx.counts["requests"]


def submit_sync(ctx: RunContext, api: ApiSettings) -> SubmitStats:
    return asyncio.run(submit(ctx, api))[0]


def report(
    ctx: RunContext, ingested: IngestOutcome, prepared: PrepareOutcome, outcome: str
) -> Path:
    disputes = ctx.store.dispute_table()
    files = ctx.store.file_table()
    per = files.groupby("provider_dispute_id")["status"].agg(
        files_uploaded=lambda s: int((s == "uploaded").sum()), files_total="count")  # fmt: skip
    table = disputes.merge(per, left_on="provider_dispute_id", right_index=True, how="left").fillna(
        {"files_uploaded": 0, "files_total": 0}).astype({"files_uploaded": int, "files_total": int})  # fmt: skip
    table = table.drop(columns=["submitted_hash"]).sort_values(
        ["response_due_by", "provider_dispute_id"], na_position="last"
    )
    open_files = set(files.loc[files["status"] != "uploaded", "provider_dispute_id"])
    complete = (table["status"] == "submitted") & ~table["provider_dispute_id"].isin(open_files)
    ctx.counts.update(disputes=len(table), complete=int(complete.sum()))
    rep = RunReport(
        ctx.run_id,
        outcome,
        ctx.dry_run,
        ctx.counts,
        table,
        _problems(ingested, prepared, table, files),
        ctx.notes,
    )
    return write_report(rep, ctx.report_folder)


def _reject_row(kind: str, r: Any) -> dict[str, Any]:
    """A problem that points at a cell (or a whole file) as the analyst sees it in Excel."""
    return {"problem_kind": kind, "file": r.file, "sheet": r.sheet or "", "row": r.row or "",
            "column": r.column or "", "value": r.value or "", "problem": r.reason, "where": r.line().split(":")[0]}  # fmt: skip


def _problems(
    ingested: IngestOutcome, prepared: PrepareOutcome, disputes: pd.DataFrame, files: pd.DataFrame
) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    rows += [
        _reject_row("Rows or files not used", r) for r in [*ingested.rejects, *prepared.conflicts]
    ]
    rows += [
        _reject_row("Disputed charges missing from the disputes list", r)
        for r in prepared.unlisted_disputes
    ]
    for path, why in ingested.skipped:
        rows.append({"problem_kind": "Files skipped", "file": path, "problem": why, "where": path})
    for path, why in [*ingested.not_moved, *prepared.not_moved]:
        rows.append(
            {"problem_kind": "Files left in the inbox", "file": path, "problem": why, "where": path}
        )
    for issue in prepared.file_issues:
        rows.append(
            {
                "problem_kind": "Evidence files not uploaded",
                "file": issue.label,
                "problem": issue.reason,
                "where": issue.label,
            }
        )
    for d in disputes.loc[~disputes["status"].isin(["submitted"])].itertuples(index=False):
        why = d.detail or d.last_error or d.status
        rows.append({"problem_kind": f"Disputes {d.status.replace('_', ' ')}", "dispute": d.provider_dispute_id,
                     "problem": why, "where": d.provider_dispute_id})  # fmt: skip
    for f in files.loc[files["status"] != "uploaded"].itertuples(index=False):
        kind = (
            "Evidence files refused by the API"
            if f.status == "rejected"
            else "Evidence files not yet uploaded"
        )
        rows.append({"problem_kind": kind, "dispute": f.provider_dispute_id, "file": f.file_name,
                     "problem": f.last_error or f.status, "where": f"{f.provider_dispute_id} {f.file_name}"})  # fmt: skip
    cols = [
        "problem_kind",
        "dispute",
        "file",
        "sheet",
        "row",
        "column",
        "value",
        "problem",
        "what to do",
        "where",
    ]
    frame = pd.DataFrame(rows, columns=cols)
    frame["row"] = frame["row"].map(
        lambda r: "" if r in ("", None) or r != r else int(r)
    )  # 10, not 10.0
    frame["what to do"] = frame["problem_kind"].map(WHAT_TO_DO)
    return frame.fillna("")


# One plain instruction per kind of problem (the problem text says what exactly is wrong).
WHAT_TO_DO = {
    "Rows or files not used": "Fix the cell in the source system or sheet and drop the corrected file "
                              "again; the file's other rows were used.",
    "Disputed charges missing from the disputes list": "Add the dispute to the disputes list (its dp_… id "
                                                        "and order number) before its deadline.",
    "Files left in the inbox": "Fix the inbox folder the problem names; the file was used and "
                               "stays where it is until then (dropping it again does no harm).",
    "Files skipped": "Nothing, if the file is not an export or evidence; otherwise save it as CSV, "
                     "XLSX, PDF, PNG or JPG.",
    "Evidence files not uploaded": "Rename or re-save the file as the problem says and drop it again.",
    "Evidence files not yet uploaded": "Nothing: the next run retries it (check the problem if it repeats).",
    "Evidence files refused by the API": "Replace the file as the problem says (type, size) and drop it again.",
    "Disputes pending": "Nothing: the next run sends it (check the problem if it repeats).",
    "Disputes incomplete": "Drop the missing export (orders) for this dispute's order.",
    "Disputes past due": "Nothing can be sent after the deadline; check the date if it looks wrong.",
    "Disputes rejected": "Correct the data the API refused (see the problem) and drop the file again.",
    "Disputes not found": "Check the dispute id in the disputes list; the API does not know it.",
}  # fmt: skip


def exit_code(ctx: RunContext, stats: SubmitStats | None) -> int:
    """0: every dispute sent or skipped by a rule; 1: anything failed or was refused."""
    counts = ctx.store.status_counts()
    if stats and stats.failed or any(counts.get(s) for s in ("rejected", "not_found")):
        return EXIT_FAILED
    return EXIT_FAILED if counts.get("pending") and not ctx.dry_run else EXIT_OK


def close_run(ctx: RunContext, outcome: str) -> None:
    ctx.store.finish_run(ctx.run_id, outcome, ctx.counts)
    ctx.store.release_run_lock(new_owner(ctx.run_id))
    ctx.store.close()


__all__ = ["EXIT_AUTH", "EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "RunAborted", "RunContext", "RunLocked",
           "close_run", "exit_code", "ingest", "open_run", "prepare", "report", "submit"]  # fmt: skip
