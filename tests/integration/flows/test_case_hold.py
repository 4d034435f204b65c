"""One case for the hold, the alerts, `status` and the report (issue 27): a proof of delivery
that was read and states no delivery is no proof for any of them. The real CLI against the
sandbox, over loopback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.reporting.deadline_alerts import at_risk
from dispute_evidence.inbox import default_state
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.state.store import StateStore
from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "order_date"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "shipped_at", "delivery_status"]
NOT_PROOF = "weak: carrier shows in transit"  # what the report says with no delivery proven


def _inbox(tmp_path, due: str):
    """Three not-received disputes, each shipped and in transit by the carrier's row:
    dp_test_0's proof of delivery states no delivery, dp_test_1's gives a delivery before
    the shipment, dp_test_2's a real one (date, signer)."""
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason",
               "response_due_by"], [[f"dp_test_{i}", f"#{5000 + i}", "product_not_received", due]
                                    for i in range(3)])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Board", "30", 1, "USD", "c@example.com", "C", "12 Elm St, Boston", "2026-10-01"]
        for i in range(3)])  # fmt: skip
    write_rows(inbox / "shipments.csv", SHIPS,
               [[5000 + i, f"1Z{i}", "UPS", "2026-10-02", "In transit"] for i in range(3)])  # fmt: skip
    text_pdf(inbox / "5000 proof of delivery.pdf", [[
        "UPS Proof of Delivery", "Tracking number: 1Z0", "Status: exception, address not found",
        "A further delivery attempt will be made."]])  # fmt: skip
    text_pdf(inbox / "5001 proof of delivery.pdf", [[
        "UPS Proof of Delivery", "Tracking number: 1Z1", "Delivered on 2026-09-28 at 10:00",
        "Signed by: B. Jones"]])  # fmt: skip
    text_pdf(inbox / "5002 proof of delivery.pdf", [[
        "UPS Proof of Delivery", "Tracking number: 1Z2", "Delivered on 2026-10-06 at 16:40",
        "Signed by: A. Smith", "Delivered to: 12 Elm Street, Boston"]])  # fmt: skip
    return inbox


def test_a_read_proof_that_proves_no_delivery_is_held_as_the_report_says(
    sandbox_factory, tmp_path, monkeypatch
):
    """`hold = "incomplete"` held by the documents' kinds alone: a read proof of delivery that
    states no delivery (or one dated before the shipment) counted as "complete" and was sent,
    while the report's row said it was not. Now the hold, the row and `status` agree."""
    sb = sandbox_factory(rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "incomplete")
    inbox = _inbox(tmp_path, iso(datetime.now(UTC) + timedelta(days=10)))
    run_cli("--inbox", str(inbox))
    ledger = sb.snapshot()
    assert ledger["dp_test_2"]["evidence_updates"] == 1  # the real proof: sent, once
    assert "5002 proof of delivery.pdf" in {f["file_name"] for f in ledger["dp_test_2"]["files"]}
    table = latest_disputes(tmp_path)
    assert table.loc["dp_test_2", "Evidence (by reason)"] == "complete"
    for pid in ("dp_test_0", "dp_test_1"):
        assert ledger[pid]["evidence_updates"] == 0 and ledger[pid]["files"] == []  # held
        row = table.loc[pid]
        assert row["Evidence (by reason)"].startswith("weak: "), row.to_dict()
    # in transit with no proof it arrived: the merchant's data concedes it (advice: accept)
    assert table.loc["dp_test_0", "Status"].startswith(
        f"advice: accept (carrier shows in transit), not sent, {NOT_PROOF}"
    )
    row = table.loc["dp_test_1"]
    assert row["Status"].startswith(f"waiting for your approval, {row['Evidence (by reason)']}")
    assert table.loc["dp_test_0", "Evidence (by reason)"] == NOT_PROOF
    assert "delivered before shipped" in table.loc["dp_test_1", "Contradictions"]

    status = CliRunner().invoke(app, ["status", "--inbox", str(inbox)]).output
    listed = status.split("Open disputes that still need something: ")[1]
    assert listed.startswith("2\n"), status  # the two held, not the one sent complete
    for pid in ("dp_test_0", "dp_test_1"):
        line = next(x for x in listed.splitlines() if pid in x)
        assert table.loc[pid, "Evidence (by reason)"] in line, line

    run_cli("--inbox", str(inbox))  # a second run sends nothing more
    again = sb.snapshot()
    assert [again[p]["evidence_updates"] for p in sorted(again)] == [0, 0, 1]


def test_alerts_judge_the_case_as_the_report_does(sandbox_factory, tmp_path, monkeypatch):
    """The alerts read the documents' facts too: a sent dispute whose proof of delivery is
    dated before the shipment is at risk, with the report row's verdict; one held because its
    parcel is in transit with no proof is at risk as waiting for approval; the one with a real
    proof is not."""
    now = datetime.now(UTC)
    rows = seed_rows(3)
    for row in rows:  # the API agrees: its deadline is the one used from the first send
        row["response_due_by"] = iso(now + timedelta(hours=20))
    sb = sandbox_factory(rows=rows)
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, iso(now + timedelta(hours=20)))
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    with StateStore(default_state(inbox)) as store:
        risks = {r.pid: r.why for r in at_risk(store, now, 48, inbox)}
    assert sorted(risks) == ["dp_test_0", "dp_test_1"], risks
    assert risks["dp_test_0"] == "waiting for your approval"  # held: advice accept
    verdict = table.loc["dp_test_1", "Evidence (by reason)"]
    assert risks["dp_test_1"].startswith(f"evidence {verdict}; add: "), risks
