"""What every step of one run works with: the session (opened once, closed once, never
changed), the keep-alive that renews its lock, and how a step is run (plainly, or as a Prefect
task). Below engine/run_steps.py and engine/reporting/report.py, which both read a session."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from dispute_evidence.api.config import ApiSettings
from dispute_evidence.api.pacer import RequestGate
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.exits import Stopped
from dispute_evidence.state.store import (
    KEEPALIVE_SECONDS,
    RUN_LOCK_SECONDS,
    StateStore,
    process_owner_prefix,
)

log = logging.getLogger("dispute_evidence.run")

T = TypeVar("T")
Progress = Callable[[int, int], None]  # (disputes done, disputes to do)


class StepRunner(Protocol):
    def __call__(self, name: str, fn: Callable[..., T], /, *args: Any) -> T: ...


def plain(name: str, fn: Callable[..., T], /, *args: Any) -> T:
    """Run a step as a plain call (no orchestrator)."""
    return fn(*args)


class KeepAlive:
    """While a run is open, a thread renews its run lock and its process's dispute leases every
    KEEPALIVE_SECONDS: they outlive a dead process by at most their TTL, on any machine.

    `wait(seconds)` is how a beat waits: it returns True once the keeper is to stop (by default
    `stop()` ends a real wait at once); a test gives one that moves a fake clock instead."""

    def __init__(
        self,
        store: StateStore,
        owner: str,
        every: float = KEEPALIVE_SECONDS,
        *,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        self._store, self._owner, self._every = store, owner, every
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._thread = threading.Thread(target=self._loop, name="run-keepalive", daemon=True)

    def start(self) -> KeepAlive:
        self._thread.start()
        return self

    def _loop(self) -> None:
        missed = 0
        while not self._wait(self._every):
            try:
                self._store.locks.renew_run_lock(self._owner)
                self._store.locks.renew_leases(process_owner_prefix())
            except Exception as exc:  # noqa: BLE001 - a database hiccup: try again next beat
                missed += 1
                # One missed beat leaves the lock most of its time: tried again, not said (a run
                # the database stopped answering says so itself, in one line). Said from the
                # second in a row, when the lock is at risk.
                log.log(
                    logging.WARNING if missed >= 2 else logging.DEBUG,
                    "could not renew the run lock %d time(s) in a row, every %g s (it lapses %g s "
                    "after the last renewal, and another run may then take the inbox): %s",
                    missed,
                    self._every,
                    RUN_LOCK_SECONDS,
                    exc,
                )
            else:
                missed = 0

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


class AlertSink(Protocol):
    """Where alerts go beyond the log: flows/alerting.py's `PrefectAlerts` (Prefect events, a
    notification block by its slug)."""

    def unavailable(self) -> str | None:
        """Why nothing can be sent now, in words (None: it can)."""
        ...

    def emit(self, event: str, resource: str, name: str, payload: dict[str, Any]) -> bool:
        """One event on `resource`; False when nothing took it."""
        ...

    def notify(self, block: str, subject: str, body: str) -> None:
        """One message through the named block; AlertNotSent when it was not delivered."""
        ...


@dataclass
class SubmitStats:
    """What submitting did so far (engine/delivery/submit.py counts into it)."""

    evidence_sent: int = 0
    files_uploaded: int = 0
    files_reconciled: int = 0
    reconcile_checks: int = 0  # listings made to learn whether an unanswered upload landed
    rejected: int = 0
    not_found: int = 0
    past_due: int = 0
    failed: int = 0
    locked: int = 0
    # deadlines the API's dispute moved as it was first sent to: (dispute, was, the API's)
    deadlines_moved: list[tuple[str, str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    client: Any = None  # the API client's counters (.attempts): an interrupted run's requests


@dataclass(frozen=True)
class RunSession:
    """What every step of one run works with; opened once, closed once, never changed."""

    store: StateStore
    opts: RunOptions
    run_id: str
    report_folder: Path
    dry_run: bool
    trigger: str
    api: ApiSettings | None  # None: a dry run, which sends nothing
    scratch: Path | None = None  # a dry run's throwaway copy of the state (removed at close)
    gate: RequestGate | None = None  # the API key's budget shared with other workers, if any
    keepalive: KeepAlive | None = None  # renews the lock and leases while the run is open
    sent: SubmitStats = field(default_factory=SubmitStats)  # what submitting did so far
    config: str = ""  # which config file the run uses, for its report
    only: frozenset[str] | None = None  # send just these disputes (an approval sent at once)
    # why nothing may be sent this run: the API this state has not sent to yet refused the
    # key or could not be reached when asked (engine/run_steps.py: _use_api)
    unproven: Stopped | None = None
    alert_sink: AlertSink | None = None  # where alerts go beyond the log (flows/alerting.py)
