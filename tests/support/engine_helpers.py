"""Build realistic inboxes and run the engine end to end against a sandbox: each pass is
engine/run_steps.py's own sequence (`execute`: ingest, prepare and review, read back and submit,
alert, report) on the store a test holds."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from dispute_evidence.api import ApiSettings
from dispute_evidence.engine.delivery.api_readback import ReadOutcome
from dispute_evidence.engine.delivery.submit import RunAborted
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.prepare.build import PrepareOutcome, ingest_inbox_step
from dispute_evidence.engine.reporting.report import SubmitOutcome
from dispute_evidence.engine.run_steps import execute
from dispute_evidence.engine.session import RunSession
from dispute_evidence.sandbox.workload import MERCHANT, TOKEN, make_inbox, write_rows
from dispute_evidence.state.store import StateStore, new_run_id

__all__ = [
    "MERCHANT",
    "engine_pass",
    "ingest_inbox_step",  # for tests that set a state up step by step
    "make_inbox",
    "options",
    "run_once",
    "write_rows",
]

PREPARED, SUBMITTED = "build payloads", "submit to the API"  # execute's step names


def options(inbox: Path, **kw) -> RunOptions:
    return RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0, **kw)


def _api(base_url: str, budget_per_hour: int = 10_000_000, **kw: Any) -> ApiSettings:
    """The client's settings for a test. The read-back budget is rate_limit_per_hour's share,
    as in a real run; the pacer spends that budget within a second, not an hour, so a test
    with a small budget does not wait for it."""
    kw.setdefault("backoff_base", 0.01)
    kw.setdefault("token", TOKEN)
    return ApiSettings(
        base_url=base_url, rate_limit_per_hour=budget_per_hour, rate_limit_period=1.0, **kw
    )


def _execute(
    store: StateStore, opts: RunOptions, api: ApiSettings, *, dry_run: bool = False
) -> dict[str, Any]:
    """One run of the engine's sequence on `store`; what each step returned, by its name."""
    run_id = new_run_id()
    store.runs.start_run("test", run_id)
    reports = opts.inbox.parent / "reports" / run_id
    session = RunSession(store, opts, run_id, reports, dry_run, "test", None if dry_run else api)
    returned: dict[str, Any] = {}

    def step(name: str, fn: Any, /, *args: Any) -> Any:
        returned[name] = fn(*args)
        return returned[name]

    result = execute(session, step=step)
    store.runs.finish_run(run_id, result.outcome, result.counts)
    return returned


async def run_once(store: StateStore, base_url: str, inbox: Path, **client_kw):
    """One full engine pass; returns (submit stats, HTTP attempts). A pass whose sending
    stopped (the key refused) raises RunAborted with the run's own words."""
    api = _api(base_url, **client_kw)
    returned = await asyncio.to_thread(_execute, store, options(inbox), api)
    sent: SubmitOutcome = returned[SUBMITTED]
    if sent.stopped:
        raise RunAborted(sent.stopped)
    return sent.stats, sent.requests


def engine_pass(
    store: StateStore,
    base_url: str,
    inbox: Path,
    *,
    policy=None,
    budget_per_hour: int = 5000,
    send: bool = True,
    **opts_kw,
):
    """One pass: ingest, prepare, read back (with a `policy`, within its share of
    `budget_per_hour`), send what the read left free; `send=False`: a dry run. Returns
    (prepare outcome, read outcome, HTTP attempts)."""
    opts = options(inbox, read_policy=policy, **opts_kw)
    api = _api(base_url, budget_per_hour, max_concurrency=16)
    returned = _execute(store, opts, api, dry_run=not send)
    prepared: PrepareOutcome = returned[PREPARED]
    sent: SubmitOutcome | None = returned.get(SUBMITTED)
    if sent is None:  # a dry run reads nothing back and sends nothing
        return prepared, ReadOutcome(), 0
    return prepared, sent.read, sent.requests
