"""The inbox watcher on its own clock: nothing is started while nothing arrives; a drop is
looked at once it has settled, and starts one run; our own folders do not count; a run that
cannot start yet is retried; the full rescan finds what no event announced. Events and time
are the test's (a scripted event source and clock), so nothing here sleeps; the same watcher
on real inotify and polling: tests/integration/flows/test_watch_real_events.py."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from watchfiles import Change

from dispute_evidence.watch import InboxWatcher
from tests.support.engine_helpers import make_inbox


class Script:
    """The watcher's clock and event source: each step advances the clock, may act on the
    inbox, and yields one batch of changes (empty: a tick with nothing new)."""

    def __init__(self, steps: list[tuple[float, Callable[[], set[tuple[Change, str]]]]]):
        self.now = 1_000.0
        self.steps = steps
        self.looked_at: list[float] = []

    def clock(self) -> float:
        return self.now

    def events(
        self,
        inbox: Path,
        *,
        stop_event: threading.Event,
        watch_filter: Callable[[Change, str], bool] | None = None,
        **_: object,
    ) -> Iterator[set]:
        """As watchfiles' `watch`: each batch without the changes `watch_filter` turns down."""
        for seconds, act in self.steps:
            self.now += seconds
            yield {c for c in act() if watch_filter is None or watch_filter(*c)}
        stop_event.set()


def _aged(folder: Path, seconds: float = 60) -> None:
    """Every file under `folder` last written `seconds` ago (settled)."""
    past = time.time() - seconds
    for path in folder.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


def _watch(inbox: Path, script: Script, start_run, **kwargs) -> InboxWatcher:
    settle = kwargs.pop("settle", 1.0)
    watcher = InboxWatcher(
        inbox,
        state=None,
        settle_seconds=settle,
        start_run=start_run,
        clock=script.clock,
        events=script.events,
        **kwargs,
    )
    watcher.run(threading.Event())
    return watcher


def test_an_idle_inbox_is_looked_at_once_and_starts_nothing(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[list[str]] = []
    ticks = [(5.0, set) for _ in range(100)]  # 500 s of nothing
    watcher = _watch(inbox, Script(ticks), lambda files: started.append(files) or True)
    assert watcher.checks == 1 and started == []  # the look at start, and no other


def test_our_own_folders_do_not_count_as_a_drop(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[list[str]] = []

    def archive() -> set[tuple[Change, str]]:
        (inbox / "archive").mkdir()
        (inbox / "archive" / "old.csv").write_text("a,b\n1,2\n")
        (inbox / ".~lock.orders.csv#").write_text("")
        _aged(inbox)
        # what inotify reports; the watcher's filter turns down our folder and hidden files
        paths = [
            inbox / "archive",
            inbox / "archive" / "old.csv",
            inbox / ".~lock.orders.csv#",
            tmp_path / "elsewhere.csv",
        ]
        return {(Change.added, str(p)) for p in paths}

    script = Script(  # the drop after the first look, so a check it started would be a second
        [(5.0, set), (5.0, archive), *[(5.0, set) for _ in range(10)]]
    )
    watcher = _watch(inbox, script, lambda files: started.append(files) or True)
    assert started == [] and watcher.checks == 1


def test_a_drop_is_looked_at_once_settled_and_starts_one_run(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[tuple[float, list[str]]] = []
    script: Script

    def drop() -> set[tuple[Change, str]]:
        make_inbox(inbox, 2)
        _aged(inbox)
        return {(Change.added, str(p)) for p in inbox.rglob("*") if p.is_file()}

    script = Script([(1.0, set), (1.0, drop), *[(0.5, set) for _ in range(20)]])

    def start(files: list[str]) -> bool:
        started.append((script.now, files))
        return True

    _watch(inbox, script, start, settle=3.0)
    assert len(started) == 1, "a settled drop starts exactly one run"
    when, files = started[0]
    assert when >= 1_002.0 + 3.0, "not before the drop has had settle_seconds to finish"
    assert when <= 1_002.0 + 3.0 + 1.0, "and soon after"
    assert any(f.endswith("disputes.csv") for f in files)


def test_a_run_that_cannot_start_yet_is_retried(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    answers = iter([False, True])
    calls: list[int] = []

    def start(files):
        calls.append(len(files))
        return next(answers)

    watcher = InboxWatcher(inbox, state=None, settle_seconds=0, start_run=start)
    assert watcher.check() is False and watcher.check() is True
    assert calls == [4, 4] and watcher.runs_started == 1


def test_a_run_refused_at_a_drop_is_tried_again_fifteen_seconds_later(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    _aged(inbox)
    script = Script([(1.0, set) for _ in range(40)])
    tries: list[float] = []

    def start(files: list[str]) -> bool:
        tries.append(script.now)
        return len(tries) > 1  # busy the first time

    _watch(inbox, script, start)
    assert len(tries) == 2 and tries[1] - tries[0] == 15.0


def test_the_full_rescan_finds_a_file_no_event_announced(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[list[str]] = []

    def silent_drop() -> set[tuple[Change, str]]:
        make_inbox(inbox, 1)
        _aged(inbox)
        return set()  # the event was missed (a network share)

    script = Script([(1.0, set), (1.0, silent_drop), *[(30.0, set) for _ in range(30)]])
    _watch(inbox, script, lambda files: started.append(files) or True, rescan_seconds=600.0)
    assert len(started) == 1, "the rescan every rescan_seconds finds the missed drop"
