"""A state with a long history (issue 32): disputes still open beside many that the provider
closed long ago, and the whole nightly report written from it. Shared by
tests/unit/reports/test_report_growth.py (what the page lists and counts) and `python -m bench
report` (what the report costs as the history grows)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.engine.reporting.outcomes import outcomes_table, remembered_kinds
from dispute_evidence.engine.reporting.report import Snapshot, dispute_table
from dispute_evidence.reports.writer import RunReport, write_report
from dispute_evidence.sandbox.workload import MERCHANT, make_inbox
from dispute_evidence.state.schema import disputes
from dispute_evidence.state.store import StateStore

OPEN = 20
LONG_AGO = "2020-01-15T00:00:00Z"


def history_state(root: Path, closed: int) -> StateStore:
    """OPEN disputes still open and `closed` that the provider closed (won) in January 2020."""
    inbox = root / "inbox"
    make_inbox(inbox, OPEN + closed, files=(0, 0))
    store = StateStore(root / "state.sqlite3")
    opts = RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0)
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


def write_nightly_report(store: StateStore, folder: Path) -> None:
    """The dispute table assembled and the whole report written, as a run's report step does."""
    snap = Snapshot.read(store)
    table = dispute_table(store, snap=snap)
    sent = table.loc[table["dispute_id"].fillna("") != "", "provider_dispute_id"]
    outcomes = outcomes_table(table, remembered_kinds(store, sent, snap.payloads))
    write_report(
        RunReport("r", "ok", False, {}, table, [], outcomes=outcomes, files=snap.files), folder
    )
