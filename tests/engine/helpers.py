"""Build realistic inboxes and run the engine end to end against a sandbox."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from dispute_evidence.api import DisputeEvidenceClient, MerchantProfile
from dispute_evidence.engine.state import StateStore
from dispute_evidence.engine.steps import (
    RunOptions,
    ingest_inbox_step,
    prepare_step,
    submit_step,
)
from tests.conftest import TOKEN

MERCHANT = MerchantProfile(
    merchant_id="m_1", merchant_name="Acme", merchant_website="https://acme.test"
)


def write_rows(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def make_inbox(
    inbox: Path, n: int, files: tuple[int, int] = (1, 1), seed: int = 1, prefix: str = "dp_test_"
) -> int:
    """Disputes/orders/shipments CSVs for n disputes and 1-3 PDFs each; returns the file count."""
    rng = random.Random(seed)
    inbox.mkdir(parents=True, exist_ok=True)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[f"{prefix}{i}", f"#{5000 + i}", "general"] for i in range(n)])  # fmt: skip
    # complete evidence for a "general" dispute (products, customer name and email)
    write_rows(inbox / "orders.csv", ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email", "customer_name"],
               [[5000 + i, f"Item {j}", 9.5 + j, 1 + j, "USD", f"c{i}@example.com", f"Customer {i}"] for i in range(n) for j in range(2)])  # fmt: skip
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier"],
               [[5000 + i, f"1Z{i:06d}", "UPS"] for i in range(n)])  # fmt: skip
    total = 0
    (inbox / "proofs").mkdir(exist_ok=True)
    for i in range(n):
        for k in range(rng.randint(*files)):
            (inbox / "proofs" / f"{prefix}{i}_proof{k}.pdf").write_bytes(
                b"%PDF-1.4\n" + f"{i}/{k}".encode() * 20
            )
            total += 1
    return total


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
