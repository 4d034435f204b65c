"""Prefect flows: thin wrappers over dispute_evidence.engine.run_steps.

The engine's one sequence of steps (`execute`) runs here with a step runner that makes each
step a Prefect task (ingest, build, submit, report): coarse on purpose, so a run over 100,000
disputes spends its time in work, not in orchestration; progress inside `submit` goes to
the log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
from prefect import State, flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NONE
from prefect.states import Completed

from dispute_evidence.engine import run_steps as steps
from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.fleet.run import run_merchant
from dispute_evidence.local_api import run_api
from dispute_evidence.settings import ConfigError, RunRequest, load_settings
from flows.alerting import PrefectAlerts
from flows.outcomes import failed

# A run that leaves something for a person ends "Completed" under this name: the Runs page
# tells it from a clean run at a glance, and nothing treats it as a crash.
NEEDS_ATTENTION = "Needs attention"


def as_task(name: str, fn: Any, /, *args: Any) -> Any:
    """The engine's step runner under Prefect: each step is one task run."""
    return task(name=name, cache_policy=NONE)(fn)(*args)


def _logged_progress() -> steps.Progress:
    logger = get_run_logger()

    def report(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            logger.info("submitted %d of %d dispute(s)", done, total)

    return report


def _evidence_run_name() -> str:
    """Runs named by inbox, trigger and time ("inbox-nightly-20261124-0200"), not at random."""
    from prefect.runtime import flow_run

    given = flow_run.parameters.get("request") or {}
    request = given if isinstance(given, RunRequest) else RunRequest.model_validate(given)
    inbox = request.inbox.name or "inbox"
    return f"{inbox}-{request.trigger}-{flow_run.scheduled_start_time:%Y%m%d-%H%M}"


NOTHING_SENT = "nothing was sent; the next run does it all."
SERVED_TRIGGERS = frozenset({"nightly", "inbox"})  # runs `serve` starts: said in its terminal


def _say(line: str) -> None:
    """A line for `serve`'s terminal (it streams its runs' output), past Prefect's print
    capture: the console shows no INFO logs, and a served run should not be silent."""
    import sys
    from datetime import datetime

    stream = sys.__stdout__
    if stream is not None:
        stream.write(f"{datetime.now():%Y-%m-%d %H:%M:%S} {line}\n")
        stream.flush()


@flow(name="dispute-evidence", flow_run_name=_evidence_run_name, log_prints=True)
def evidence_run(request: RunRequest) -> dict[str, Any] | State[dict[str, Any]]:
    """Ingest the inbox, build payloads, submit, report, as `request` asks (the CLI, `serve`
    and prefect.yaml build it). Returns exit code, report path, counts (as the data of a
    "Needs attention" Completed state when a person has something to do)."""
    trigger = request.trigger
    served = trigger in SERVED_TRIGGERS
    if served:
        _say(f"{trigger} run started on {request.inbox}")
    try:
        settings = request.load_settings()
        with run_api(settings, request) as (api, identity), _sigterm_stops_like_ctrl_c():
            result = steps.run_inbox(
                settings,
                request,
                api=api,
                api_identity=identity,
                step=as_task,
                progress=_logged_progress(),
                alert_sink=PrefectAlerts(),
            )
    except ConfigError as exc:  # one line per problem (never a value, so never the token)
        if served:
            _say(f"{trigger} run stopped: configuration error: {exc}")
        return failed(f"Configuration error: {exc}")
    except steps.InterruptedAtStart:  # not a crash (no traceback): a stop, as part way through
        if served:
            _say(f"{trigger} run interrupted as it started: {NOTHING_SENT}")
        return _interrupted_at_start(f"Interrupted as it started: {NOTHING_SENT}")
    if served:
        _say(f"{trigger} run finished: {result.outcome}  (report: {result.report.parent})")
    return publish(result)


@contextmanager
def _sigterm_stops_like_ctrl_c() -> Iterator[None]:
    """In a flow run's own process (serve's runs), SIGTERM ends the run as the CLI's does:
    recorded as interrupted, with its report, the next run finishing it; not a crash with
    tracebacks. Elsewhere (not the main thread) Prefect's own handling stays."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(_signum: int, _frame: object) -> None:
        raise steps.Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = said_again(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.unraisablehook = previous_hook


def said_again(
    previous: Callable[[Any], object],
) -> Callable[[Any], None]:
    """An unraisable hook: a SIGTERM that landed while a finaliser ran (an event loop's
    __del__, say) cannot leave it, and Python would print its traceback and go on. The run
    must still stop: the signal is given to the main thread again, a moment later from another
    thread, so it lands after the finaliser; anything else goes to `previous`."""
    import _thread
    import signal
    import threading

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, steps.Terminated):
            again = threading.Timer(0.1, _thread.interrupt_main, args=(signal.SIGTERM,))
            again.daemon = True  # (a moment later: once the hook and the finaliser returned)
            again.start()
            return
        previous(unraisable)

    return hook


def publish(
    result: steps.RunResult, merchant: str | None = None
) -> dict[str, Any] | State[dict[str, Any]]:
    """The run's summary, counts, outcomes and standing as artifacts; a run that leaves
    something for a person ends as a "Needs attention" Completed state."""
    suffix, who = (f"-{merchant}", f"{merchant}: ") if merchant else ("", "")
    create_markdown_artifact(
        result.report.read_text(encoding="utf-8"),
        key=f"dispute-evidence-summary{suffix}",
        description=f"{who}Run {result.run_id}",
    )
    counts = [{"measure": k, "value": v} for k, v in sorted(result.counts.items())]
    create_table_artifact(
        counts, key=f"dispute-evidence-counts{suffix}", description=f"{who}Run {result.run_id}"
    )
    tables = (
        ("outcomes", "Outcomes"),  # win rates by reason and evidence kind
        ("standing", "Dispute ratio by month and card network"),
    )
    for name, what in tables:  # for the Artifacts page, as the report wrote them
        made = result.report.parent / f"{name}.csv"
        if made.is_file():
            create_table_artifact(
                pd.read_csv(made, dtype=str).fillna("").to_dict("records"),
                key=f"dispute-evidence-{name}{suffix}",
                description=f"{who}{what} (run {result.run_id})",
            )
    if result.exit_code or result.counts.get("need_you"):
        return Completed(message=result.outcome, name=NEEDS_ATTENTION, data=result.as_dict())
    return result.as_dict()


def _interrupted_at_start(message: str) -> State[Any]:
    """A run stopped as it opened ends as an interrupted one does, "Needs attention" (not
    Cancelled: Prefect's engine raises that in the run's process, a traceback in `serve`)."""
    return Completed(message=message, name=NEEDS_ATTENTION)


def _merchant_run_name() -> str:
    from prefect.runtime import flow_run

    merchant = flow_run.parameters.get("merchant") or {}
    ident = merchant.id if isinstance(merchant, MerchantRun) else merchant.get("id", "?")
    return f"{ident}-{flow_run.scheduled_start_time:%Y%m%d-%H%M}"


# The rerun automation starts a crashed merchant again with this trigger; after this many
# crashes of its deployment within an hour it stops (a run that always dies, say out of
# memory, must not be restarted forever) and says so; the nightly schedule still runs.
AFTER_CRASH = "after-crash"
MAX_CRASHES_PER_HOUR = 3


def _crashes_in_the_last_hour() -> int:
    from datetime import UTC, datetime, timedelta

    from prefect import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterDeploymentId,
        FlowRunFilterExpectedStartTime,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.runtime import deployment

    if not deployment.id:
        return 0
    recent = FlowRunFilter(
        deployment_id=FlowRunFilterDeploymentId(any_=[deployment.id]),
        state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.CRASHED])),
        expected_start_time=FlowRunFilterExpectedStartTime(
            after_=datetime.now(UTC) - timedelta(hours=1)
        ),
    )
    try:
        with get_client(sync_client=True) as client:
            # prefect 3.8.8's client sends a null sort/limit otherwise, which its server refuses
            runs = client.read_flow_runs(flow_run_filter=recent, limit=50, sort=FlowRunSort.ID_DESC)
    except Exception as exc:  # noqa: BLE001 - the cap is a safety net: never block the rerun
        get_run_logger().warning("could not count this merchant's recent crashes: %s", exc)
        return 0
    return len(runs)


@flow(name="dispute-evidence-merchant", flow_run_name=_merchant_run_name, log_prints=True)
def merchant_run(merchant: MerchantRun, trigger: str = "schedule") -> Any:
    """One merchant of a merchants file (`dispute-evidence deploy`): its inbox, state, key
    and the key's budget shared with every worker; run by any worker of the pool."""
    if trigger == AFTER_CRASH and (crashes := _crashes_in_the_last_hour()) >= MAX_CRASHES_PER_HOUR:
        return failed(
            f"Merchant {merchant.id}: {crashes} runs crashed in the last hour, so it "
            "is not started again automatically. Check the workers (memory, disk, logs), then "
            "run its deployment by hand; the next scheduled run starts as usual."
        )
    try:
        result = run_merchant(
            merchant,
            step=as_task,
            progress=_logged_progress(),
            trigger=trigger,
            alert_sink=PrefectAlerts(),
        )
    except steps.InterruptedAtStart:  # a worker stopped: not a crash to run again at once
        return _interrupted_at_start(
            message=f"Merchant {merchant.id} interrupted as it started: {NOTHING_SENT}"
        )
    return publish(result, merchant.id)


@flow(name="dispute-evidence-approve")
def approve_evidence(
    inbox: str,
    disputes: list[str] | None = None,
    all_complete: bool = False,
    config: str | None = None,
    state: str | None = None,
    send: bool = True,
    base_url: str | None = None,
) -> dict[str, Any] | State[Any]:
    """Approve held evidence from the Prefect UI (Run → Custom run: the dispute ids, or
    all_complete) and send it at once, as `dispute-evidence approve` does (send=false: record
    only). The approval names this flow run.

    A short flow of its own rather than a pause inside the batch run: a nightly run waiting
    for a person would hold the inbox's run lock (and every other dispute) for hours."""
    from dispute_evidence.engine.approve import approve_and_send
    from dispute_evidence.inbox import default_state

    settings = load_settings(Path(config) if config else None, inbox=Path(inbox))
    where = state or settings.paths.state or default_state(Path(inbox).resolve())
    logger = get_run_logger()
    try:
        api = settings.api_settings(base_url=base_url) if send else None
    except ConfigError as exc:  # recorded only; the next run sends it
        logger.warning("no API to send to now (%s): the approval is recorded", exc)
        api = None
    done = approve_and_send(
        settings,
        Path(inbox),
        disputes or [],
        by=_ui_approver(),
        state=where,
        api=api,
        all_complete=all_complete,
        source="Prefect UI",
    )
    for line in done.lines:
        logger.info(line)
    if done.refused and not done.approved:
        return failed("; ".join(done.refused))
    result = {"approved": done.approved, "refused": done.refused, "sent": done.sent}
    if done.exit_code:
        return failed("; ".join(done.lines[-3:]), data=result)
    return result


def _ui_approver() -> str:
    """Who approves from the Prefect UI: the flow run (Prefect's open-source server knows no
    user; its run name and id are in the UI's history)."""
    from prefect.runtime import flow_run

    return f"flow run {flow_run.name}"
