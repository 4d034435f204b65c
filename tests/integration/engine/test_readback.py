"""Reading disputes back from the API (the sandbox, over loopback, moving disputes through
statuses as a provider would): closed disputes get nothing, the API's deadlines are used,
reads stay within their share of the budget, and outcomes are counted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd

from dispute_evidence import clock
from dispute_evidence.engine.delivery.api_readback import _read_due
from dispute_evidence.engine.reporting.outcomes import evidence_kinds, outcomes_table
from dispute_evidence.engine.reporting.report import dispute_table
from dispute_evidence.evidence.dispute_facts import DisputeFacts, OrderFacts
from dispute_evidence.policies import ReadPolicy
from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import engine_pass, make_inbox

POLICY = ReadPolicy()


def _run(store, sb, inbox, budget_per_hour=5000, policy=POLICY):
    """One engine pass as run.py does it: ingest, prepare, read back, send what is free."""
    _, read, _ = engine_pass(
        store, sb.base_url, inbox, policy=policy, budget_per_hour=budget_per_hour
    )
    return read


def _iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_closed_and_under_review_disputes_get_nothing_and_deadlines_come_from_the_api(
    sandbox_factory, tmp_path
):
    sb = sandbox_factory(rows=seed_rows(4))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 4)
    with StateStore(tmp_path / "state.sqlite3") as store:
        _run(store, sb, inbox)  # everything sent once; the API ids are now known
        _run(store, sb, inbox)  # read back: the API's deadlines fill the sheet's blanks
        sb.move("dp_test_0", status="won")
        sb.move("dp_test_1", status="under_review")
        later = _iso(datetime.now(UTC) + timedelta(days=40))
        sb.move("dp_test_2", response_due_by=later)
        gone = _iso(datetime.now(UTC) - timedelta(hours=3))
        sb.move("dp_test_3", response_due_by=gone)
        for i in range(4):  # new evidence for every dispute
            (inbox / "proofs" / f"dp_test_{i}_late.pdf").write_bytes(b"%PDF-1.4 late " + bytes([i]))
        before = sb.snapshot()
        read = _run(store, sb, inbox)
        after = sb.snapshot()
        files = {p: len(after[p]["files"]) - len(before[p]["files"]) for p in after}
        assert files == {"dp_test_0": 0, "dp_test_1": 0, "dp_test_2": 1, "dp_test_3": 0}
        assert read.closed == [("dp_test_0", "won")]
        assert "under review" in read.held["dp_test_1"]
        moved = {pid: now for pid, _, now in read.moved}
        assert moved == {"dp_test_2": later, "dp_test_3": gone}
        table = dispute_table(store).set_index("provider_dispute_id")
        assert table.loc["dp_test_0", "status"] == "closed"
        assert table.loc["dp_test_2", "response_due_by"] == later  # the API's, not the sheet's
        late = store.reports.file_table().set_index("file_name").loc["dp_test_3_late.pdf", "status"]
        assert late != "uploaded"  # the moved deadline decided it: past due, not sent
        # a closed dispute stays closed and gets nothing, even when its evidence changes again
        (inbox / "proofs" / "dp_test_0_more.pdf").write_bytes(b"%PDF-1.4 more")
        _run(store, sb, inbox)
        assert len(sb.snapshot()["dp_test_0"]["files"]) == len(after["dp_test_0"]["files"])
        history = store.readback.status_history()
        assert set(history["status"]) >= {"won", "under_review", "needs_response"}


def test_reads_stay_within_their_share_and_a_quiet_run_reads_only_what_is_due(
    sandbox_factory, tmp_path
):
    n = 250
    sb = sandbox_factory(rows=seed_rows(n))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, n)
    with StateStore(tmp_path / "state.sqlite3") as store:
        _run(store, sb, inbox)
        start = sb.requests_by_route()
        read = _run(store, sb, inbox)  # nothing to send; every dispute due for its first read
        spent = sb.requests_by_route()
        lists = spent.get("GET /v1/disputes", 0) - start.get("GET /v1/disputes", 0)
        gets = spent.get("GET /v1/disputes/{dispute_id}", 0) - start.get(
            "GET /v1/disputes/{dispute_id}", 0
        )
        # the run's first request (a one-dispute page), then 250 in 3 pages
        assert (read.listed_pages, read.fetched, lists, gets) == (3, 0, 1 + 3, 0)
        assert read.reads <= read.budget == 500
        read = _run(store, sb, inbox)  # the same day: nothing is due, nothing read
        assert read.reads == 0
        # a tiny budget: 2 reads per run; listing would take 3 pages, so the 2 most urgent
        # disputes with work are read one by one, and the rest wait (held), never sent unread
        for i in range(n):
            (inbox / "proofs" / f"dp_test_{i}_late.pdf").write_bytes(b"%PDF-1.4 " + str(i).encode())
        before = sb.snapshot()
        read = _run(store, sb, inbox, budget_per_hour=20)
        assert (read.reads, read.fetched, read.listed_pages) == (2, 2, 0)
        sent = [p for p in before if len(sb.snapshot()[p]["files"]) > len(before[p]["files"])]
        assert sorted(sent) == ["dp_test_0", "dp_test_1"]  # the nearest deadlines
        assert len(read.held) == n - 2


def test_outcome_tables_on_a_seeded_history():
    table = pd.DataFrame({
        "provider_dispute_id": ["a", "b", "c", "d", "e"],
        "dispute_id": ["dis_a", "dis_b", "dis_c", "dis_d", None],
        "api_status": ["won", "lost", "won", "under_review", None],
        "reason": ["fraudulent", "fraudulent", "product_not_received", "fraudulent", "general"],
        "completeness": ["complete", "missing: AVS check passed", "complete", "complete", ""],
        "files_total": [1, 0, 2, 0, 0],
    })  # fmt: skip
    tracked = evidence_kinds(DisputeFacts(OrderFacts("1"), tracking_numbers=("1Z",)))
    kinds = {"a": tracked, "b": evidence_kinds(None), "c": tracked, "d": evidence_kinds(None)}
    out = outcomes_table(table, kinds)
    rows = {
        (r.dimension, r.value): (r.won, r.lost, r.open, r._5) for r in out.itertuples(index=False)
    }
    assert rows[("all", "all")] == (2, 1, 1, "67%")  # e never reached the API: not counted
    assert rows[("reason", "fraudulent")] == (1, 1, 1, "50%")
    assert rows[("reason", "product_not_received")] == (1, 0, 0, "100%")
    assert rows[("evidence verdict", "missing something")] == (0, 1, 0, "0%")
    assert rows[("tracking given", "shown")] == (2, 0, 0, "100%")
    assert rows[("files attached", "no")] == (0, 1, 1, "0%")


def test_a_nightly_read_lists_the_open_disputes_not_the_closed_history(sandbox_factory, tmp_path):
    """The sandbox lists oldest first (the spec names no order). Once the first 250 of 350
    disputes have closed, a run's read-back starts where it last met an open dispute and stops
    once it has met every one it needs: one page, not four. A needed dispute before that start
    (as a changed order would put it) is still read: the listing wraps round to the first
    page. The run's new disputes are compared from that listing or by one GET each, never by a
    second listing of every page."""
    from dispute_evidence.engine.delivery.api_readback import LIST_FROM

    n = 350
    sb = sandbox_factory(rows=seed_rows(n))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, n, files=(0, 0))
    nights = iter(range(10))
    start = datetime.now(UTC)

    def night():  # a day later each time: every open dispute is due for its daily read
        day = start + timedelta(hours=25 * next(nights))
        with clock.use(lambda: day):
            _, read, requests = engine_pass(store, sb.base_url, inbox, policy=POLICY)
            return read, requests

    with StateStore(tmp_path / "state.sqlite3") as store:
        night()  # everything sent once
        for i in range(250):
            sb.move(f"dp_test_{i}", status="won")
        read, requests = night()
        assert (read.listed_pages, len(read.closed)) == (4, 250)
        read, requests = night()  # from the first page: 250-349 open
        assert (read.listed_pages, read.fetched, read.held) == (4, 0, {})
        assert store.runs.get_meta(LIST_FROM) == "250"
        read, requests = night()
        assert (read.listed_pages, read.fetched, read.held) == (1, 0, {})  # offsets 250-349
        assert requests == 2  # the run's first, cheap request and that page
        store.runs.set_meta(LIST_FROM, "300")  # 250-299 now come before the start
        read, requests = night()
        assert (read.listed_pages, read.fetched, read.held) == (4, 0, {})  # 300-349, 0-299
        assert store.runs.get_meta(LIST_FROM) == "250"
        for i in range(n, n + 3):  # three new disputes, after every other in the listing
            sb.call(lambda s, r: s.add_dispute(r), seed_rows(n + 3)[i])
        make_inbox(inbox, n + 3, files=(0, 0))
        sent = sb.snapshot()
        read, requests = night()
        assert read.listed_pages == 1
        assert requests == 1 + 1 + 3 + 3  # first, a page, then a GET and a POST per new one
        assert all(sb.snapshot()[f"dp_test_{i}"]["evidence"] for i in range(n, n + 3))
        closed = [f"dp_test_{i}" for i in range(250)]
        assert [sb.snapshot()[p] for p in closed] == [sent[p] for p in closed]


def test_a_read_is_due_by_its_time_not_by_how_the_time_is_written():
    """The state writes '…Z', the clock gives '…+00:00': as text, a read in the same second
    as the refresh line ('…:00Z' > '…:00.5+00:00') looked fresh; as times it is due."""
    stale = datetime(2026, 3, 1, 10, 0, 0, 500000, tzinfo=UTC)
    assert _read_due("2026-03-01T10:00:00Z", stale)
    assert _read_due("2026-03-01T09:59:59Z", stale)
    assert not _read_due("2026-03-01T10:00:01Z", stale)
    assert _read_due(None, stale)
