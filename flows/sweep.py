"""The sweep and its shards as Prefect flows (issue 48): thin; fleet/sweep.py decides.

`dispute-evidence deploy --sweep` registers one sweep deployment per time zone of the merchants
file (every SWEEP_MINUTES) and one shard deployment. A sweep reads the merchants file, starts
one shard flow run per SHARD_SIZE merchants whose night has come, and returns; each shard runs
its merchants, a few at a time, each shown as a task run named for the merchant and its night
("merchant-4711 2026-11-28T02:00Z", tagged merchant:4711), so the Prefect UI finds a merchant's
night. That task run is recorded through Prefect's API (Running, then Completed or Failed), not
run by Prefect's task engine: two states and ~6 KB of Prefect's database a merchant, no events
or log lines (TaskRunsShown). No artifact per merchant: each merchant's report is its own, as
ever, and a shard leaves one table of its merchants' outcomes.
"""

from __future__ import annotations

import contextvars
import re
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect import State, flow, get_client, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NONE
from prefect.client.orchestration import SyncPrefectClient
from prefect.context import FlowRunContext
from prefect.states import Completed, Failed, Running

from dispute_evidence.engine.reporting.report import RunResult
from dispute_evidence.engine.run_steps import spare_the_settled
from dispute_evidence.fleet.budget import KeyBudgets
from dispute_evidence.fleet.merchants import MerchantRun, load_merchants, plan_runs
from dispute_evidence.fleet.nights import DONE, KEEP_DAYS, QUEUED, NightLedger
from dispute_evidence.fleet.run import run_merchant
from dispute_evidence.fleet.sweep import (
    MAX_ATTEMPTS,
    SHARD_SIZE,
    OwnWorkSlots,
    RunOne,
    ShardOutcome,
    ShownInOrder,
    assign,
    due,
    night_key,
    run_one_night,
    shards_of,
)
from flows.alerting import PrefectAlerts
from flows.outcomes import failed

SWEEP_FLOW, SHARD_FLOW = "dispute-evidence-sweep", "dispute-evidence-shard"
SHARD_DEPLOYMENT = "shard"
SWEEP_MINUTES = 10
# merchants a shard runs at once: each mostly waits on its own key's budget (measured, one
# merchant alone: ~6 s of a small inbox's ~9 s night is waiting for its key's slots at 5,000/h,
# ~0.5 s is CPU), so a shard runs many side by side (threads; each keeps its own lock and state)
SHARD_CONCURRENCY = 16
# of which at most this many do their own work (not submitting) at once: see OwnWorkSlots
OWN_WORK_SLOTS = 2
# a shard that crashed (its worker died) is started again with its parameters at once (the
# rerun automation); after this many reruns it is left to the next sweep
MAX_SHARD_RERUNS = 3


def fleet_of(merchants_file: str) -> tuple[list[MerchantRun], str]:
    """The merchants file as it is now (read at every sweep: no re-deploy to add one), and the
    database of the keys' budgets and the nights."""
    path = Path(merchants_file)
    runs = plan_runs(load_merchants(path), path.resolve().parent)
    url = runs[0].budget_url if runs else str(path.resolve().parent / "budgets.sqlite3")
    return runs, url


def _alive_shards() -> set[str]:
    """The names of the shard flow runs still scheduled, pending or running."""
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
            if not (part := assign(ledger, part, name)):
                continue  # every one begun since by a crashed shard's rerun: its own
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


@flow(name=SHARD_FLOW, flow_run_name="{shard}", log_prints=True)
def shard_run(
    merchants_file: str, shard: str, nights: list[list[str]], reruns: int = 0
) -> dict[str, Any] | State[Any]:
    """Run each merchant's night (`nights`: [merchant, night] pairs, nearest night first),
    SHARD_CONCURRENCY at a time, each shown as a task run of its own. `reruns`: how many
    times this shard crashed and was started again with the same parameters (flows/fleet.py,
    the rerun automation); the nights it had not finished are its own still, unless a sweep
    handed them to another shard meanwhile."""
    if reruns > MAX_SHARD_RERUNS:
        return failed(
            f"{shard} crashed {reruns} times, so it is not started again; the next "
            "sweep hands out its unfinished merchants (each up to 3 attempts a night)."
        )
    spare_the_settled()  # once for the shard: its merchants' runs, on threads, do not
    runs, url = fleet_of(merchants_file)
    by_id = {r.id: r for r in runs}
    ledger = NightLedger(url)
    budgets: dict[str, KeyBudgets] = {}
    out = ShardOutcome()
    try:
        todo = _to_run(nights, shard, by_id, ledger, out)
        for run, _ in todo:
            if run.budget_url not in budgets:  # one database of budgets a shard
                budgets[run.budget_url] = KeyBudgets(run.budget_url)
        with get_client(sync_client=True) as client, ThreadPoolExecutor(SHARD_CONCURRENCY) as pool:
            shown = ShownInOrder(TaskRunsShown(client))  # a night never waits for the UI
            slots = OwnWorkSlots(OWN_WORK_SLOTS)
            # each merchant in the flow run's context (its alerts' events name the shard); its
            # failure is its own: recorded in `out`, never raised
            running = [
                pool.submit(
                    contextvars.copy_context().run,
                    run_one_night,
                    run,
                    night,
                    shard,
                    ledger,
                    _each(budgets[run.budget_url], slots),
                    out,
                    shown,
                )
                for run, night in todo
            ]
            try:
                for future in running:
                    future.result()
            finally:
                shown.close()  # while the client is open: the last nights shown ended
    finally:
        ledger.close()
        for b in budgets.values():
            b.close()
    logger = get_run_logger()
    for mid, why in out.failed.items():
        logger.error("merchant %s: %s", mid, why)
    _table(shard, out)
    return {"done": out.done, "failed": out.failed, "skipped": out.skipped}


def _to_run(
    nights: list[list[str]],
    shard: str,
    by_id: dict[str, MerchantRun],
    ledger: NightLedger,
    out: ShardOutcome,
) -> list[tuple[MerchantRun, str]]:
    """The nights this shard runs, in order; the others go to `out.skipped`, saying why."""
    rows = ledger.of([(mid, night) for mid, night in nights])
    todo = []
    for mid, night in nights:
        row = rows.get(mid)
        if (run := by_id.get(mid)) is None:
            out.skipped[mid] = "no longer in the merchants file"
        elif row is not None and row.stage == DONE:
            out.skipped[mid] = "its night is done already"
        elif row is not None and row.shard != shard[:120]:
            out.skipped[mid] = f"handed to {row.shard} since"
        elif row is not None and row.stage != QUEUED and row.attempts >= MAX_ATTEMPTS:
            out.skipped[mid] = f"tried {row.attempts} times this night: waits for the next"
        else:
            todo.append((run, night))
    return todo


def _each(budgets: KeyBudgets, slots: OwnWorkSlots) -> RunOne:
    def each(run: MerchantRun) -> RunResult:
        return run_merchant(
            run, step=slots, trigger="sweep", alert_sink=PrefectAlerts(), budgets=budgets
        )

    return each


@task(name="merchant-night", cache_policy=NONE, persist_result=False)
def merchant_night(merchant: str, night: str) -> None:
    """A merchant's night as the Prefect UI lists it: the task its task runs are recorded
    under by TaskRunsShown (the shard runs the night itself; this is never called)."""


class TaskRunsShown:
    """Each merchant's night as a task run of the shard's flow run, named for it
    ("merchant-4711 2026-11-28T02:00Z", tag merchant:4711), recorded through Prefect's API:
    created Running when it begins, then Completed (its run's headline) or Failed (why, one
    line). Two rows of task_run_state and ~6 KB of Prefect's database a merchant: a task run
    that Prefect's engine runs writes three states, three events with their resources and a
    log line, ~25 KB (bench/sweep_night.py; docs/deployment.md, Sizing the sweep)."""

    def __init__(self, client: SyncPrefectClient) -> None:
        # one HTTP client; a shard calls it from ShownInOrder's one thread, the lock keeps a
        # direct use from several threads safe too
        self.client, self.lock = client, threading.Lock()
        context = FlowRunContext.get()
        if context is None or context.flow_run is None:
            raise RuntimeError("TaskRunsShown is made inside the shard's flow run")
        self.flow_run_id = context.flow_run.id
        self.ids: dict[str, UUID] = {}

    def begun(self, merchant: str, night: str, attempt: int) -> None:
        with self.lock:
            made = self.client.create_task_run(
                merchant_night,
                self.flow_run_id,
                f"{merchant} {night} {attempt}",
                name=f"merchant-{merchant} {night}",
                extra_tags=[f"merchant:{merchant}"],
                state=Running(),
            )
        self.ids[merchant] = made.id

    def ended(self, merchant: str, night: str, *, failed: str, outcome: str) -> None:
        if (made := self.ids.pop(merchant, None)) is None:
            return  # never shown begun: nothing to end
        state: State[None] = Failed(message=failed) if failed else Completed(message=outcome[:200])
        with self.lock:
            self.client.set_task_run_state(made, state, force=True)

    def taken_over(self, merchant: str, night: str, *, left: str, shard: str) -> None:
        """The task run(s) still Running for this night, of a flow run killed mid-night, set
        Crashed saying who took the night over (one query, only for a night left running)."""
        from prefect.client.schemas.filters import (
            TaskRunFilter,
            TaskRunFilterName,
            TaskRunFilterState,
            TaskRunFilterStateType,
        )
        from prefect.client.schemas.objects import StateType
        from prefect.states import Crashed

        stale = TaskRunFilter(
            name=TaskRunFilterName(any_=[f"merchant-{merchant} {night}"]),
            state=TaskRunFilterState(type=TaskRunFilterStateType(any_=[StateType.RUNNING])),
        )
        by = "its rerun" if left == shard else shard
        why = f"{left} stopped mid-night (its worker died); {by} took this night over"
        with self.lock:
            for task_run in self.client.read_task_runs(task_run_filter=stale, limit=20):
                self.client.set_task_run_state(task_run.id, Crashed(message=why), force=True)


def _table(shard: str, out: ShardOutcome) -> None:
    rows = [{"merchant": m, "night": "done", "outcome": out.outcomes.get(m, "")} for m in out.done]
    rows += [{"merchant": m, "night": "failed", "outcome": why} for m, why in out.failed.items()]
    rows += [{"merchant": m, "night": "skipped", "outcome": why} for m, why in out.skipped.items()]
    key = re.sub(r"[^a-z0-9-]+", "-", shard.lower())[:100]  # an artifact key's letters
    create_table_artifact(rows, key=key, description=f"Merchants of {shard}")
