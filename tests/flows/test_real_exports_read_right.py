"""Real exports read right (issue 39 items 3-4, issue 37 items 6-7): the real CLI against the
local API over loopback."""

from __future__ import annotations

from tests.conftest import seed_rows
from tests.engine.helpers import make_inbox, write_rows
from tests.flows.cli_helpers import run_cli, use_sandbox

# Stripe's real payments export: the shop's metadata as `<key> (metadata)` columns, a
# database id before the order number
STRIPE = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
          "Status", "Card Brand", "orderId (metadata)", "orderNumber (metadata)"]  # fmt: skip


def _problems(tmp_path) -> str:
    return (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()


def test_stripe_charges_join_on_the_order_number_not_the_database_id(
    sandbox_factory, tmp_path, monkeypatch
):
    """`orderId (metadata)` holds a database id, `orderNumber (metadata)` the shop's order
    number: the charge joins its order through the number, and its facts are sent."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "unified_payments.csv", STRIPE, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa",
         "6617890123", "#5000"],
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    payments = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"].get("payments")
    assert [p["payment_id"] for p in payments or []] == ["ch_0"], out
    assert "join no order" not in _problems(tmp_path)


def test_charges_that_join_no_order_are_counted_on_the_report(
    sandbox_factory, tmp_path, monkeypatch
):
    """A payments export whose order column holds something else (ids): one line with the
    count of charges that join no order and which column to check, not silence."""
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    header = [h for h in STRIPE if h != "orderNumber (metadata)"]
    write_rows(inbox / "unified_payments.csv", header, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "6617890123"],
        ["ch_1", "2026-10-01 11:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "6617890124"],
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    lines = [ln for ln in _problems(tmp_path).splitlines() if "join no order" in ln]
    assert len(lines) == 1, _problems(tmp_path)
    assert "2 of 2 charges" in lines[0] and "unified_payments.csv" in lines[0], lines
    assert "order number" in lines[0], (lines, out)
