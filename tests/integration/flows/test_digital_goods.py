"""Issue 44 item 10, what docs/letters' digital licence still showed, through the real CLI
against the local API: a licence's letter leads with its delivery by use (the download and
the activation the access log shows after the purchase, with their times, IP and device), the
run never asks a download for a carrier, and the log is the licence's: never argued for the
same customer's order of physical goods."""

from __future__ import annotations

import io

from pypdf import PdfReader

from tests.integration.flows.test_case_wins import _arguing, _letter, _rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows
from tests.support.export_layouts import write_csv


def _summary(sb, pid: str) -> str:
    """The whole summary PDF the API received (letter and data sheet), as its text."""
    name = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]][-1]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (name,)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "order_date"]  # fmt: skip
LOG = ["Time", "Account", "Event", "IP", "Device"]
BEN = "ben@example.com"
ELM = "1 Elm St, Boston, MA 02108"


def test_a_licence_leads_with_its_download_and_its_log_is_never_a_parcels(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
               "currency", "dispute_date"],
               [["dp_test_0", "#5000", "product_not_received", 129.0, "USD", "2026-11-24"],
                ["dp_test_1", "#5001", "product_not_received", 129.0, "USD", "2026-11-24"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Photo editor licence (download)", "129", 1, "USD", BEN, "Ben", ELM,
         "2026-11-03 10:14:00"],
        [5001, "Skateboard deck", "129", 1, "USD", BEN, "Ben", ELM, "2026-11-05 09:00:00"]])  # fmt: skip
    write_rows(inbox / "payments.csv", ["payment_id", "order_number", "paid_at", "payment_amount",
               "currency", "payment_status"],
               [["ch_0", "5000", "2026-11-03 10:14:30", "129", "usd", "Paid"],
                ["ch_1", "5001", "2026-11-05 09:00:30", "129", "usd", "Paid"]])  # fmt: skip
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier",
               "shipped_at", "delivered_at"], [[5001, "1Z1", "UPS", "2026-11-06", ""]])  # fmt: skip
    write_csv(inbox / "licence_activity_log.csv", LOG, [
        dict(zip(LOG, row, strict=True)) for row in [
            ["2026-11-03 10:15:02", BEN, "download", "203.0.113.7", "mac-7f3a"],
            ["2026-11-03 10:21:40", BEN, "licence activated", "203.0.113.7", "mac-7f3a"],
            ["2026-11-09 19:02:11", BEN, "login", "203.0.113.7", "mac-7f3a"],
            ["2026-11-18 08:44:57", BEN, "export project", "203.0.113.7", "mac-7f3a"],
        ]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)

    licence = _letter(sb, "dp_test_0")
    body = licence.split("To the reviewer of this dispute,", 1)[1]
    assert body.strip().startswith(
        "The cardholder says the goods were not received; the access log (its events listed on "
        "the data sheet) shows order 5000 "
        "delivered to the account ben@example.com after the purchase on 2026-11-03: download on "
        "2026-11-03 10:15 UTC and licence activated on 2026-11-03 10:21 UTC, both from IP "
        "address 203.0.113.7, device mac-7f3a; the account was used 4 times in all, the latest "
        "export project on 2026-11-18 08:44 UTC."
    ), body[:600]
    assert "licence activated on 2026-11-03 10:21 UTC" in _arguing(licence)  # never dropped
    assert "2026-11-03: Download and licence activated (access log)." in licence, licence
    sheet = _summary(sb, "dp_test_0").split("Evidence summary: dispute", 1)[1]
    assert "The account's use (access log: ben@example.com)" in sheet, sheet
    assert "2026-11-03 10:21 licence activated 203.0.113.7 mac-7f3a" in sheet, sheet
    status = str(table.loc["dp_test_0", "Status"])
    for parcel in ("carrier", "tracking number", "ship date", "delivery confirmed"):
        assert parcel not in status, status  # a download is not asked for a carrier
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1

    deck = _letter(sb, "dp_test_1")
    for licence_word in ("access log", "203.0.113.7", "mac-7f3a", "download", "export project"):
        assert licence_word not in deck, (licence_word, deck)
    extra = sb.snapshot()["dp_test_1"]["evidence"]["additional_evidence"]
    assert "account_activity" not in extra, extra["account_activity"]
