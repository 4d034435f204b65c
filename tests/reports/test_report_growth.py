"""Issue 32: the nightly report's cost follows the open work, not every dispute that ever ended.

A state with 4N disputes that closed long ago renders in at most ~1.5x the CPU time of one with
N (it was ~3x: every closed dispute got its completeness, letter and page section each night);
a ratio of two measurements in the same test, never seconds. The page lists the open disputes
and counts the rest; the workbooks keep every row."""

from __future__ import annotations

import gc
import time
from datetime import timedelta
from pathlib import Path

import pandas as pd
from sqlalchemy import update

from dispute_evidence import clock
from dispute_evidence.engine.outcomes import outcomes_table, remembered_kinds
from dispute_evidence.engine.report import Snapshot, dispute_table
from dispute_evidence.engine.schema import disputes
from dispute_evidence.engine.state import StateStore
from dispute_evidence.engine.steps import ingest_inbox_step, prepare_step
from dispute_evidence.reports.writer import RunReport, write_report
from tests.engine.helpers import make_inbox, options

OPEN = 20
LONG_AGO = "2020-01-15T00:00:00Z"


def _state(root: Path, closed: int) -> StateStore:
    """OPEN disputes still open and `closed` that the provider closed (won) in January 2020."""
    inbox = root / "inbox"
    make_inbox(inbox, OPEN + closed, files=(0, 0))
    store = StateStore(root / "state.sqlite3")
    opts = options(inbox)
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
    still_open = [f"dp_test_{i}" for i in range(OPEN)]
    with store.engine.begin() as c:
        c.execute(
            update(disputes)
            .where(disputes.c.provider_dispute_id.not_in(still_open))
            .values(status="closed", dispute_id="dis_x", api_status="won",
                    api_status_at=LONG_AGO, response_due_by=LONG_AGO)
        )  # fmt: skip
    return store


def _render(store: StateStore, folder: Path) -> float:
    """CPU seconds to assemble the dispute table and write the whole report (the collector
    held off: its pauses follow the whole test process's heap, not this report)."""
    gc.collect()
    gc.disable()
    try:
        return _timed_render(store, folder)
    finally:
        gc.enable()


def _timed_render(store: StateStore, folder: Path) -> float:
    begin = time.process_time()
    snap = Snapshot.read(store)
    table = dispute_table(store, snap=snap)
    sent = table.loc[table["dispute_id"].fillna("") != "", "provider_dispute_id"]
    outcomes = outcomes_table(table, snap.payloads, remembered_kinds(store, sent, snap.payloads))
    write_report(
        RunReport("r", "ok", False, {}, table, [], outcomes=outcomes, files=snap.files), folder
    )
    return time.process_time() - begin


def _cost(root: Path, closed: int) -> float:
    store = _state(root, closed)
    _render(store, root / "reports" / "first")  # writes the month's history workbook once
    # the least of five: a busy machine only ever adds time, to one measurement or the other
    cost = min(_render(store, root / "reports" / f"r{i}") for i in range(5))
    store.close()
    return cost


def test_four_times_the_history_costs_about_the_same(tmp_path):
    n = 300
    small, large = _cost(tmp_path / "n", n), _cost(tmp_path / "4n", 4 * n)
    assert large / small <= 1.6, f"4N closed disputes cost {large / small:.2f}x N"


def test_page_lists_open_disputes_and_counts_the_ended_ones(tmp_path):
    store = _state(tmp_path, 40)
    _render(store, tmp_path / "reports" / "one")
    page = (tmp_path / "reports" / "one" / "summary.html").read_text()
    assert "Disputes (20)" in page  # the open ones, each with its row
    assert "dp_test_19" in page and "dp_test_20" not in page
    assert "40 dispute(s) that ended over two weeks ago (won 40)" in page
    # every row is kept: the open ones in disputes.xlsx, the ended ones in their month's book
    book = tmp_path / "reports" / "history" / "disputes-ended-2020-01.xlsx"
    assert len(pd.read_excel(book)) == 40
    assert len(pd.read_excel(tmp_path / "reports" / "one" / "disputes.xlsx")) == OPEN


def test_a_dispute_past_due_long_ago_is_counted_not_listed_as_a_problem_every_night(tmp_path):
    from dispute_evidence.engine.report import table_problems
    from dispute_evidence.problems import ProblemKind

    store = _state(tmp_path, 0)
    recent = (clock.now() - timedelta(days=3)).isoformat()
    # dp_test_1: the API's status was read in 2020 (sent then, re-sent since); it went past
    # due three days ago, and that is when it ended
    for pid, when in (("dp_test_0", LONG_AGO), ("dp_test_1", recent)):
        with store.engine.begin() as c:
            c.execute(
                update(disputes)
                .where(disputes.c.provider_dispute_id == pid)
                .values(status="past_due", detail="response was due by then; nothing was sent",
                        api_status_at=LONG_AGO if pid == "dp_test_1" else None,
                        updated_at=when, response_due_by=when)
            )  # fmt: skip
    snap = Snapshot.read(store)
    table = dispute_table(store, snap=snap)
    listed = table_problems(table, snap.files, store, None, [], False)
    past_due = {p.dispute for p in listed if p.kind == ProblemKind.DISPUTE_PAST_DUE}
    assert past_due == {"dp_test_1"}  # the one that ended three days ago still says so
    assert set(table["provider_dispute_id"]) >= {"dp_test_0", "dp_test_1"}  # both still rows
    assert table.loc[table["provider_dispute_id"] == "dp_test_0", "ended_month"].item() == "2020-01"


def test_problems_of_disputes_that_aged_into_history_are_not_counted_as_resolved():
    from dispute_evidence.engine.picture import Picture

    before = Picture(
        {"dp_a": "past its deadline, not sent, files 0/1", "dp_b": "sent, files 1/1"},
        frozenset({"dispute_past_due: dp_a: due", "evidence_past_due: dp_a proof.pdf: not sent",
                   "evidence_weak: dp_b: no tracking"}),
    )  # fmt: skip
    aged = Picture({"dp_b": "sent, files 1/1"}, frozenset({"evidence_weak: dp_b: no tracking"}))
    assert aged.changes_since(before) == ["Nothing changed."]  # dp_a is history now
    fixed = Picture({"dp_b": "sent, files 1/1"}, frozenset())
    assert fixed.changes_since(before) == ["Problems: 0 new, 1 resolved"]  # dp_b's, truly
