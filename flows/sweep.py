"""The sweep and its shards as Prefect flows (issue 48): thin; fleet/sweep.py decides.

`dispute-evidence deploy --sweep` registers one sweep deployment per time zone of the merchants
file (every SWEEP_MINUTES) and one shard deployment. A sweep reads the merchants file, starts
one shard flow run per SHARD_SIZE merchants whose night has come, and returns; each shard runs
its merchants one after another, each as a task run named for the merchant and its night
("merchant-4711 2026-11-28T02:00Z", tagged merchant:4711), so the Prefect UI finds a merchant's
night. No artifact per merchant: each merchant's report is its own, as ever, and a shard leaves
one table of its merchants' outcomes, so Prefect's database grows per shard, not per merchant.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NONE
from prefect.task_runners import ThreadPoolTaskRunner

from dispute_evidence.engine.session import plain
from dispute_evidence.fleet.budget import KeyBudgets
from dispute_evidence.fleet.merchants import MerchantRun, load_merchants, plan_runs
from dispute_evidence.fleet.nights import DONE, KEEP_DAYS, QUEUED, NightLedger
from dispute_evidence.fleet.run import run_merchant
from dispute_evidence.fleet.sweep import (
    MAX_ATTEMPTS,
    SHARD_SIZE,
    ShardOutcome,
    assign,
    due,
    night_key,
    run_one_night,
    shards_of,
)
from flows.alerting import PrefectAlerts

SWEEP_FLOW, SHARD_FLOW = "dispute-evidence-sweep", "dispute-evidence-shard"
SHARD_DEPLOYMENT = "shard"
SWEEP_MINUTES = 10
# merchants a shard runs at once: each mostly waits on its own key's budget and the API, so a
# shard runs a few side by side (threads; each merchant keeps its own run lock and state)
SHARD_CONCURRENCY = 4


def fleet_of(merchants_file: str) -> tuple[list[MerchantRun], str]:
    """The merchants file as it is now (read at every sweep: no re-deploy to add one), and the
    database of the keys' budgets and the nights."""
    path = Path(merchants_file)
    runs = plan_runs(load_merchants(path), path.resolve().parent)
    url = runs[0].budget_url if runs else str(path.resolve().parent / "budgets.sqlite3")
    return runs, url


def _alive_shards() -> set[str]:
    """The names of the shard flow runs still scheduled, pending or running."""
    from prefect import get_client
    from prefect.client.schemas.filters import (
        FlowFilter,
        FlowFilterName,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort

    live = FlowRunFilter(
        state=FlowRunFilterState(
            type=FlowRunFilterStateType(
                any_=[StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING]
            )
        )
    )
    names: set[str] = set()
    with get_client(sync_client=True) as client:
        while page := client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[SHARD_FLOW])),
            flow_run_filter=live,
            limit=200,
            offset=len(names),
            sort=FlowRunSort.ID_DESC,
        ):
            names |= {r.name for r in page}
            if len(page) < 200:
                break
    return names


@flow(name=SWEEP_FLOW, log_prints=True)
def sweep(
    merchants_file: str, timezone: str | None = None, shard_size: int = SHARD_SIZE
) -> dict[str, Any]:
    """Hand the merchants whose night has come (of `timezone`, or all) to shard flow runs."""
    from prefect.deployments import run_deployment

    logger = get_run_logger()
    runs, url = fleet_of(merchants_file)
    mine = [r for r in runs if timezone is None or r.timezone == timezone]
    now = datetime.now(UTC)
    ledger = NightLedger(url)
    try:
        alive = _alive_shards()
        work = due(mine, now, ledger, alive.__contains__)
        started = []
        for i, part in enumerate(shards_of(work, shard_size), start=1):
            name = f"shard-{part[0].night}-{i}-{uuid.uuid4().hex[:8]}"
            assign(ledger, part, name)
            run_deployment(
                f"{SHARD_FLOW}/{SHARD_DEPLOYMENT}",
                parameters={
                    "merchants_file": merchants_file,
                    "shard": name,
                    # pairs, not a mapping: the server keeps parameters as JSONB, which
                    # reorders a mapping's keys (shortest first); a shard keeps this order
                    "nights": [[d.run.id, d.night] for d in part],
                },
                flow_run_name=name,
                timeout=0,  # started, not awaited: the sweep ends at once
                tags=["sweep"],
            )
            started.append(name)
        ledger.forget_before(night_key(now - timedelta(days=KEEP_DAYS)))
    finally:
        ledger.close()
    again = [d.run.id for d in work if not d.why.startswith("its night")]
    said = f"{len(work)} merchant(s) of {len(mine)} due ({len(again)} again"
    logger.info("%s: %s); %d shard(s) started", said, ", ".join(again[:20]), len(started))
    return {"due": len(work), "again": again, "shards": started}


@flow(
    name=SHARD_FLOW,
    flow_run_name="{shard}",
    log_prints=True,
    task_runner=ThreadPoolTaskRunner(max_workers=SHARD_CONCURRENCY),  # type: ignore[arg-type]
)
def shard_run(merchants_file: str, shard: str, nights: list[list[str]]) -> dict[str, Any]:
    """Run each merchant's night (`nights`: [merchant, night] pairs, nearest night first),
    SHARD_CONCURRENCY at a time, each a task run of its own."""
    runs, url = fleet_of(merchants_file)
    by_id = {r.id: r for r in runs}
    ledger = NightLedger(url)
    budgets: dict[str, KeyBudgets] = {}
    out = ShardOutcome()
    running = []
    try:
        rows = ledger.of([(mid, night) for mid, night in nights])
        for mid, night in nights:
            row = rows.get(mid)
            if (run := by_id.get(mid)) is None:
                out.skipped[mid] = "no longer in the merchants file"
            elif row is not None and row.stage == DONE:
                out.skipped[mid] = "its night is done already"
            elif row is not None and row.stage != QUEUED and row.attempts >= MAX_ATTEMPTS:
                out.skipped[mid] = f"tried {row.attempts} times this night: waits for the next"
            else:
                shared = budgets.setdefault(run.budget_url, KeyBudgets(run.budget_url))
                named = _night.with_options(
                    name=f"merchant-{mid} {night}", tags=[f"merchant:{mid}", f"night:{night}"]
                )
                running.append(named.submit(run, night, shard, ledger, shared, out))
        for future in running:
            future.wait()  # a merchant's failure is its own: recorded in `out`, never raised
    finally:
        ledger.close()
        for b in budgets.values():
            b.close()
    _table(shard, out)
    return {"done": out.done, "failed": out.failed, "skipped": out.skipped}


@task(cache_policy=NONE, persist_result=False)
def _night(
    run: MerchantRun,
    night: str,
    shard: str,
    ledger: NightLedger,
    budgets: KeyBudgets,
    out: ShardOutcome,
) -> None:
    def each(r: MerchantRun) -> Any:
        return run_merchant(
            r, step=plain, trigger="sweep", alert_sink=PrefectAlerts(), budgets=budgets
        )

    run_one_night(run, night, shard, ledger, each, out)
    if run.id in out.failed:
        get_run_logger().error("merchant %s: %s", run.id, out.failed[run.id])


def _table(shard: str, out: ShardOutcome) -> None:
    rows = [{"merchant": m, "night": "done", "outcome": out.outcomes.get(m, "")} for m in out.done]
    rows += [{"merchant": m, "night": "failed", "outcome": why} for m, why in out.failed.items()]
    rows += [{"merchant": m, "night": "skipped", "outcome": why} for m, why in out.skipped.items()]
    key = re.sub(r"[^a-z0-9-]+", "-", shard.lower())[:100]  # an artifact key's letters
    create_table_artifact(rows, key=key, description=f"Merchants of {shard}")
