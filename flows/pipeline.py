"""Prefect flows: thin wrappers over dispute_evidence.engine.run.

Tasks are coarse on purpose (ingest, build, submit, report): a run over 100,000 disputes
spends its time in work, not in orchestration; progress inside `submit` goes to the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NONE

from dispute_evidence.engine import run as steps
from dispute_evidence.engine.submit import RunAborted
from dispute_evidence.inbox import default_state, file_sha256, is_settled, signature
from dispute_evidence.ingest import scan_inbox
from dispute_evidence.settings import load_settings


@task(name="ingest inbox", cache_policy=NONE)
def ingest_task(ctx: steps.RunContext) -> Any:
    out = steps.ingest(ctx)
    get_run_logger().info("read %d new file(s), %d seen before, %d row(s) rejected", out.new_files,
                          out.repeated_files, ctx.counts.get("rows_rejected", 0))  # fmt: skip
    return out


@task(name="build payloads", cache_policy=NONE)
def prepare_task(ctx: steps.RunContext, ingested: Any) -> Any:
    out = steps.prepare(ctx, ingested)
    get_run_logger().info("payloads: %d built, %d waiting for data, %d conflict(s); %d new evidence file(s)",
                          out.payloads, out.incomplete, len(out.conflicts), out.files_added)  # fmt: skip
    return out


@task(name="submit to the API", cache_policy=NONE)
def submit_task(ctx: steps.RunContext, base_url: str | None) -> Any:
    logger = get_run_logger()
    api = ctx.settings.api_settings(base_url=base_url)
    total = len(ctx.store.work_queue())
    done = [0]
    step = max(1, total // 10)

    def on_done(_pid: str) -> None:
        done[0] += 1
        if ctx.progress:
            ctx.progress(done[0], total)
        if done[0] % step == 0 or done[0] == total:
            logger.info("submitted %d of %d dispute(s)", done[0], total)

    import asyncio

    stats, requests = asyncio.run(steps.submit(ctx, api, on_done=on_done))
    logger.info("sent evidence for %d dispute(s), uploaded %d file(s), %d request(s)",
                stats.evidence_sent, stats.files_uploaded, requests)  # fmt: skip
    return stats


@task(name="write report", cache_policy=NONE)
def report_task(ctx: steps.RunContext, ingested: Any, prepared: Any, outcome: str) -> str:
    path = steps.report(ctx, ingested, prepared, outcome)
    create_markdown_artifact(path.read_text(encoding="utf-8"), key="dispute-evidence-summary",
                             description=f"Run {ctx.run_id}")  # fmt: skip
    counts = [{"measure": k, "value": v} for k, v in sorted(ctx.counts.items())]
    create_table_artifact(counts, key="dispute-evidence-counts", description=f"Run {ctx.run_id}")
    return str(path)


@flow(name="dispute-evidence", log_prints=True)
def evidence_run(inbox: str, config: str | None = None, state: str | None = None, dry_run: bool = False,
                 base_url: str | None = None, trigger: str = "manual",
                 wait_for_lock: float = 0.0, adopt: bool = False, reconcile: bool = False) -> dict[str, Any]:  # fmt: skip
    """Ingest the inbox, build payloads, submit, report. Returns exit code, report path, counts.

    `wait_for_lock`: seconds to wait for a run already working on this inbox (0: give up).
    `adopt`: the state store may take this inbox (it moved); `reconcile`: a new state store
    checks the API's file listings before uploading (it replaces a lost one)."""
    settings = load_settings(Path(config) if config else None)
    ctx = steps.open_run(settings, Path(inbox), state=state, dry_run=dry_run, trigger=trigger,
                         config_dir=Path(config).parent if config else Path("config"),
                         wait_for_lock=wait_for_lock, adopt=adopt, reconcile=reconcile)  # fmt: skip
    ctx.progress = _PROGRESS[0]
    code, outcome, stats, finished = steps.EXIT_OK, "ok", None, False
    try:
        ingested = ingest_task(ctx)
        prepared = prepare_task(ctx, ingested)
        if dry_run:
            outcome = "dry run: nothing sent"
        else:
            try:
                stats = submit_task(ctx, base_url)
            except RunAborted as exc:
                get_run_logger().error(str(exc))
                ctx.notes.append(str(exc))
                outcome, code = "stopped: the API refused the key", steps.EXIT_AUTH
        if code == steps.EXIT_OK:
            code = steps.exit_code(ctx, stats)
            outcome = outcome if code == steps.EXIT_OK else "finished with problems"
        path = report_task(ctx, ingested, prepared, outcome)
        finished = True
    finally:
        steps.close_run(ctx, outcome if finished else "failed")
    return {
        "exit_code": code,
        "report": path,
        "run_id": ctx.run_id,
        "counts": ctx.counts,
        "outcome": outcome,
    }


_PROGRESS: list[Any] = [None]  # set by the CLI to draw a progress bar in a terminal


def new_inbox_files(inbox: Path, state: str | None, settle: float) -> list[str]:
    """Settled spreadsheets not yet ingested, and settled evidence files no run has considered."""
    from dispute_evidence.engine.state import StateStore

    sheets, evidence, _ = scan_inbox(inbox)
    store = StateStore(state or default_state(inbox))
    try:
        fresh = [
            p for p in sheets if is_settled(p, settle) and not store.is_ingested(file_sha256(p))
        ]
        seen = store.seen_evidence()
        fresh += [p for p in evidence if is_settled(p, settle) and signature(inbox, p) not in seen]
    finally:
        store.close()
    return [str(p) for p in fresh]


@flow(name="dispute-evidence-inbox-watch")
def inbox_watch(
    inbox: str, config: str | None = None, state: str | None = None
) -> dict[str, Any] | None:
    """Run the pipeline when analysts have dropped new files (and they are fully written)."""
    settings = load_settings(Path(config) if config else None)
    fresh = new_inbox_files(Path(inbox), state, settings.ingest.settle_seconds)
    if not fresh:
        get_run_logger().info("no new files in %s", inbox)
        return None
    get_run_logger().info("%d new file(s): starting a run", len(fresh))
    try:
        return evidence_run(inbox, config, state, trigger="inbox")
    except steps.RunLocked as exc:
        get_run_logger().info("%s; the next check will pick the files up", exc)
        return None
