"""A whole run, in order, in one place: open -> ingest -> prepare -> submit -> report -> close.

The steps themselves live in engine/prepare/build.py, the report's assembly in engine/reporting/report.py.
`execute` is the only sequence of them: the Prefect flow passes a `step` runner that makes
each a task, the CLI's fast path and the tests run them plainly. A session is what the steps share, and none of them changes it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from dispute_evidence.api import ApiSettings, DisputeEvidenceClient
from dispute_evidence.api.pacer import RequestGate
from dispute_evidence.documents.reading import ReadLimits
from dispute_evidence.engine.delivery.phase import submit
from dispute_evidence.engine.delivery.stops import FIRST_REQUEST_STOPS, stopped_by
from dispute_evidence.engine.delivery.submit import RunAborted, SubmitOutcome
from dispute_evidence.engine.full_disk import named_when_full
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.prepare.build import (
    IngestOutcome,
    PrepareOutcome,
    ingest_inbox_step,
    prepare_step,
)
from dispute_evidence.engine.prepare.retention_clearing import apply_retention
from dispute_evidence.engine.reporting.deadline_alerts import AlertOutcome, send_alerts
from dispute_evidence.engine.reporting.report import RunResult, Stages, report
from dispute_evidence.engine.reporting.standing_alerts import add_standing_alerts
from dispute_evidence.engine.review.approval import ReviewOutcome, review_step
from dispute_evidence.engine.review.plan import plan_delivery
from dispute_evidence.engine.review.policy import policy_for_state
from dispute_evidence.engine.session import (
    AlertSink,
    KeepAlive,
    Progress,
    RunSession,
    StepRunner,
    plain,
)
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import (
    EXIT_DISK_FULL,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    Stopped,
)
from dispute_evidence.inbox import PRIVATE, InboxLayout, default_state
from dispute_evidence.ingest.mappings import config_mappings
from dispute_evidence.settings import EvidenceSection, RunRequest, Settings
from dispute_evidence.state.apis import api_identity
from dispute_evidence.state.store import (
    StateStore,
    copy_state,
    new_owner,
    new_run_id,
    open_read_only,
    state_exists,
)

log = logging.getLogger("dispute_evidence.run")


class RunLocked(DisputeEvidenceError):
    """Another run holds this state store (and so this inbox)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM: stopped like Ctrl-C (KeyboardInterrupt), and said apart by its exit code."""


class InterruptedAtStart(KeyboardInterrupt):
    """Ctrl-C or SIGTERM while the run opened (its lock, its state, the API's first answer):
    nothing was sent, the run is recorded `interrupted` and the next one does it all."""

    def __init__(self, exit_code: int) -> None:
        super().__init__(exit_code)
        self.exit_code = exit_code


def interrupt_exit_code(exc: BaseException) -> int:
    if isinstance(exc, InterruptedAtStart):
        return exc.exit_code
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


# -- open and close ---------------------------------------------------------------------
def open_run(
    settings: Settings,
    request: RunRequest,
    *,
    api: ApiSettings | None = None,
    gate: RequestGate | None = None,
    poll: float = 15.0,
    api_identity: str | None = None,
    alert_sink: AlertSink | None = None,
) -> RunSession:
    """Open the state store, take the run lock, and start a run row, as `request` asks.

    With `wait_for_lock`, a run that finds another one working waits for it (up to that many
    seconds, polling every `poll`) instead of giving up: the nightly run must not be lost to an
    inbox-triggered one. `adopt` rebinds a state store to this inbox (it moved); `reconcile`
    makes a new state check the API's file listings before uploading (it replaces a lost or
    damaged one). `api`: the client's configuration (None, or a dry run: nothing is sent);
    `api_identity` names the API when its address does not (the inbox's own sandbox);
    `alert_sink` sends the alerts (None: they are logged only)."""
    inbox = request.inbox.expanduser().resolve()
    if not inbox.is_dir():
        raise FileNotFoundError(f"inbox {inbox} is not a folder")
    dry_run, trigger = request.dry_run, request.trigger
    where = request.state or settings.paths.state or default_state(inbox)
    store, scratch = _open_store(where, dry_run)
    label = trigger if not dry_run else f"{trigger} (dry run)"
    run_id = new_run_id()
    try:
        _take_lock(store, run_id, label, request.wait_for_lock, poll)
    except BaseException:
        store.close()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    try:
        store.runs.start_run(label, run_id)
        store.runs.mark_crashed_runs(except_run=run_id)
        store.runs.bind_inbox(inbox, adopt=request.adopt)
        if request.reconcile:
            store.disputes.set_reconcile_uploads(True)
        unproven = None
        if api is not None and not dry_run:
            unproven = _use_api(store, inbox, api_identity or identity_of(api), api, gate)
        opts = run_options(settings, inbox, dry_run=dry_run, scratch=scratch)
        reports = settings.paths.reports or InboxLayout.at(inbox).default_reports
        return RunSession(
            store,
            opts,
            run_id,
            Path(reports) / (f"{run_id}-dry-run" if dry_run else run_id),
            dry_run,
            trigger,
            None if dry_run else api,
            scratch,
            gate,
            KeepAlive(store, new_owner(run_id)).start(),
            config=settings.config_label,
            unproven=unproven,
            alert_sink=alert_sink,
        )
    except BaseException as exc:  # the lock is ours: never leave it behind
        stopped = isinstance(exc, KeyboardInterrupt)
        store.runs.finish_run(
            run_id, "interrupted" if stopped else f"failed: {type(exc).__name__}", {}
        )
        store.locks.release_run_lock(new_owner(run_id))
        store.close()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        raise


def identity_of(api: ApiSettings) -> str:
    return api_identity(api.base_url, api.token.get_secret_value())


def _use_api(
    store: StateStore, inbox: Path, identity: str, api: ApiSettings, gate: RequestGate | None
) -> Stopped | None:
    """Work with this API; what was sent to another one counts as not sent here. A state from
    before this was recorded, beside a `--sandbox` trial's API, may have sent to either.

    An API (or key) the state has not recorded becomes the state's only once it has answered:
    a key it refuses, or an API that cannot be reached, changes nothing in the state (what the
    right key received stays sent there). Returns why nothing may be sent this run, if so."""
    before = store.apis.recorded_api()
    if before != identity and (why := asyncio.run(_prove_key(api, gate))) is not None:
        return why
    tried = (inbox / PRIVATE / "sandbox.sqlite3").exists()
    moved = store.apis.use_api(
        identity, adopt_unrecorded=identity.startswith("sandbox ") or not tried
    )
    if moved:
        log.warning(api_switch_line(before, identity))
    return None


async def _prove_key(api: ApiSettings, gate: RequestGate | None) -> Stopped | None:
    """One request to an API the state meets for the first time: None when it answers, else
    why nothing may be sent (the same stop the submit step's first request would give)."""
    async with DisputeEvidenceClient(settings=api, gate=gate) as client:
        try:
            await client.list_disputes(limit=1)
        except FIRST_REQUEST_STOPS as exc:
            return stopped_by(api, exc, sent=False)
    return None


def api_switch_line(before: str | None, identity: str) -> str:
    """One line, when a state that sent to one API meets another."""
    return (
        f"The API {identity} has nothing from this state yet (it sent to {before or 'another API'})"
        ": every dispute's evidence goes there, and each file is checked against its listing "
        "before uploading, so nothing is sent twice."
    )


def _open_store(where: str | Path, dry_run: bool) -> tuple[StateStore, Path | None]:
    """The state store a run works on, and for a dry run the scratch folder its copy is in."""
    if not dry_run:
        return StateStore(where), None
    # a preview: every step runs on a copy; the real state is only read
    scratch = Path(tempfile.mkdtemp(prefix="dispute-evidence-dry-run-"))
    (scratch / "blobs").mkdir()
    try:
        return _scratch_copy(where, scratch), scratch
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def run_options(
    settings: Settings, inbox: Path, *, dry_run: bool, scratch: Path | None
) -> RunOptions:
    """What the steps need from the settings, for this inbox (a dry run archives nothing)."""
    ingest = settings.ingest
    return RunOptions(
        inbox=inbox,
        merchant=settings.merchant.profile(),
        merchant_country=settings.merchant.country,
        mappings=config_mappings(ingest.mapping, ingest.mapping_files, settings.config_folder),
        max_file_bytes=int(ingest.max_file_mb * 1e6),
        settle_seconds=ingest.settle_seconds,
        archive=ingest.archive and not dry_run,
        blob_dir=scratch / "blobs" if scratch else None,
        concurrency=settings.api.max_concurrency,
        dayfirst=ingest.dayfirst(),
        zone=ingest.timezone,
        summary_pdf=settings.evidence.summary_pdf,
        read_limits=read_limits(settings.evidence, ingest.dayfirst()),
        send_partial=settings.evidence.send_partial_orders,
        packet=replace(
            settings.evidence.packet_policy(), contact=settings.merchant.merchant_contact
        ),
        read_policy=settings.readback.policy(),
        review=settings.review.policy(),
        alerts=settings.alerts.policy(),
        advice=settings.advice.policy(),
        retention=settings.retention.policy(),
        standing=replace(settings.standing.policy(), merchant_country=settings.merchant.country),
    )


def read_limits(evidence: EvidenceSection, dayfirst: bool | None) -> ReadLimits | None:
    """How the run reads documents (None: it does not); `dayfirst`: the locale's date order."""
    if not evidence.read_documents:
        return None
    return ReadLimits(
        seconds=evidence.read_seconds, memory_mb=evidence.read_memory_mb, dayfirst=dayfirst
    )


def _scratch_copy(state: str | Path, scratch: Path) -> StateStore:
    """The state as it is now, copied into `scratch` (an empty state if none exists yet)."""
    copy = scratch / "state.sqlite3"
    if not state_exists(state):
        return StateStore(copy)
    with open_read_only(state) as real:
        return copy_state(real, copy)


def _take_lock(store: StateStore, run_id: str, label: str, wait: float, poll: float) -> None:
    deadline = time.monotonic() + wait
    while holder := store.locks.acquire_run_lock(new_owner(run_id)):
        if time.monotonic() >= deadline:
            store.runs.start_run(label, run_id)
            store.runs.finish_run(run_id, "skipped: another run in progress", {})
            raise RunLocked(f"another run is in progress on this inbox/state: {holder}")
        log.info("waiting for %s to finish", holder)
        time.sleep(min(poll, max(deadline - time.monotonic(), 0.0)))


def close_run(session: RunSession, outcome: str, counts: dict[str, int] | None = None) -> None:
    """Record the outcome, release the lock, close the store: on every path out of a run."""
    if session.keepalive is not None:
        session.keepalive.stop()
    try:
        try:
            session.store.runs.finish_run(session.run_id, outcome, counts or {})
        finally:  # even when the row cannot be written (a full disk): free the inbox
            session.store.locks.release_run_lock(new_owner(session.run_id))
    finally:
        session.store.close()
        if session.scratch:
            shutil.rmtree(session.scratch, ignore_errors=True)


# -- the steps, as a session sees them --------------------------------------------------
def ingest(session: RunSession) -> IngestOutcome:
    return ingest_inbox_step(session.store, session.opts, session.run_id)


def prepare(session: RunSession, ingested: IngestOutcome) -> PrepareOutcome:
    store = session.store
    rebuild = (
        ingested.new_files > 0
        or store.records.needs_rebuild(session.opts.build_inputs())
        or session.dry_run
    )
    out = prepare_step(store, session.opts, ingested, session.run_id, rebuild=rebuild)
    # every file in the inbox is registered: reconciling is enough
    store.disputes.set_reconcile_uploads(False)
    if session.opts.retention.active:
        out.retention = apply_retention(
            store.retention,
            store.scoped,
            session.opts.retention,
            inbox=session.opts.inbox,
            reports=session.report_folder.parent,
            dry_run=session.dry_run,
        )
    return out


def review(session: RunSession) -> ReviewOutcome:
    """What waits for a person's approval, decided before anything is sent."""
    store = session.store
    policy, notices = policy_for_state(store, session.opts.review, str(session.opts.inbox))
    for line in notices:
        log.warning("%s", line)
    out = review_step(store, policy, inbox=session.opts.inbox)
    out.notices = notices
    return out


def alert(session: RunSession) -> AlertOutcome | None:
    """Alert about disputes due soon that still need something (once per dispute per day),
    and about a month's dispute ratio newly at watch or over (once per month, network and
    level)."""
    store, opts, sink = session.store, session.opts, session.alert_sink
    if opts.alerts is None:
        return None
    out = send_alerts(store, opts.alerts, session.run_id, inbox=opts.inbox, sink=sink)
    return add_standing_alerts(out, store, opts, session.run_id, sink)


# -- the one sequence ---------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """Which stages one pass of the sequence goes through: a run, a dry run (nothing sent), the
    disputes just approved sent at once (nothing ingested), or only the report (a run stopped
    part way: what it sent, and the whole picture from the state)."""

    prepare: bool = True  # ingest the inbox, build payloads, review
    submit: bool = True
    alert: bool = True


RUN, DRY_RUN = Plan(), Plan(submit=False, alert=False)
SEND_APPROVED, REPORT_ONLY = Plan(prepare=False, alert=False), Plan(False, False, False)


def execute(
    session: RunSession,
    plan: Plan | None = None,
    *,
    step: StepRunner = plain,
    progress: Progress | None = None,
    stages: Stages | None = None,
) -> RunResult:
    """ingest -> prepare -> review -> submit -> alert -> report, each through `step`, as far as
    `plan` goes (by default a run, or a dry run's); `stages`: what was done before (a run
    stopped part way)."""
    plan = plan or (DRY_RUN if session.dry_run else RUN)
    stages = stages or Stages()
    if plan.prepare:
        stages.ingested = step("ingest inbox", ingest, session)
        stages.prepared = step("build payloads", prepare, session, stages.ingested)
        stages.reviewed = step("review", review, session)
    if plan.submit:
        # what to send and what to hold, decided here and handed to delivery as data
        stages.planned = plan_delivery(session.store, session.opts.advice)
        stages.submitted = step("submit to the API", submit, session, stages.planned, progress)
    if plan.alert:
        stages.alerted = step("send alerts", alert, session)
    with named_when_full(session.report_folder):
        return step("write report", report, session, stages)


def run_inbox(
    settings: Settings,
    request: RunRequest,
    *,
    api: ApiSettings | None = None,
    step: StepRunner = plain,
    progress: Progress | None = None,
    gate: RequestGate | None = None,
    poll: float = 15.0,
    api_identity: str | None = None,
    alert_sink: AlertSink | None = None,
) -> RunResult:
    """Open, execute and close one run; the lock is released whatever happens."""
    spare_the_settled()  # before the run opens: its lock and session are not frozen with it
    try:
        session = open_run(
            settings,
            request,
            api=api,
            gate=gate,
            poll=poll,
            api_identity=api_identity,
            alert_sink=alert_sink,
        )
    except KeyboardInterrupt as exc:  # nothing was sent: said apart from a stop part way
        raise InterruptedAtStart(interrupt_exit_code(exc)) from None
    outcome, counts = "failed", None
    try:
        try:
            result = execute(session, step=step, progress=progress)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: say what was done, then stop
            result = interrupted(session, interrupt_exit_code(exc))
            outcome = "interrupted"
        else:
            outcome = result.outcome
        counts = result.counts
    finally:
        close_run(session, outcome, counts)
    return result


SETTLED = 50_000  # objects in the collector's oldest generation worth freezing at a run's start


def spare_the_settled() -> None:
    """At a run's start, the objects that have settled in the process (the imported libraries,
    about 150,000 at a first run; in a long-lived process also the caches its first runs warmed)
    go out of the cyclic collector's way (gc.freeze), after one collection so no garbage is
    kept. Each full collection during a run traversed them all: in a simulated year (python -m
    bench season, its GC column) 0.17 s of a 1.2 s night. Done again only when over SETTLED
    more have settled since; objects a run makes are collected as before.

    Only on the main thread: runs on other threads share their process with other runs (a
    shard's merchants, flows/sweep.py, which spares its process once as it starts). There, a
    run's start would freeze the others' objects, garbage included, for the process's life, and
    its full collection (0.1-0.5 s) would stop every run in the process."""
    if threading.current_thread() is not threading.main_thread():
        return
    if len(gc.get_objects(generation=2)) > SETTLED:
        gc.collect()
        gc.freeze()


def interrupted(session: RunSession, code: int) -> RunResult:
    """The report of a run stopped part way: the whole picture from the state (every unit of
    work is in a state the next run resumes from), headed by what this run sent."""
    main = threading.current_thread() is threading.main_thread()
    if main:  # a second Ctrl-C or SIGTERM (a process group's, a supervisor's) must not lose it
        previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        requests = session.sent.client.attempts if session.sent.client is not None else 0
        done = SubmitOutcome(session.sent, requests, interrupted=code)
        return execute(session, REPORT_ONLY, stages=Stages(submitted=done))
    finally:
        if main:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, previous)


__all__ = [
    "EXIT_DISK_FULL",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_OK",
    "EXIT_USAGE",
    "InterruptedAtStart",
    "KeepAlive",
    "Progress",
    "RunAborted",
    "RunLocked",
    "RunResult",
    "RunSession",
    "Terminated",
    "StepRunner",
    "close_run",
    "interrupt_exit_code",
    "execute",
    "open_run",
    "plain",
    "run_inbox",
]
