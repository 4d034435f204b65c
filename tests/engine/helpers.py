"""Build realistic inboxes and run the engine end to end against a sandbox."""

from __future__ import annotations

from pathlib import Path

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.engine.state import StateStore
from dispute_evidence.engine.steps import (
    RunOptions,
    ingest_inbox_step,
    prepare_step,
    submit_step,
)
from dispute_evidence.sandbox.workload import MERCHANT, TOKEN, make_inbox, write_rows

__all__ = ["MERCHANT", "engine_pass", "make_inbox", "options", "run_once", "write_rows"]


def options(inbox: Path, **kw) -> RunOptions:
    return RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0, **kw)


async def run_once(store: StateStore, base_url: str, inbox: Path, **client_kw):
    """One full engine pass; returns (submit stats, client attempts)."""
    opts = options(inbox)
    run_id = store.start_run("test")
    ingest = ingest_inbox_step(store, opts, run_id)
    prepare_step(store, opts, ingest, run_id, rebuild=ingest.new_files > 0 or store.needs_rebuild())
    client_kw.setdefault("backoff_base", 0.01)
    client_kw.setdefault("rate_limit_per_hour", 10_000_000)
    token = client_kw.pop("token", TOKEN)
    async with DisputeEvidenceClient(base_url, token, **client_kw) as client:
        stats = await submit_step(store, client, opts)
        store.finish_run(run_id, "ok", {})
        return stats, client.stats.attempts


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
    """One pass as engine/run.py makes it: ingest, prepare (rebuild), read back (with a
    `policy`), send what the read left free. Returns (prepare outcome, read outcome, HTTP
    attempts)."""
    import asyncio

    from dispute_evidence.engine.readback import ReadOutcome, read_back

    opts = options(inbox, **opts_kw)
    run_id = store.start_run("test")
    prepared = prepare_step(
        store, opts, ingest_inbox_step(store, opts, run_id), run_id, rebuild=True
    )

    async def go():
        async with DisputeEvidenceClient(
            base_url, TOKEN, backoff_base=0.01, rate_limit_per_hour=10_000_000, max_concurrency=16
        ) as client:
            read = ReadOutcome()
            if policy is not None:
                read = await read_back(
                    store, client, policy, budget_per_hour=budget_per_hour, run_id=run_id
                )
            if send:
                queue = [p for p in store.work_queue() if p not in read.held]
                await submit_step(store, client, opts, queue=queue)
            return read, client.stats.attempts

    read, attempts = asyncio.run(go())
    store.finish_run(run_id, "ok", {})
    return prepared, read, attempts
