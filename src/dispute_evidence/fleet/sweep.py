"""A platform's night (issue 48): a sweep that fans out, not one deployment per merchant.

A sweep (a scheduled flow, one deployment per time zone) reads the merchants file every time,
so adding or removing a merchant needs no re-deploy, and picks the merchants whose night has
come and is not done. It hands them out in a few shards: long-lived flow runs that run their
merchants one after another in one process (the product, the settings and the database pool
imported once), a few at a time. Each merchant keeps its own state schema and run lock, its key's shared budget
and its report; its night is a row in the fleet's night ledger (fleet/nights.py).

Crash safety is the engine's, per merchant: a night a killed shard left (queued, or running in
a shard no longer alive) is due again at the next sweep, and the new run resumes the merchant's
state under its run lock, so nothing is sent twice. A merchant that fails (a refused key, an
API down, a broken configuration, a full disk) is recorded with one line, retried by the next
sweeps up to MAX_ATTEMPTS times in its night, and never stops or slows the rest of its shard.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar
from zoneinfo import ZoneInfo

from cronsim import CronSim

from dispute_evidence.cardnumbers import cover
from dispute_evidence.engine.delivery.phase import submit
from dispute_evidence.engine.reporting.report import RunResult
from dispute_evidence.exits import (
    EXIT_AUTH,
    EXIT_DISK_FULL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
)
from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.fleet.nights import DONE, FAILED, QUEUED, RUNNING, Night, NightLedger

log = logging.getLogger("dispute_evidence.fleet")

LOOKBACK = timedelta(hours=24)  # a night missed longer ago is not run late: the next one is
MAX_ATTEMPTS = 3  # a merchant's night that failed this often waits for the next night
SHARD_SIZE = 500  # merchants a shard runs, at most (a shard is one flow run)
# a run that could not do its night's work: tried again by the next sweep
NOT_DONE = frozenset(
    {EXIT_USAGE, EXIT_AUTH, EXIT_UNREACHABLE, EXIT_DISK_FULL, EXIT_INTERRUPTED, EXIT_TERMINATED}
)


def last_night(run: MerchantRun, now: datetime) -> datetime | None:
    """The merchant's latest scheduled night at or before `now`, within LOOKBACK (UTC)."""
    zone = ZoneInfo(run.timezone)
    fired: datetime = next(iter(CronSim(run.schedule, now.astimezone(zone), reverse=True)))
    return fired.astimezone(UTC) if now - fired <= LOOKBACK else None


def next_night(run: MerchantRun, now: datetime) -> datetime:
    zone = ZoneInfo(run.timezone)
    return next(iter(CronSim(run.schedule, now.astimezone(zone)))).astimezone(UTC)


def night_key(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


@dataclass(frozen=True)
class Due:
    run: MerchantRun
    night: str
    why: str  # "first run of the night", "left by shard …", "failed 1 time(s): …"
    seen: int | None = None  # the attempts its ledger row had when read (None: no row yet)


def due(
    runs: Iterable[MerchantRun],
    now: datetime,
    ledger: NightLedger,
    alive: Callable[[str], bool],
) -> list[Due]:
    """The merchants whose night has come and is not done: never handed out, handed to a shard
    that is no longer alive (killed, crashed) or failed fewer than MAX_ATTEMPTS times.
    `alive(shard)`: whether that shard's flow run is still scheduled or running."""
    nights = {r.id: (r, night_key(n)) for r in runs if (n := last_night(r, now)) is not None}
    rows = ledger.of([(mid, night) for mid, (_, night) in nights.items()])
    out = []
    for mid, (run, night) in sorted(nights.items(), key=lambda kv: kv[1][1]):
        row = rows.get(mid)
        why = _why_due(row, alive)
        if why:
            out.append(Due(run, night, why, row.attempts if row else None))
    return out


def _why_due(row: Night | None, alive: Callable[[str], bool]) -> str:
    if row is None:
        return "its night has come"
    if row.stage == DONE:
        return ""
    if row.stage == FAILED:
        return f"failed {row.attempts} time(s): {row.detail}" if row.attempts < MAX_ATTEMPTS else ""
    if row.stage in (QUEUED, RUNNING) and not alive(row.shard):
        return f"left {row.stage} by {row.shard}, which is no longer running"
    return ""


def shards_of(work: Sequence[Due], size: int = SHARD_SIZE) -> list[list[Due]]:
    """The due merchants in shards of at most `size`, nearest night first."""
    return [list(work[i : i + size]) for i in range(0, len(work), size)]


@dataclass
class ShardOutcome:
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # merchant -> why, one line
    skipped: dict[str, str] = field(default_factory=dict)  # merchant -> why not run
    outcomes: dict[str, str] = field(default_factory=dict)  # merchant -> its run's headline
    seconds: dict[str, float] = field(default_factory=dict)  # merchant -> its night's wall time


RunOne = Callable[[MerchantRun], RunResult]
T = TypeVar("T")


class OwnWorkSlots:
    """A step runner (engine/session.py StepRunner) for a shard's merchants: their own work
    (ingest, prepare, review, alerts, report: CPU and their state database) runs at most
    `slots` at a time in the shard's process; a merchant submitting, which mostly waits on its
    key's budget, holds none. Many merchants run at once in one process (one interpreter lock):
    one starting its night competes with a few at work, not with all of them."""

    def __init__(self, slots: int) -> None:
        self._slots = threading.BoundedSemaphore(slots)

    def __call__(self, name: str, fn: Callable[..., T], /, *args: Any) -> T:
        if fn is submit:
            return fn(*args)
        with self._slots:
            return fn(*args)


class Shown(Protocol):
    """Where an operator sees each merchant's night as it goes (flows/sweep.py: a task run of
    the shard's flow run in the Prefect UI)."""

    def begun(self, merchant: str, night: str, attempt: int) -> None: ...

    def ended(self, merchant: str, night: str, *, failed: str, outcome: str) -> None: ...

    def taken_over(self, merchant: str, night: str, *, left: str, shard: str) -> None:
        """The night was left running by `left` (killed mid-night): what showed it running
        there is ended, saying so, as `shard` takes it over."""


class ShownInOrder:
    """A `Shown` whose calls never keep a night waiting: each is queued and made by one thread
    in the order given (a night is shown begun before it is shown ended), so a merchant begins
    its work at once, not after the Prefect API has answered for it and for the merchants of its
    shard ahead of it (one HTTP client a shard: in bench scale at 1,000 merchants, that wait
    was most of a merchant's start-up). A call that fails is logged as `_safely` logs it.
    `close()` waits for what is queued (up to `timeout` seconds) and says what was left."""

    def __init__(self, shown: Shown, timeout: float = 60.0) -> None:
        self._shown, self._timeout = shown, timeout
        self._queue: queue.Queue[tuple[Callable[[], None], str, str] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._show, name="shown-in-order", daemon=True)
        self._thread.start()

    def begun(self, merchant: str, night: str, attempt: int) -> None:
        shown = self._shown
        self._queue.put((lambda: shown.begun(merchant, night, attempt), merchant, "begun"))

    def ended(self, merchant: str, night: str, *, failed: str, outcome: str) -> None:
        def end() -> None:
            self._shown.ended(merchant, night, failed=failed, outcome=outcome)

        self._queue.put((end, merchant, "ended"))

    def taken_over(self, merchant: str, night: str, *, left: str, shard: str) -> None:
        def over() -> None:
            self._shown.taken_over(merchant, night, left=left, shard=shard)

        self._queue.put((over, merchant, "taken over"))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(self._timeout)
        if self._thread.is_alive():
            log.warning(
                "%d changes of merchants' task runs were not shown in the Prefect UI within %g "
                "s (the Prefect API is slow or down); their nights are recorded in the ledger "
                "all the same (`dispute-evidence status`)",
                self._queue.qsize(),
                self._timeout,
            )

    def _show(self) -> None:
        while (item := self._queue.get()) is not None:
            _safely(*item)


def run_one_night(
    run: MerchantRun,
    night: str,
    shard: str,
    ledger: NightLedger,
    each: RunOne,
    out: ShardOutcome,
    shown: Shown | None = None,
) -> None:
    """One merchant's night in a shard: recorded as begun, run, recorded as done or failed
    (in the ledger, and where `shown`). Whatever it raises stays with it (one line in the
    ledger and the log); a night that cannot be shown is run all the same."""
    took = ledger.begin(run.id, night, shard)
    if took is None:  # done, or handed to another shard since this one was given it
        out.skipped[run.id] = "handed to another shard since, or done"
        return
    attempt = took.attempt
    if shown is not None:
        if took.left:
            over = shown.taken_over
            _safely(lambda: over(run.id, night, left=took.left, shard=shard), run.id, "taken over")
        begun = shown.begun
        _safely(lambda: begun(run.id, night, attempt), run.id, "begun")
    started = time.monotonic()
    why = ""
    try:
        result = each(run)
    except Exception as exc:  # noqa: BLE001 - one merchant never stops its shard
        why = cover(f"{type(exc).__name__}: {exc}".splitlines()[0])
        ledger.finish(run.id, night, failed=why)
        out.failed[run.id] = why
        log.error("merchant %s: night %s (attempt %d) failed: %s", run.id, night, attempt, why)
    else:
        if result.exit_code in NOT_DONE:
            why = cover(result.stopped or result.outcome)
            ledger.finish(run.id, night, failed=why, outcome=result.outcome)
            out.failed[run.id] = why
            log.error("merchant %s: night %s (attempt %d): %s", run.id, night, attempt, why)
        else:
            ledger.finish(run.id, night, outcome=result.outcome)
            out.done.append(run.id)
            out.outcomes[run.id] = result.outcome
    out.seconds[run.id] = time.monotonic() - started
    if shown is not None:
        ended, outcome = shown.ended, out.outcomes.get(run.id, "")
        _safely(lambda: ended(run.id, night, failed=why, outcome=outcome), run.id, "ended")


def _safely(show: Callable[[], None], merchant: str, what: str) -> None:
    try:
        show()
    except Exception as exc:  # noqa: BLE001 - showing a night never stops it
        why = cover(f"{type(exc).__name__}: {exc}".splitlines()[0])
        log.warning("merchant %s: its night could not be shown %s: %s", merchant, what, why)


def status_rows(
    runs: Iterable[MerchantRun], ledger: NightLedger, now: datetime
) -> list[dict[str, str]]:
    """Per merchant: its last night (when, what it did), its next night, and whether it is
    waiting (handed out, not yet begun), running, failing or fine: `status --merchants`."""
    latest = ledger.latest()
    rows = []
    for run in runs:
        night = latest.get(run.id)
        state = "never run" if night is None else _state(night)
        rows.append(
            {
                "merchant": run.id,
                "last night": night.night if night else "",
                "state": state,
                "last outcome": (night.detail or night.outcome) if night else "",
                "next night": night_key(next_night(run, now)),
                "attempts": str(night.attempts) if night else "0",
            }
        )
    return rows


def _state(night: Night) -> str:
    return {QUEUED: "waiting", RUNNING: "running", DONE: "done", FAILED: "failing"}.get(
        night.stage, night.stage
    )


def assign(ledger: NightLedger, work: Sequence[Due], shard: str) -> list[Due]:
    """Record `work` as handed to `shard` (queued) before the shard's flow run exists; only
    the nights still as the sweep read them (a crashed shard's rerun may have begun one since).
    Returns those handed."""
    seen = {d.run.id: d.seen for d in work}
    handed = ledger.queue([(d.run.id, d.night) for d in work], shard, seen)
    return [d for d in work if (d.run.id, d.night) in handed]
