"""Hardening through runs against the sandbox: a payload the model refuses fails its dispute
only; a replacement state with reconcile uploads nothing twice (the rest:
tests/unit/engine/test_hardening.py)."""

from __future__ import annotations

from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import make_inbox, options, run_once


async def test_a_payload_the_model_refuses_fails_that_dispute_only(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(0, 0))
    store = StateStore(tmp_path / "s.sqlite3")
    run_id = store.runs.start_run("test")
    ingested = ingest_inbox_step(store, options(inbox), run_id)
    prepare_step(store, options(inbox), ingested, run_id, rebuild=True)
    store._run(
        "UPDATE disputes SET payload = :p WHERE provider_dispute_id = 'dp_test_1'",
        {
            "p": b'{"products": [{"quantity": null}], "additional_evidence": '
            b'{"customer_email": "c1@example.com"}}'
        },
    )  # a payload our builder would never make (its letter claims: not held as no-claim)
    stats, _ = await run_once(store, sb.base_url, inbox)
    status = store.reports.dispute_rows().set_index("provider_dispute_id")["status"]
    assert status.to_dict() == {
        "dp_test_0": "submitted",
        "dp_test_1": "rejected",
        "dp_test_2": "submitted",
    }
    detail = store.disputes.dispute("dp_test_1")["detail"]
    assert "products.0" in detail and "not sent" in detail and stats.rejected == 1
    assert sb.snapshot()["dp_test_1"]["evidence_updates"] == 0


async def test_a_replacement_state_with_reconcile_uploads_nothing_twice(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(4))
    inbox = tmp_path / "inbox"
    files = make_inbox(inbox, 4, files=(1, 2))
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(inbox, copy)
    with StateStore(tmp_path / "lost.sqlite3") as lost:
        await run_once(lost, sb.base_url, inbox)
    # the state is lost; the analyst drops the same files again into a fresh inbox state
    with StateStore(tmp_path / "new.sqlite3") as fresh:
        fresh.disputes.set_reconcile_uploads(True)
        stats, _ = await run_once(fresh, sb.base_url, copy)
        assert stats.files_uploaded == 0 and stats.files_reconciled == files
        remote = [(pid, f["sha256"]) for pid, s in sb.snapshot().items() for f in s["files"]]
        assert len(remote) == len(set(remote)) == files
