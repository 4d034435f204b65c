"""Money reads one way everywhere (issue 45, item 4): thousands separated, two decimals, and
always its currency; a charge whose export names no currency is the order's. The real CLI
against the local API over loopback."""

from __future__ import annotations

from tests.integration.flows.test_case_wins import ORDERS, _inbox, _letter, _rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

PAYMENTS = ["payment_id", "order_number", "paid_at", "payment_amount", "amount_refunded",
            "refunded_at", "payment_status"]  # fmt: skip


def test_amounts_are_written_one_way_with_their_currency(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=[{**r, "amount": 2579200, "currency": "INR"} for r in _rows(2)])
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["credit_not_processed", "product_unacceptable"], [25792.0] * 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
               "currency"], [["dp_test_0", "#5000", "credit_not_processed", 25792, "INR"],
                             ["dp_test_1", "#5001", "product_unacceptable", 25792, "INR"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Saree", "25792", 1, "INR", f"c{i}@example.com", f"C {i}",
         "12 MG Road, Bengaluru 560001", "2026-10-01"] for i in range(2)])  # fmt: skip
    write_rows(inbox / "payments.csv", PAYMENTS, [  # no currency column: the order's
        ["pay_A", "5000", "2026-10-01", "25792", "25792", "2026-10-03", "Paid"],
        ["pay_B", "5001", "2026-10-01", "25792", "1200", "2026-10-03", "Paid"],
    ])  # fmt: skip
    run_cli("--inbox", str(inbox))
    status = latest_disputes(tmp_path).loc["dp_test_0", "Status"]
    assert "25,792.00 INR" in status and "25792.00" not in status, status
    letter = _letter(sb, "dp_test_1")  # the charge's amount, with the order's currency
    assert "Disputed charge pay_B · 2026-10-01 · 25,792.00 INR" in letter, letter
    assert "A credit of 1,200.00 INR was already issued" in letter
