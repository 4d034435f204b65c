"""Reading back (issue 13): what a run spends on reads for 1,000 open disputes known at the
API, against the hour's budget, on a sandbox over loopback. Three runs: the first read of all
(a listing), a quiet run the same day (nothing due), and a run where every dispute has new
work (all must be read before sending). Per-id reads, for the comparison, are what the same
first read would cost one dispute at a time."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from bench.common import TOKEN, figure, heading
from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.engine.delivery.api_readback import read_back
from dispute_evidence.engine.delivery.submit import submit_step
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.policies import ReadPolicy
from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from dispute_evidence.sandbox.workload import MERCHANT, make_inbox, seed_rows
from dispute_evidence.state.store import StateStore

BUDGET = 5000


def _pass(store: StateStore, base: str, inbox: Path, send: bool = True):  # type: ignore[no-untyped-def]
    opts = RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0)
    run_id = store.runs.start_run("bench")
    prepare_step(store, opts, ingest_inbox_step(store, opts, run_id), run_id, rebuild=True)

    async def go():  # type: ignore[no-untyped-def]
        async with DisputeEvidenceClient(
            base, TOKEN, rate_limit_per_hour=10_000_000, max_concurrency=16
        ) as client:
            t0 = time.perf_counter()
            read = await read_back(
                store, client, ReadPolicy(), budget_per_hour=BUDGET, run_id=run_id
            )
            secs = time.perf_counter() - t0
            if send:
                queue = [p for p in store.disputes.work_queue() if p not in read.held]
                await submit_step(store, client, opts, queue=queue)
            return read, secs

    out = asyncio.run(go())
    store.runs.finish_run(run_id, "bench", {})
    return out


def run(quick: bool = False) -> None:
    n = 200 if quick else 1000
    heading(f"read back: {n} open disputes known at the API, budget {BUDGET}/h (issue 13)")
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,), rate_limit=10**9), seed_rows(n))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            inbox = Path(tmp) / "inbox"
            make_inbox(inbox, n)
            with StateStore(Path(tmp) / "s.sqlite3") as store:
                _pass(store, sb.base_url, inbox)  # first send: the API ids become known
                first, secs = _pass(store, sb.base_url, inbox)
                quiet, _ = _pass(store, sb.base_url, inbox)
                for i in range(n):
                    (inbox / "proofs" / f"dp_test_{i}_new.pdf").write_bytes(
                        b"%PDF-1.4 " + str(i).encode()
                    )
                busy, _ = _pass(store, sb.base_url, inbox, send=False)
        share = first.budget / BUDGET
        figure(
            "read allowance per run (requests, share of budget)", f"{first.budget} ({share:.0%})"
        )
        figure(
            "first read of all: requests (listing pages)", f"{first.reads} ({first.listed_pages})"
        )
        figure("  same read one GET per dispute would cost", f"{n}")
        figure("  share of the hour's budget", f"{first.reads / BUDGET:.2%}")
        figure("  time for the reads (s)", f"{secs:.2f}")
        figure("quiet run the same day: reads", f"{quiet.reads}", "(0: nothing due)")
        figure("every dispute has new work: reads before sending", f"{busy.reads}")
        figure("  disputes held unread", f"{len(busy.held)}", "(0)")
    finally:
        sb.stop()
