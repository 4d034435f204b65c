"""The inbox watcher on real file events and real time (watchfiles' inotify and polling): a
settled drop starts one run, an Approve sheet dropped back is a drop. The watcher's logic on its
own clock, without waiting: tests/unit/flows/test_watch.py."""

from __future__ import annotations

import threading
import time

import pytest

from dispute_evidence.watch import InboxWatcher
from tests.support.engine_helpers import make_inbox


def _wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.mark.parametrize("mode", ["events", "polling"])
def test_a_drop_starts_one_run_and_an_idle_inbox_none(tmp_path, mode):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[list[str]] = []
    watcher = InboxWatcher(
        inbox,
        state=None,
        settle_seconds=1.0,
        start_run=lambda files: started.append(files) or True,
        mode=mode,
        poll_seconds=2,
        tick_seconds=0.5,
    )
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), daemon=True)
    thread.start()
    try:
        assert _wait_for(lambda: watcher.checks >= 1, 10)  # it looked once at start
        (inbox / "archive").mkdir()  # our own folders do not count as a drop
        (inbox / "archive" / "old.csv").write_text("a,b\n1,2\n")
        time.sleep(3)
        assert started == []  # idle: no run
        make_inbox(inbox, 2)
        assert _wait_for(lambda: started, 40), "a settled drop must start a run"
        assert len(started) == 1
        assert any(f.endswith("disputes.csv") for f in started[0])
    finally:
        stop.set()
        thread.join(10)


def test_an_approve_sheet_dropped_starts_a_run_as_any_drop_does(tmp_path):
    """Under `serve`, approving by dropping the report's disputes.xlsx back is a drop like any
    other: the watcher starts a run, which applies (and sends) the approval."""
    from openpyxl import Workbook

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    started: list[list[str]] = []
    watcher = InboxWatcher(
        inbox,
        state=None,
        settle_seconds=1.0,
        start_run=lambda files: started.append(files) or True,
        mode="polling",
        poll_seconds=1,
        tick_seconds=0.5,
    )
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), daemon=True)
    thread.start()
    try:
        assert _wait_for(lambda: watcher.checks >= 1, 10)
        book = Workbook()
        book.active.append(["Dispute", "Approve", "Evidence version"])
        book.active.append(["dp_test_0", "yes", "v0123456789ab"])
        book.save(inbox / "disputes.xlsx")
        assert _wait_for(lambda: started, 30), "an Approve sheet must start a run"
        assert [f.rsplit("/", 1)[-1] for f in started[0]] == ["disputes.xlsx"]
    finally:
        stop.set()
        thread.join(10)
