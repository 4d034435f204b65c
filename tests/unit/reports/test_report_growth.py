"""Issue 32: the nightly report's cost follows the open work, not every dispute that ever ended.

The page lists the open disputes and counts the rest; the workbooks keep every row. What that
saves (4N closed disputes render in about the CPU time of N; it was ~3x) is a figure of
`python -m bench report`, not a pass/fail test."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
from sqlalchemy import update

from dispute_evidence import clock
from dispute_evidence.engine.reporting.report import Snapshot, dispute_table
from dispute_evidence.state.schema import disputes
from support.report_history import LONG_AGO, OPEN, history_state, write_nightly_report


def test_page_lists_open_disputes_and_counts_the_ended_ones(tmp_path):
    store = history_state(tmp_path, 40)
    write_nightly_report(store, tmp_path / "reports" / "one")
    page = (tmp_path / "reports" / "one" / "summary.html").read_text()
    assert "Disputes (20)" in page  # the open ones, each with its row
    assert "dp_test_19" in page and "dp_test_20" not in page
    assert "40 dispute(s) that ended over two weeks ago (won 40)" in page
    # every row is kept: the open ones in disputes.xlsx, the ended ones in their month's book
    book = tmp_path / "reports" / "history" / "disputes-ended-2020-01.xlsx"
    assert len(pd.read_excel(book)) == 40
    assert len(pd.read_excel(tmp_path / "reports" / "one" / "disputes.xlsx")) == OPEN


def test_a_dispute_past_due_long_ago_is_counted_not_listed_as_a_problem_every_night(tmp_path):
    from dispute_evidence.engine.reporting.report import table_problems
    from dispute_evidence.problems import ProblemKind

    store = history_state(tmp_path, 0)
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
    from dispute_evidence.engine.reporting.picture import Picture

    before = Picture(
        {"dp_a": "past its deadline, not sent, files 0/1", "dp_b": "sent, files 1/1"},
        frozenset({"dispute_past_due: dp_a: due", "evidence_past_due: dp_a proof.pdf: not sent",
                   "evidence_weak: dp_b: no tracking"}),
    )  # fmt: skip
    aged = Picture({"dp_b": "sent, files 1/1"}, frozenset({"evidence_weak: dp_b: no tracking"}))
    assert aged.changes_since(before) == ["Nothing changed."]  # dp_a is history now
    fixed = Picture({"dp_b": "sent, files 1/1"}, frozenset())
    assert fixed.changes_since(before) == ["Problems: 0 new, 1 resolved"]  # dp_b's, truly
