"""`dispute-evidence deploy`: one deployment per merchant in a process work pool, each key's
shared budget, and the automations that recover a run whose worker died.

Crash handling is Prefect's own: every flow run sends a heartbeat event every
HEARTBEAT_SECONDS (PREFECT_FLOWS_HEARTBEAT_FREQUENCY, set on the deployments); the automation
"mark silent runs crashed" moves a run of ours whose heartbeats stopped for 3 beats to
Crashed (which frees the deployment's concurrency slot), and "run a crashed merchant again"
starts that merchant's deployment again at once (trigger "after-crash": the third crash of a
merchant within an hour ends its rerun Failed instead of looping). The new run takes over the
state store's run lock, and the engine finishes what the dead run left, sending nothing twice.
With the sweep (`deploy --sweep`), "run a crashed shard again" starts a crashed shard with its
own parameters (merchants file, name, nights; reruns + 1): it runs the nights it had not
finished, each merchant resuming its state, unless the next sweep handed them out meanwhile
(the night ledger begins a night only for the shard it is handed to now).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.objects import ConcurrencyLimitConfig, ConcurrencyLimitStrategy
from prefect.exceptions import ObjectNotFound
from prefect.schedules import Cron
from prefect.types.entrypoint import EntrypointType

from dispute_evidence.fleet.budget import BudgetShape, KeyBudgets
from dispute_evidence.fleet.merchants import MerchantRun, MerchantsFile, plan_runs
from flows.pipeline import AFTER_CRASH, MAX_CRASHES_PER_HOUR, merchant_run

TAG = "dispute-evidence"
HEARTBEAT_SECONDS = 30  # Prefect's minimum; its default (180) would leave a dead run 9 minutes
ZOMBIE_AUTOMATION = "dispute-evidence: mark silent runs crashed"
RERUN_AUTOMATION = "dispute-evidence: run a crashed merchant again"
RERUN_SHARD_AUTOMATION = "dispute-evidence: run a crashed shard again"
# the crashed shard's own parameters, rendered by Prefect's server from the flow run the Crashed
# event names (Jinja; a single expression keeps its JSON type: the nights stay a list)
SHARD_RERUN_PARAMETERS = {
    "merchants_file": "{{ flow_run.parameters.merchants_file }}",
    "shard": "{{ flow_run.parameters.shard }}",
    "nights": "{{ flow_run.parameters.nights }}",
    "reruns": {
        "__prefect_kind": "json",
        "value": {
            "__prefect_kind": "jinja",
            "template": "{{ ((flow_run.parameters.reruns | default(0)) + 1) | tojson }}",
        },
    },
}
# every way a run of ours can end: after one of these, no more heartbeats is no news
FINAL_EVENTS = {
    "prefect.flow-run.Completed",
    "prefect.flow-run.Needs attention",
    "prefect.flow-run.Failed",
    "prefect.flow-run.Cancelled",
    "prefect.flow-run.Crashed",
}


def deployment_name(merchant_id: str) -> str:
    return f"merchant-{merchant_id}"


async def deploy_merchants(
    spec: MerchantsFile,
    base: Path,
    pool: str,
    *,
    heartbeat: int = HEARTBEAT_SECONDS,
    prune: bool = False,
) -> list[str]:
    """Register (or update: never duplicate) every merchant's deployment in `pool`. Returns
    the merchant deployments the file no longer has (deleted with `prune`)."""
    runs = plan_runs(spec, base)
    _ensure_budgets(runs)
    await _ensure_pool(pool)
    for run in runs:
        await _deploy_one(run, pool, heartbeat)
    await ensure_automations(heartbeat)
    return await _stale(runs, prune)


async def deploy_sweep(
    spec: MerchantsFile,
    merchants_file: Path,
    pool: str,
    *,
    heartbeat: int = HEARTBEAT_SECONDS,
    prune: bool = False,
) -> list[str]:
    """The platform's design (issue 48): one sweep deployment per time zone of the file, every
    SWEEP_MINUTES, and one shard deployment; merchants are work inside them, read from the
    file at every sweep (adding one needs no re-deploy). Returns the deployments the file no
    longer needs: every merchant-<id> deployment, and sweeps of zones it no longer has
    (deleted with `prune`)."""
    from flows.sweep import SHARD_DEPLOYMENT, SWEEP_MINUTES, shard_run, sweep

    runs = plan_runs(spec, merchants_file.resolve().parent)
    _ensure_budgets(runs)
    await _ensure_pool(pool)
    env = {"env": {"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(heartbeat)}}
    zones = sorted({r.timezone for r in runs}) or ["UTC"]
    for zone in zones:
        deployment = await sweep.ato_deployment(
            name=sweep_name(zone),
            schedules=[Cron(f"*/{SWEEP_MINUTES} * * * *", timezone=zone)],
            parameters={"merchants_file": str(merchants_file.resolve()), "timezone": zone},
            # no concurrency limit: a sweep whose worker died while handing it over stays
            # Submitting for ever and would hold the slot, every later sweep cancelled. Two
            # sweeps at once are safe: the ledger hands a night to one shard (the last to
            # queue it, only as it read it) and a shard begins only the nights it holds
            tags=[TAG, "sweep", f"timezone:{zone}"],
            description=f"Every {SWEEP_MINUTES} min: hand the merchants of {zone} whose night "
            f"has come to shards ({merchants_file.name}, read at every sweep).",
            entrypoint_type=EntrypointType.MODULE_PATH,
            job_variables=env,
        )
        await deployment.aapply(work_pool_name=pool)
    shard = await shard_run.ato_deployment(
        name=SHARD_DEPLOYMENT,
        tags=[TAG, "sweep"],
        description="Runs the merchants a sweep hands it, one after another, each a task run.",
        entrypoint_type=EntrypointType.MODULE_PATH,
        job_variables=env,
    )
    await shard.aapply(work_pool_name=pool)
    await ensure_automations(heartbeat)
    stale = await _stale([], prune)  # one deployment per merchant: replaced by the sweep
    return stale + await _stale_sweeps(zones, prune)


def sweep_name(zone: str) -> str:
    return "sweep-" + zone.replace("/", "-").lower()


async def _stale_sweeps(zones: list[str], prune: bool) -> list[str]:
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import DeploymentSort

    from flows.sweep import SWEEP_FLOW

    wanted = {sweep_name(z) for z in zones}
    async with get_client() as client:
        deployments = await client.read_deployments(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[SWEEP_FLOW])),
            limit=200,
            sort=DeploymentSort.NAME_ASC,
        )
        stale = [d for d in deployments if d.name not in wanted]
        if prune:
            for d in stale:
                await client.delete_deployment(d.id)
    return [f"{SWEEP_FLOW}/{d.name}" for d in stale]


async def _ensure_pool(pool: str) -> None:
    async with get_client() as client:
        try:
            await client.read_work_pool(pool)
        except ObjectNotFound:
            await client.create_work_pool(WorkPoolCreate(name=pool, type="process"))


async def _stale(runs: list[MerchantRun], prune: bool) -> list[str]:
    """Merchant deployments on the server that the merchants file no longer names."""
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import DeploymentSort

    wanted = {deployment_name(r.id) for r in runs}
    async with get_client() as client:
        deployments = await client.read_deployments(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[merchant_run.name])),
            limit=200,  # prefect 3.8.8's client sends a null limit otherwise (422)
            sort=DeploymentSort.NAME_ASC,
        )
        stale = [d for d in deployments if d.name not in wanted]
        if prune:
            for d in stale:
                await client.delete_deployment(d.id)
    return [f"{merchant_run.name}/{d.name}" for d in stale]


def _ensure_budgets(runs: list[MerchantRun]) -> None:
    """Each key's bucket exists before any run: its shape follows the file's budget."""
    by_url: dict[str, dict[str, BudgetShape]] = {}
    for run in runs:
        shape = run.budget_shape()
        by_url.setdefault(run.budget_url, {})[run.key] = shape
    for url, keys in by_url.items():
        budgets = KeyBudgets(url)
        try:
            for key, shape in keys.items():
                budgets.ensure(key, shape)
        finally:
            budgets.close()


async def _deploy_one(run: MerchantRun, pool: str, heartbeat: int) -> None:
    shared = f"shares key '{run.key}'" if run.key else ""
    deployment = await merchant_run.ato_deployment(
        name=deployment_name(run.id),
        schedules=[Cron(run.schedule, timezone=run.timezone)],
        parameters={"merchant": run.model_dump(mode="json")},
        # one run per merchant at a time; a second one waits its turn (never dropped)
        concurrency_limit=ConcurrencyLimitConfig(
            limit=1, collision_strategy=ConcurrencyLimitStrategy.ENQUEUE
        ),
        tags=[TAG, f"merchant:{run.id}", f"key:{run.key}"],
        description=(
            f"Merchant {run.id}: inbox {run.inbox}, nightly at '{run.schedule}' ({run.timezone}); "
            f"API key '{run.key}' ({run.rate_limit_per_hour:,}/h, {shared}; budget shared by "
            "every worker)."
        ),
        entrypoint_type=EntrypointType.MODULE_PATH,  # workers import the installed package
        job_variables={"env": {"PREFECT_FLOWS_HEARTBEAT_FREQUENCY": str(heartbeat)}},
    )
    await deployment.aapply(work_pool_name=pool)


def _crashed_run_of(flow_name: str) -> Any:
    """A trigger: a run of ours, of the flow named `flow_name`, went Crashed."""
    from prefect.events.schemas.automations import EventTrigger, Posture

    ours = {"prefect.resource.id": f"prefect.tag.{TAG}", "prefect.resource.role": "tag"}
    flow = {"prefect.resource.role": "flow", "prefect.resource.name": flow_name}
    return EventTrigger(
        expect={"prefect.flow-run.Crashed"},
        match={"prefect.resource.id": ["prefect.flow-run.*"]},
        match_related=[ours, flow],
        posture=Posture.Reactive,
        threshold=1,
    )


async def ensure_automations(heartbeat: int = HEARTBEAT_SECONDS) -> None:
    """The zombie-run automation and the rerun automations (a merchant's run; a sweep's
    shard), replaced (never duplicated) on every deploy."""
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState, RunDeployment
    from prefect.events.schemas.automations import EventTrigger, Posture

    from flows.sweep import MAX_SHARD_RERUNS, SHARD_FLOW

    ours = {"prefect.resource.id": f"prefect.tag.{TAG}", "prefect.resource.role": "tag"}
    silent = Automation(
        name=ZOMBIE_AUTOMATION,
        description=f"A dispute-evidence run with no heartbeat for {3 * heartbeat} s died "
        "with its worker: mark it Crashed (frees its merchant's slot).",
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.heartbeat", *FINAL_EVENTS},
            match={"prefect.resource.id": ["prefect.flow-run.*"]},
            match_related=ours,
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(seconds=3 * heartbeat),
        ),
        actions=[
            ChangeFlowRunState(
                state=StateType.CRASHED,
                message=f"No heartbeat for {3 * heartbeat} s: the worker running it died.",
            )
        ],
    )
    rerun = Automation(
        name=RERUN_AUTOMATION,
        description="A crashed dispute-evidence merchant run is started again at once; the "
        "engine finishes its work without sending anything twice. After "
        f"{MAX_CRASHES_PER_HOUR} crashes of a merchant in an hour, its rerun stops (Failed, "
        "saying why) until a person looks.",
        trigger=_crashed_run_of(merchant_run.name),
        actions=[RunDeployment(source="inferred", parameters={"trigger": AFTER_CRASH})],
    )
    shards = Automation(
        name=RERUN_SHARD_AUTOMATION,
        description="A crashed shard of the sweep is started again at once with its own "
        "parameters (its merchants file, name and nights): it runs the nights it had not "
        "finished, unless the next sweep handed them out meanwhile; each merchant resumes its "
        f"state, sending nothing twice. After {MAX_SHARD_RERUNS} reruns it is left to the "
        "next sweep.",
        trigger=_crashed_run_of(SHARD_FLOW),
        actions=[RunDeployment(source="inferred", parameters=SHARD_RERUN_PARAMETERS)],
    )
    async with get_client() as client:
        for automation in (silent, rerun, shards):
            for old in await client.read_automations_by_name(automation.name):
                await client.delete_automation(old.id)
            await automation.acreate()


__all__ = ["deploy_merchants", "deploy_sweep", "deployment_name", "ensure_automations"]
