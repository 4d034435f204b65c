"""Issue 11: many merchants on a Prefect server (PostgreSQL), two process workers, one killed.

The same stack as tests/e2e/fleet/test_multi_worker.py at a larger size, keys lifted to a high
budget; the per-key request log is the local API's. The shared budget's overhead is measured
in the same run by one client sending the same requests with and without it (A/B, alternated).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.common import figure, heading
from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.fleet.budget import BudgetShape, KeyBudgets, SharedBudget
from dispute_evidence.sandbox.ratelimit import busiest_window, over_budget

WINDOW = 60.0
KEYS = {"shared": 1_000_000, "k2": 1_000_000, "k3": 1_000_000, "k4": 1_000_000, "k5": 1_000_000}
MERCHANT_KEYS = ["shared", "shared", "k2", "k3", "k4", "k5"]


def run(quick: bool = False, merchants: int | None = None, compare: bool = False) -> None:
    """Six merchants, one worker killed (issue 11); with `merchants`: a platform's night of
    that many merchants with the sweep (issue 48, bench/sweep_night.py), and with `compare`
    today's one deployment per merchant beside it (bench/prefect_cost.py's stack)."""
    if merchants is not None:
        from bench.sweep_night import run_night

        run_night(merchants, compare)
        return
    from support.fleet import Merchant, fleet_stack
    from support.pg import postgres_missing

    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # the kill cuts uploads
    n = 200 if quick else 2000
    heading(f"scale: 6 merchants x {n} disputes, 2 process workers, one killed (issue 11)")
    if why := postgres_missing():
        print(f"  skipped: {why}")
        return
    merchants = [Merchant(f"m{i}", k, n) for i, k in enumerate(MERCHANT_KEYS, start=1)]
    with (
        tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp,
        fleet_stack(Path(tmp), merchants, KEYS, window=WINDOW, summary_pdf=False) as fleet,
    ):
        assert fleet.deploy().returncode == 0, "deploy failed"
        # the shared budget's cost, on the same server and database the runs use
        overhead = budget_overhead(fleet.sandbox.base_url, fleet.probe_token, fleet.root)
        gcl, bucket = _gcl_vs_bucket(fleet.prefect_url, _budget_url(fleet.root))
        fleet.start_worker("w1", limit=3)
        fleet.start_worker("w2", limit=3)
        time.sleep(4)
        started = time.monotonic()
        fleet.trigger_all()
        killed_at = _kill_when_under_way(fleet, merchants[0])
        while not fleet.done():
            time.sleep(2)
        snap = fleet.sandbox.snapshot()
        logs = fleet.sandbox.requests_by_key()
        runs = [r for r in fleet.flow_runs() if r.state and r.state.type.value != "SCHEDULED"]
    last = max(max(t) for t in logs.values() if t)
    uploads = Counter((pid, f["sha256"]) for pid, s in snap.items() for f in s["files"])
    duplicates = sum(c - 1 for c in uploads.values())
    resent = sum(s["evidence_updates"] for s in snap.values()) - len(snap)
    crashed = sum(1 for r in runs if r.state and r.state.type.value == "CRASHED")
    figure("merchants", f"{len(merchants)}")
    figure("workers (one SIGKILLed mid-run with its flow runs)", "2")
    figure("flow runs (crashed, then run again by the automation)", f"{len(runs)} ({crashed})")
    figure("disputes submitted", f"{sum(1 for s in snap.values() if s['evidence']):,}")
    figure("files uploaded", f"{len(uploads):,}")
    figure("duplicates (files uploaded twice)", f"{duplicates}", "(0)")
    figure("evidence sent again after the kill (replaces, not duplicates)", f"{resent}")
    over_total = 0
    for key, per_hour in KEYS.items():
        times = logs[fleet.key_label(key)]
        for window in (WINDOW, 3600.0):
            allowed = per_hour * window / 3600
            over_total += over_budget(times, window, allowed)
            most = busiest_window(times, window)
            figure(
                f"key {key}: max requests in any {window:.0f} s / budget",
                f"{most:,} / {allowed:,.0f}",
                f"({most / allowed:.1%})",
            )
    figure("shared budget: requests/s without it (A/B, same run)", f"{overhead[0]:,.0f}")
    figure("shared budget: requests/s with it", f"{overhead[1]:,.0f}")
    figure("shared budget: ms per take (PostgreSQL round trip)", f"{overhead[2]:.2f}")
    pct = (overhead[0] - overhead[1]) / overhead[0] * 100  # signed: below 0 is noise
    figure(
        f"Prefect rate-limit GCL, {TAKERS} takers: slots/s of nominal {NOMINAL:.0f}/s",
        f"{gcl:.2f}",
        f"({gcl / NOMINAL:.0%})",
    )
    figure(
        f"shared bucket, {TAKERS} takers: slots/s of nominal {NOMINAL:.0f}/s",
        f"{bucket:.2f}",
        f"({bucket / NOMINAL:.0%})",
    )
    figure("trigger -> last request (s)", f"{last - started:.1f}")
    figure("kill -> last request (s): crash detection + rerun", f"{last - killed_at:.1f}")
    print(f"scale: duplicates {duplicates}, over-budget windows {over_total}, overhead {pct:.1f}%")


def _kill_when_under_way(fleet: object, merchant: object) -> float:
    from support.fleet import kill_mid_run

    kill_mid_run(fleet, merchant)
    return time.monotonic()


def _budget_url(root: Path) -> str:
    return next(
        line.split('"')[1]
        for line in (root / "merchants.toml").read_text().splitlines()
        if line.startswith("state_url")
    )


NOMINAL, TAKERS, SECONDS = 10.0, 4, 20.0


def _gcl_vs_bucket(prefect_url: str, budget_url: str) -> tuple[float, float]:
    """Slots per second that TAKERS concurrent takers get, one slot at a time, from a Prefect
    rate-limit GCL (limit 1, decay NOMINAL/s) and from the shared bucket (capacity 1, rate
    NOMINAL/s): what each delivers of its nominal rate under contention."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
    from prefect.concurrency.asyncio import rate_limit
    from prefect.settings import PREFECT_API_URL, temporary_settings

    async def count(take: object) -> float:
        got, end = 0, time.monotonic() + SECONDS

        async def taker() -> None:
            nonlocal got
            while time.monotonic() < end:
                await take()  # type: ignore[operator]
                got += 1

        await asyncio.gather(*(taker() for _ in range(TAKERS)))
        return got / SECONDS

    with temporary_settings({PREFECT_API_URL: prefect_url}):
        with get_client(sync_client=True) as client:
            client.create_global_concurrency_limit(
                GlobalConcurrencyLimitCreate(
                    name="bench-gcl", limit=1, slot_decay_per_second=NOMINAL
                )
            )
        gcl = asyncio.run(count(lambda: rate_limit("bench-gcl", occupy=1, strict=True)))
    budgets, shape = KeyBudgets(budget_url), BudgetShape(capacity=1, rate=NOMINAL)
    budgets.ensure("bench-bucket", shape)
    gates = [SharedBudget(budgets, "bench-bucket", shape) for _ in range(TAKERS)]
    turn = iter(range(10**9))
    bucket = asyncio.run(count(lambda: gates[next(turn) % TAKERS].acquire()))
    budgets.close()
    return gcl, bucket


def budget_overhead(base_url: str, token: str, root: Path) -> tuple[float, float, float]:
    """Requests/s of one client, without and with the shared budget (PostgreSQL), alternated
    five times (medians), and the milliseconds one take of slots costs. Also the platform's
    night's figure (bench/sweep_night.py), on its fleet's database after the night."""
    budgets = KeyBudgets(_budget_url(root))
    shape = BudgetShape.for_budget(10**9)  # never binding: only the cost is measured
    budgets.ensure("overhead-probe", shape)

    takes: list[float] = []

    async def rate(gated: bool, n: int = 4000) -> float:
        gate = SharedBudget(budgets, "overhead-probe", shape) if gated else None
        async with DisputeEvidenceClient(
            base_url, token, rate_limit_per_hour=10**9, gate=gate, max_concurrency=8
        ) as client:
            begin = time.perf_counter()
            await asyncio.gather(*(client.list_disputes(limit=1) for _ in range(n)))
            elapsed = time.perf_counter() - begin
        if gate is not None:
            takes.append(gate.stats.seconds_in_calls * 1000 / max(gate.stats.batches, 1))
        return n / elapsed

    plain, gated = [], []
    for _ in range(5):
        plain.append(asyncio.run(rate(False)))
        gated.append(asyncio.run(rate(True)))
    budgets.close()
    return sorted(plain)[2], sorted(gated)[2], sorted(takes)[2]
