"""Prefect flows: thin wrappers over dispute_evidence.engine.run.

The engine's one sequence of steps (`execute`) runs here with a step runner that makes each
step a Prefect task (ingest, build, submit, report): coarse on purpose, so a run over 100,000
disputes spends its time in work, not in orchestration; progress inside `submit` goes to
the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NONE

from dispute_evidence.engine import run as steps
from dispute_evidence.engine.state import StateStore
from dispute_evidence.inbox import default_state, file_sha256, is_settled, signature
from dispute_evidence.ingest import scan_inbox
from dispute_evidence.settings import load_settings


def as_task(name: str, fn: Any, /, *args: Any) -> Any:
    """The engine's step runner under Prefect: each step is one task run."""
    return task(name=name, cache_policy=NONE)(fn)(*args)


def _logged_progress() -> steps.Progress:
    logger = get_run_logger()

    def report(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            logger.info("submitted %d of %d dispute(s)", done, total)

    return report


@flow(name="dispute-evidence", log_prints=True)
def evidence_run(
    inbox: str,
    config: str | None = None,
    state: str | None = None,
    dry_run: bool = False,
    base_url: str | None = None,
    trigger: str = "manual",
    wait_for_lock: float = 0.0,
    adopt: bool = False,
    reconcile: bool = False,
) -> dict[str, Any]:
    """Ingest the inbox, build payloads, submit, report. Returns exit code, report path, counts.

    `wait_for_lock`: seconds to wait for a run already working on this inbox (0: give up).
    `adopt`: the state store may take this inbox (it moved); `reconcile`: a new state store
    checks the API's file listings before uploading (it replaces a lost one)."""
    settings = load_settings(Path(config) if config else None)
    api = None if dry_run else settings.api_settings(base_url=base_url)
    result = steps.run_inbox(
        settings,
        Path(inbox),
        step=as_task,
        progress=_logged_progress(),
        api=api,
        state=state,
        dry_run=dry_run,
        trigger=trigger,
        wait_for_lock=wait_for_lock,
        adopt=adopt,
        reconcile=reconcile,
        config_dir=Path(config).parent if config else Path("config"),
    )
    create_markdown_artifact(
        result.report.read_text(encoding="utf-8"),
        key="dispute-evidence-summary",
        description=f"Run {result.run_id}",
    )
    counts = [{"measure": k, "value": v} for k, v in sorted(result.counts.items())]
    create_table_artifact(counts, key="dispute-evidence-counts", description=f"Run {result.run_id}")
    return result.as_dict()


def new_inbox_files(inbox: Path, state: str | None, settle: float) -> list[str]:
    """Settled spreadsheets not yet ingested, and settled evidence files no run has considered."""
    sheets, evidence, _ = scan_inbox(inbox)
    with StateStore(state or default_state(inbox)) as store:
        fresh = [
            p for p in sheets if is_settled(p, settle) and not store.is_ingested(file_sha256(p))
        ]
        seen = store.seen_evidence()
        fresh += [p for p in evidence if is_settled(p, settle) and signature(inbox, p) not in seen]
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
