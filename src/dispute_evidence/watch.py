"""Watch the inbox in-process and start a run only when settled new files exist.

Events come from the OS (inotify, through watchfiles); where there are none (network shares,
some containers) it polls instead. Nothing is started while nothing arrives: the watcher
itself checks for new files (a directory scan and one read of the state), and only a drop
that is complete and new leads to a run. A full check also happens every `rescan_seconds`,
in case an event was missed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from watchfiles import Change, watch

from dispute_evidence.inbox import OWN_FOLDERS, default_state, file_sha256, is_settled, signature
from dispute_evidence.ingest import scan_inbox, scan_store
from dispute_evidence.names import readable
from dispute_evidence.state.holders import HasRecords, HasRuns
from dispute_evidence.state.store import open_read_only, state_exists


class WatchParts(HasRecords, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.watch")


def new_inbox_files(inbox: Path, state: str | None, settle: float) -> list[str]:
    """Settled spreadsheets not yet ingested, and settled evidence and store files no run has
    considered (a store file changed in place is new).
    Reads the state only (never creates or changes it). A file that cannot be read starts no
    run (the next run reports it)."""
    sheets, evidence, _ = scan_inbox(inbox)
    evidence += scan_store(inbox)[0]  # a store document new or changed in place
    where = state or default_state(inbox)
    if not state_exists(where):
        return [readable(str(p)) for p in [*sheets, *evidence] if _settled(p, settle)]
    with open_read_only(where) as store:
        seen = store.runs.seen_evidence()
        fresh = [p for p in sheets if _settled(p, settle) and not _ingested(store, p)]
        fresh += [p for p in evidence if _settled(p, settle) and signature(inbox, p) not in seen]
    return [readable(str(p)) for p in fresh]


def _settled(path: Path, settle: float) -> bool:
    try:
        return is_settled(path, settle)
    except OSError:
        return False


def _ingested(store: WatchParts, path: Path) -> bool:
    try:
        return store.records.is_ingested(file_sha256(path))
    except OSError:
        return True  # unreadable: nothing a run could read now


def unsettled_files(inbox: Path, settle: float, now: float | None = None) -> list[Path]:
    """Spreadsheets and evidence files written to within `settle` seconds (being written)."""
    sheets, evidence, _ = scan_inbox(inbox)
    evidence += scan_store(inbox)[0]
    out = []
    for path in [*sheets, *evidence]:
        try:
            if not is_settled(path, settle, now):
                out.append(path)
        except OSError:  # gone or unreadable meanwhile: the run itself says so
            continue
    return out


def wait_until_settled(
    inbox: Path,
    settle: float,
    say: Callable[[str], None],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
) -> list[Path]:
    """For an explicit run: wait (at most `settle` seconds and a little) for files still being
    written to settle, saying what it waits for; returns the files still unsettled after."""
    waiting = unsettled_files(inbox, settle, clock())
    if not waiting or settle <= 0:
        return waiting
    names = ", ".join(str(p.relative_to(inbox)) for p in waiting[:3])
    more = f" and {len(waiting) - 3} more" if len(waiting) > 3 else ""
    say(
        f"Waiting up to {settle:g} s for {len(waiting)} file(s) still being written "
        f"({names}{more})..."
    )
    deadline = clock() + settle + 1
    while waiting and clock() < deadline:
        newest = max((p.stat().st_mtime for p in waiting if p.exists()), default=0.0)
        sleep(min(max(newest + settle - clock(), 0.05), max(deadline - clock(), 0.0)))
        waiting = unsettled_files(inbox, settle, clock())
    return waiting


class InboxWatcher:
    """Calls `start_run()` when settled new files are in the inbox; `start_run` returns False
    when it could not start one now (a run is still working), and the check is retried."""

    def __init__(
        self,
        inbox: Path,
        *,
        state: str | None,
        settle_seconds: float,
        start_run: Callable[[list[str]], bool],
        mode: str = "auto",
        poll_seconds: float = 30.0,
        rescan_seconds: float = 600.0,
        tick_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        events: Callable[..., Iterable[set[tuple[Change, str]]]] = watch,
    ) -> None:
        """`clock` and `events` (watchfiles' `watch`: batches of changes, an empty one each
        tick) are the watcher's time and its source of file events; tests hand in their own."""
        self.inbox, self.state, self.settle = inbox, state, settle_seconds
        self.clock, self.events = clock, events
        self.start_run, self.mode = start_run, mode
        self.poll_seconds, self.rescan_seconds = poll_seconds, rescan_seconds
        self.tick_ms = int(tick_seconds * 1000)  # how often a due check is looked at
        self.checks = 0  # how many times the inbox was looked at (for the benchmark)
        self.runs_started = 0

    def _ours(self, _change: Change, path: str) -> bool:
        """Only analysts' files: not our archive/rejected/private folders, not hidden files."""
        try:
            rel = Path(path).relative_to(self.inbox)
        except ValueError:
            return False
        return bool(rel.parts) and rel.parts[0] not in OWN_FOLDERS and not rel.name.startswith(".")

    def check(self) -> bool:
        """True when nothing is left to start (no new files, or a run was started)."""
        self.checks += 1
        fresh = new_inbox_files(self.inbox, self.state, self.settle)
        if not fresh:
            return True
        log.info("%d new file(s) in %s: starting a run", len(fresh), self.inbox)
        started = self.start_run(fresh)
        self.runs_started += started
        return started

    def run(self, stop: threading.Event) -> None:
        """Until `stop` is set: wait for events (or poll), then check once files have settled."""
        due: float | None = self.clock()  # look once at start: files dropped while down
        last_full = self.clock()
        polling = self.mode == "polling"
        while not stop.is_set():
            try:
                options: dict[str, Any] = {
                    "watch_filter": self._ours,
                    "stop_event": stop,
                    "rust_timeout": self.tick_ms,
                    "yield_on_timeout": True,
                    "force_polling": polling,
                    "poll_delay_ms": int(self.poll_seconds * 1000),
                    "raise_interrupt": False,
                }
                for changes in self.events(self.inbox, **options):
                    now = self.clock()
                    if changes:  # wait until the drop has settled, then look
                        due = now + self.settle + 0.5
                    if now - last_full >= self.rescan_seconds:
                        due, last_full = now, now
                    if due is not None and now >= due:
                        due = None if self.check() else now + 15.0
            except (OSError, RuntimeError) as exc:  # no inotify here (limits, network share)
                if polling or self.mode == "events":
                    raise
                log.warning("no file events for %s (%s); polling instead", self.inbox, exc)
                polling = True
