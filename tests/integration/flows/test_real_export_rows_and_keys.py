"""Tried as a new user would, round 3 (issue 39): real exports read right. The real CLI
against the local API over loopback."""

from __future__ import annotations

from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

SHOPIFY = ["Name", "Email", "Financial Status", "Currency", "Subtotal", "Total",
           "Created at", "Lineitem quantity", "Lineitem name", "Lineitem price",
           "Lineitem sku", "Shipping Name", "Shipping Address1", "Shipping City"]  # fmt: skip


def test_identical_line_rows_of_one_order_are_two_lines_not_one(
    sandbox_factory, tmp_path, monkeypatch
):
    """Shopify writes one row per line item: the same variant twice on one order, same
    quantity, is two lines, counted by the subtotal. Neither is dropped, and the dispute is
    sent whole rather than held for a 'corrected export' that can never come."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    (inbox / "orders.csv").unlink(missing_ok=True)
    first = ["#5000", "a@example.com", "paid", "INR", "25792.00", "25792.00",
             "2026-10-01 10:00:00 +0530", "1", "Headphones", "10497.00", "HP-1",
             "A Kumar", "1 MG Road", "Pune"]  # fmt: skip
    again = ["#5000", "", "", "", "", "", "", "1", "Headphones", "10497.00", "HP-1", "", "", ""]
    other = ["#5000", "", "", "", "", "", "", "1", "Cable", "4798.00", "CB-2", "", "", ""]
    write_rows(inbox / "orders_export_1.csv", SHOPIFY, [first, again, other])
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "general"]])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert "held" not in row["Status"], (row.to_dict(), out)
    evidence = sb.snapshot()["dp_test_0"]["evidence"]
    products = evidence["products"]
    headphones = [p for p in products if p["product_title"] == "Headphones"]
    assert sum(p["quantity"] for p in headphones) == 2, products


def _invoke(*args: str):
    from typer.testing import CliRunner

    from dispute_evidence.cli import app

    r = CliRunner().invoke(app, list(args))
    assert "Traceback" not in r.output, r.output
    return r


def test_a_refused_key_changes_nothing_the_right_key_sent(
    sandbox_factory, tmp_path, monkeypatch, caplog
):
    """Right key (some sent, some waiting for approval), wrong key (exit 3, nothing sent),
    right key again: nothing is sent twice, nothing sent goes back to waiting for approval,
    and no line says the API 'has nothing from this state'."""
    sb = sandbox_factory(rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    first = _invoke("run", "--inbox", str(inbox))
    assert first.exit_code == 5, first.output  # all three wait for a person
    approved = _invoke("approve", "--inbox", str(inbox), "dp_test_0", "dp_test_1")
    assert approved.exit_code == 0, approved.output
    before = sb.snapshot()
    assert [before[p]["evidence_updates"] for p in sorted(before)] == [1, 1, 0]

    monkeypatch.setenv("DISPUTE_API_TOKEN", "sk_test_not_the_right_key")
    wrong = _invoke("run", "--inbox", str(inbox))
    assert wrong.exit_code == 3, wrong.output
    assert "Nothing was sent" in wrong.output, wrong.output

    use_sandbox(sb, monkeypatch)
    again = _invoke("run", "--inbox", str(inbox))
    assert sb.snapshot() == before, again.output  # not one evidence update or file more
    said = [r.getMessage() for r in caplog.records if "has nothing from this state" in r.message]
    assert said == [], said
    row = latest_disputes(tmp_path)
    for pid in ("dp_test_0", "dp_test_1"):  # still sent (each with its own days left)
        assert row.loc[pid, "Status"].startswith("sent"), row[["Status"]].to_dict()
    assert "waiting for your approval" in row.loc["dp_test_2", "Status"]
    assert "approval" not in row.loc["dp_test_0", "Status"]
