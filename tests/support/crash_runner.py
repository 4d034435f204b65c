"""A bare engine run (no Prefect) for the crash test: `python -m tests.support.crash_runner INBOX STATE URL`.

The test SIGKILLs it at random moments; the token comes from DISPUTE_API_TOKEN. With
CRASH_UPLOAD=packet it runs in packet mode (tests/e2e/flows/test_packet_kill.py)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.engine.delivery.submit import submit_step
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.state.store import StateStore
from tests.support.engine_helpers import options


async def main(inbox: Path, state: Path, url: str) -> None:
    store = StateStore(state)
    opts = options(inbox, concurrency=2)
    if os.environ.get("CRASH_UPLOAD") == "packet":
        from dispute_evidence.policies import PacketPolicy

        # documents matched by name: the kills land sooner
        opts = options(
            inbox, concurrency=2, summary_pdf=True, packet=PacketPolicy("packet"), read_limits=None
        )
    run_id = store.runs.start_run("crash-test")
    ingest = ingest_inbox_step(store, opts, run_id)
    prepare_step(
        store, opts, ingest, run_id, rebuild=ingest.new_files > 0 or store.records.needs_rebuild()
    )
    async with DisputeEvidenceClient(url, rate_limit_per_hour=10**7, backoff_base=0.01) as client:
        await submit_step(store, client, opts)
    store.runs.finish_run(run_id, "ok", {})


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
