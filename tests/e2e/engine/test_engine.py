"""The engine against the sandbox: exactly once, resumable, minimal requests."""

from __future__ import annotations

import asyncio
import logging

import orjson
import pytest

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.engine.delivery.submit import RunAborted, Submitter
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, options, run_once, write_rows


def assert_exact(snapshot: dict, store: StateStore, n: int, files: int) -> None:
    """Every dispute has its evidence once-current and every file exactly once."""
    got = [s for pid, s in snapshot.items() if s["evidence"]]
    assert len(got) == n
    remote_files = [(pid, f["sha256"]) for pid, s in snapshot.items() for f in s["files"]]
    assert len(remote_files) == len(set(remote_files)) == files  # zero duplicates, zero missing
    table = store.reports.file_table()
    assert (table["status"] == "uploaded").all() and len(table) == files
    assert set(store.reports.dispute_rows()["status"]) == {"submitted"}


async def test_clean_run_spends_one_request_plus_one_per_file(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(20))
    files = make_inbox(tmp_path / "inbox", 20, files=(1, 3))
    store = StateStore(tmp_path / "state.sqlite3")
    stats, attempts = await run_once(store, sb.base_url, tmp_path / "inbox")
    # the run's first request reads the disputes list (a refused key is said at once)
    assert attempts == 1 + 20 + files
    assert stats.evidence_sent == 20 and stats.files_uploaded == files
    snap = sb.snapshot()
    assert all(s["evidence_updates"] == 1 for s in snap.values())
    assert_exact(snap, store, 20, files)
    ev = snap["dp_test_3"]["evidence"]
    assert (
        ev["shipping_tracking_numbers"] == ["1Z000003"]
        and ev["additional_evidence"]["order_number"] == "5003"
    )
    # the inbox was archived only after the state held it; nothing deleted
    assert not (tmp_path / "inbox" / "orders.csv").exists()
    assert len(list((tmp_path / "inbox" / "archive").rglob("*.pdf"))) == files


async def test_resume_sends_nothing_then_exactly_one_request_for_one_change(
    sandbox_factory, tmp_path
):
    sb = sandbox_factory(rows=seed_rows(10))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 10)
    store = StateStore(tmp_path / "state.sqlite3")
    await run_once(store, sb.base_url, inbox)
    _, attempts = await run_once(store, sb.base_url, inbox)
    assert attempts == 1  # the run's first request only (a one-dispute page)
    write_rows(
        inbox / "tracking_fix.csv",
        ["order_number", "tracking_number", "carrier"],
        [["#5004", "1ZNEW", "UPS"]],
    )
    _, attempts = await run_once(store, sb.base_url, inbox)
    assert attempts == 1 + 1
    assert sb.snapshot()["dp_test_4"]["evidence"]["shipping_tracking_numbers"] == [
        "1Z000004",
        "1ZNEW",
    ]
    (inbox / "again").mkdir()
    (inbox / "again" / "tracking_fix.csv").write_bytes(
        next((inbox / "archive").rglob("tracking_fix.csv")).read_bytes()
    )
    _, attempts = await run_once(store, sb.base_url, inbox)
    assert attempts == 1  # the same file dropped twice is harmless: the first request only


async def test_failures_are_classified_and_one_bad_dispute_never_stops_the_others(
    sandbox_factory, tmp_path
):
    rows = seed_rows(3)
    rows[1]["status"] = "lost"  # the API refuses evidence: rejected
    rows[2]["response_due_by"] = "2020-01-01T00:00:00Z"
    sb = sandbox_factory(rows=rows[:3])
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 4)  # dp_test_3 is unknown to the API: not_found
    store = StateStore(tmp_path / "state.sqlite3")
    await run_once(store, sb.base_url, inbox)
    store_rows = store.reports.dispute_rows().set_index("provider_dispute_id")
    assert store_rows.loc["dp_test_0", "status"] == "submitted"
    assert (
        store_rows.loc["dp_test_1", "status"] == "rejected"
        and "no longer accepts evidence" in store_rows.loc["dp_test_1", "detail"]
    )
    assert (
        store_rows.loc["dp_test_2", "status"] == "rejected"
        and "(field: provider_dispute_id)" in store_rows.loc["dp_test_2", "detail"]
    )
    assert store_rows.loc["dp_test_3", "status"] == "not_found"


async def test_past_due_disputes_are_not_sent(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "response_due_by"],
               [["dp_test_0", "5000", "2020-01-01"], ["dp_test_1", "5001", "2099-01-01"],
                ["dp_late_no_order", "7777", "2020-02-01"], ["dp_waiting", "7778", "2099-01-01"]])  # fmt: skip
    store = StateStore(tmp_path / "state.sqlite3")
    stats, attempts = await run_once(store, sb.base_url, inbox)
    # marked before sending (so a dry run says the same); the submitter checks again as it sends
    assert store.disputes.dispute("dp_test_0")["status"] == "past_due" and stats.evidence_sent == 1
    # still waiting for its order when the deadline passed: past due too, and says why
    late = store.disputes.dispute("dp_late_no_order")
    assert (late["status"], late["detail"]) == (
        "past_due",
        "response was due by 2020-02-01T23:59:59Z; the data never arrived, so nothing was sent",
    )
    assert store.disputes.dispute("dp_waiting")["status"] == "incomplete"  # fmt: skip
    # the first request, then dp_test_1: evidence + 1 file
    assert sb.snapshot()["dp_test_0"]["evidence"] == {} and attempts == 1 + 2


async def test_401_stops_the_run_at_once(sandbox_factory, tmp_path, caplog):
    sb = sandbox_factory(rows=seed_rows(30))
    make_inbox(tmp_path / "inbox", 30)
    store = StateStore(tmp_path / "state.sqlite3")
    caplog.set_level(logging.INFO, logger="dispute_evidence.sandbox.access")
    with pytest.raises(RunAborted, match="refused the key"):
        await run_once(store, sb.base_url, tmp_path / "inbox", token="sk_revoked")
    assert sum(s["evidence_updates"] for s in sb.snapshot().values()) == 0
    asked = [r.getMessage() for r in caplog.records if r.name == "dispute_evidence.sandbox.access"]
    assert len(asked) == 1 and '" 401 ' in asked[0], asked  # one refusal, nothing after it
    assert set(store.reports.dispute_rows()["status"]) == {"pending"}


async def test_two_runs_never_work_on_the_same_dispute(sandbox_factory, tmp_path):
    sb = sandbox_factory(
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(5, 15)), rows=seed_rows(30)
    )
    files = make_inbox(tmp_path / "inbox", 30)
    store_a = StateStore(tmp_path / "state.sqlite3")
    store_b = StateStore(tmp_path / "state.sqlite3")  # a second process's view of the same state
    opts = options(tmp_path / "inbox")
    ingest = ingest_inbox_step(store_a, opts, "r1")
    prepare_step(store_a, opts, ingest, "r1", rebuild=True)

    async def run(store):
        async with DisputeEvidenceClient(sb.base_url, TOKEN, rate_limit_per_hour=10**7) as c:
            return await Submitter(store, c, concurrency=4).run()

    a, b = await asyncio.gather(run(store_a), run(store_b))
    assert a.evidence_sent + b.evidence_sent == 30 and a.files_uploaded + b.files_uploaded == files
    assert all(s["evidence_updates"] == 1 for s in sb.snapshot().values())
    assert_exact(sb.snapshot(), store_a, 30, files)


@pytest.mark.slow
async def test_soak_with_faults_ends_exact(sandbox_factory, tmp_path):
    n = 200
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=0.10, ambiguous_rate=0.03, latency_rate=0.2,
                                       latency_ms=(1, 20), seed=42), rows=seed_rows(n))  # fmt: skip
    files = make_inbox(tmp_path / "inbox", n, files=(1, 3), seed=7)
    store = StateStore(tmp_path / "state.sqlite3")
    stats, attempts = await run_once(store, sb.base_url, tmp_path / "inbox", max_attempts=8)
    for _ in range(3):  # whatever still failed stays pending for the next run
        if not store.disputes.work_queue():
            break
        await run_once(store, sb.base_url, tmp_path / "inbox", max_attempts=8)
    assert_exact(sb.snapshot(), store, n, files)


async def test_a_drop_without_shipments_still_builds_and_sends(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    (inbox / "shipments.csv").unlink()  # orders and disputes first; shipments come another day
    store = StateStore(tmp_path / "state.sqlite3")
    stats, attempts = await run_once(store, sb.base_url, inbox)
    assert stats.evidence_sent == 3 and attempts == 1 + 3 + 3
    assert sb.snapshot()["dp_test_0"]["evidence"]["shipping_tracking_numbers"] == []
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number"], [["5000", "1ZLATER"]])
    _, attempts = await run_once(store, sb.base_url, inbox)
    assert attempts == 1 + 1 and sb.snapshot()["dp_test_0"]["evidence"][
        "shipping_tracking_numbers"
    ] == ["1ZLATER"]


def test_a_re_export_under_the_same_file_name_replaces_the_earlier_one(tmp_path):
    """Shopify names every export orders_export_1.csv: Tuesday's file must replace Monday's
    lines for an order, not add to them; a corrected disputes list under the same name is
    no conflict."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    header = ["order_number", "product_title", "price", "quantity", "currency_code"]
    days = {
        "monday": (
            [["dp_1", "1000"]],
            [["1001", "Shirt", 10, 1, "USD"], ["1001", "Belt", 5, 1, "USD"]],
        ),
        "tuesday": (
            [["dp_1", "1001"]],
            [["1001", "Shirt", 10, 1, "USD"], ["1001", "Belt", 5, 2, "USD"]],
        ),
    }
    store = StateStore(tmp_path / "state.sqlite3")
    opts = options(inbox)
    for run_id, (disputes, orders) in days.items():
        write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number"], disputes)
        write_rows(inbox / "orders_export_1.csv", header, [["1000", "Hat", 7, 1, "USD"], *orders])
        out = prepare_step(
            store, opts, ingest_inbox_step(store, opts, run_id), run_id, rebuild=True
        )
        assert out.conflicts == []
    d = store.disputes.dispute("dp_1")
    products = orjson.loads(d["payload"])["products"]
    assert d["order_number"] == "1001"
    assert [(p["product_title"], p["quantity"]) for p in products] == [("Shirt", 1), ("Belt", 2)]
