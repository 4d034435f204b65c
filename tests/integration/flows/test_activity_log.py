"""Issue 44 item 10, through the real CLI against the local API: for a licence or a SaaS account
what was delivered is use. An access or activity log export (CSV or XLSX: time, account, event,
IP, device) is read as a layout of its own; the letter argues the account's use after the
purchase and after a claimed cancellation; its IP and device feed Visa CE 3.0 where the orders
export has none."""

from __future__ import annotations

from datetime import timedelta

from tests.conftest import seed_rows
from tests.integration.evidence.test_ce3 import DISPUTED_AT, HISTORY, write_scenario
from tests.integration.flows.test_case_wins import _arguing, _letter, _rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows
from tests.support.export_layouts import write_csv, write_xlsx

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_date"]  # fmt: skip
LOG = ["Time", "Account", "Event", "IP", "Device"]


def _email(path, day: str, body: str) -> None:
    from support.docfixtures import text_pdf

    text_pdf(path, [["From: c0@example.com", f"Date: {day}", "Subject: my plan", body]])


def test_use_after_the_purchase_and_after_a_claimed_cancellation_is_argued(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
               "currency"], [["dp_test_0", "#5000", "subscription_canceled", 129.0, "USD"],
                             ["dp_test_1", "#5001", "product_not_received", 129.0, "USD"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Pro plan (monthly)", "129", 1, "USD", "c0@example.com", "C 0", "2026-11-12"],
        [5001, "Photo editor licence", "129", 1, "USD", "c1@example.com", "C 1", "2026-10-01"]])  # fmt: skip
    write_rows(inbox / "payments.csv", ["payment_id", "order_number", "paid_at", "payment_amount",
               "currency", "payment_status"], [["ch_0", "5000", "2026-11-12 09:00", "129", "usd",
               "Paid"]])  # fmt: skip
    _email(inbox / "5000 email.pdf", "2026-11-15", "I cancelled my subscription, refund me.")
    write_csv(inbox / "access_log.csv", LOG, [
        dict(zip(LOG, row, strict=True)) for row in [
            ["2026-11-12 09:01:00", "c0@example.com", "login", "203.0.113.7", "dev-a1"],
            ["2026-11-16 18:20:00", "C0@example.com", "login", "203.0.113.7", "dev-a1"],
            ["2026-11-20 08:05:00", "c0@example.com", "export report", "203.0.113.9", "dev-a1"],
            ["2026-11-20 08:05:00", "someone@else.test", "login", "198.51.100.1", "dev-z"],
        ]])  # fmt: skip
    write_xlsx(inbox / "licence activity.xlsx", {"Activity": [
        ["Timestamp", "User", "Action", "IP address", "Device ID"],
        ["2026-10-01 10:15", "c1@example.com", "download", "192.0.2.44", "mac-77"],
        ["2026-10-01 10:20", "c1@example.com", "licence activated", "192.0.2.44", "mac-77"],
    ]})  # fmt: skip
    run_cli("--inbox", str(inbox))
    assert not list((inbox / "rejected").rglob("*")), list((inbox / "rejected").rglob("*"))
    read = [p.name for p in (inbox / "archive").rglob("*") if p.is_file()]
    assert "access_log.csv" in read and "licence activity.xlsx" in read, read  # read as sheets

    sub = _arguing(_letter(sb, "dp_test_0"))
    assert ("After the cancellation claimed on 2026-11-15, the account was used 2 more times, "
            "per the access log, the latest export report on 2026-11-20 08:05 UTC from IP "
            "address 203.0.113.9, device dev-a1.") in sub, sub  # fmt: skip
    assert "The account c0@example.com was used 3 times after the purchase on 2026-11-12" in sub
    assert "198.51.100.1" not in sub  # another account's events are not this customer's

    licence = _letter(sb, "dp_test_1")
    assert ("The account c1@example.com was used 2 times after the purchase on 2026-10-01, per "
            "the access log: download on 2026-10-01 10:15 UTC from IP address 192.0.2.44, device "
            "mac-77 and licence activated on 2026-10-01 10:20 UTC") in licence, licence  # fmt: skip
    assert "(other document)" not in licence
    assert sb.snapshot()["dp_test_1"]["evidence"]["additional_evidence"]["account_activity"][
        "total"] == 2  # fmt: skip


def test_the_logs_ip_and_device_feed_visa_ce3(sandbox_factory, tmp_path, monkeypatch):
    """The orders export has no device: CE 3.0 does not qualify on it alone; the access log's
    device at each checkout (an event at or before the order's time, on its day) makes the
    disputed order and two earlier ones match on device, account and address."""
    sb = sandbox_factory(rows=seed_rows(1, prefix="dp_ce3_"))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    write_scenario(inbox, device="")
    when = {"3000": DISPUTED_AT} | {
        n: DISPUTED_AT - timedelta(days=d) for n, (d, *_) in HISTORY.items()
    }
    write_csv(inbox / "activity.csv", LOG, [
        {"Time": at.strftime("%Y-%m-%d %H:%M:%S"), "Account": "ann@example.com",
         "Event": "checkout", "IP": "", "Device": "dev-1-4f8a2c7e9"} for at in when.values()])  # fmt: skip
    run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_ce3_0"]
    assert row["Visa CE 3.0"].startswith("qualifies"), row.to_dict()
    assert "2001" in row["Visa CE 3.0"] and "2002" in row["Visa CE 3.0"], row["Visa CE 3.0"]
