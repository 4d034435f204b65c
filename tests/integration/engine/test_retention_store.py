"""[retention] and the store's own documents (issue 45, item 10): clearing a closed dispute's
customer data never deletes the kept copy of a policy version that store/ no longer holds and
that is still in force for older orders. Real runs against the local API, on the pipeline's
clock moved forward."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dispute_evidence import clock
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.settings import RunRequest, load_settings
from support.docfixtures import text_pdf
from tests.conftest import TOKEN, seed_rows
from tests.integration.flows.test_store_documents import ORDERS, POLICY_V1, POLICY_V2, _sha
from tests.support.engine_helpers import write_rows


def _disputes(inbox, n: int) -> None:
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[f"dp_test_{i}", f"#{5000 + i}", "credit_not_processed"] for i in range(n)])  # fmt: skip


def test_clearing_customer_data_keeps_an_old_policy_version_still_in_force_for_older_orders(
    sandbox_factory, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    (inbox / "store").mkdir(parents=True)
    _disputes(inbox, 1)
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Board", "30", 1, "USD", f"c{i}@example.com", f"C {i}", "2025-11-01"]
        for i in range(2)])  # fmt: skip
    start = datetime.now(UTC)

    def run(day: int, **sections):
        settings = load_settings(None, **sections)
        api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
        with clock.use(lambda: start + timedelta(days=day)):
            return run_inbox(settings, RunRequest(inbox=inbox), api=api)

    policy = text_pdf(inbox / "store" / "refund policy.pdf", [POLICY_V1])  # from 1 October
    v1 = _sha(policy)
    run(0)  # dp_test_0 (ordered 1 November) gets the version of 1 October
    text_pdf(policy, [POLICY_V2])  # replaced by the version of 1 December
    run(1)
    sb.move("dp_test_0", "won")
    run(2)
    run(40, retention={"customer_data_days": 30})  # dp_test_0's customer data goes

    _disputes(inbox, 2)  # a dispute of another order of 1 November comes in, open till day 50
    sb.move("dp_test_1", response_due_by=(start + timedelta(days=50)).isoformat())
    run(41, retention={"customer_data_days": 30})
    files = sb.snapshot()["dp_test_1"].get("files", [])
    sent = [f["sha256"] for f in files if f["file_name"] == "refund policy.pdf"]
    assert sent == [v1]  # the terms in force when it was ordered, though store/ now holds v2
    assert any("summary" in f["file_name"] for f in files)  # and it was answered
