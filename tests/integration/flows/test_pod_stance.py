"""Issue 39 item 8: a proof of delivery is read for what it says of itself, through the real CLI
against the local API: a POD saying "NOT delivered … returned to sender" is no delivery, a
customer's complaint named as a POD is no POD, and a POD naming another dispute's parcel is
neither argued nor uploaded for the dispute its file is named for."""

from __future__ import annotations

import io

from pypdf import PdfReader

from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, review_copy_text, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "order_date"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at",
         "delivery_status"]  # fmt: skip
TRACK = "1Z999AA1012345678"
STREETS = ["12 Elm Street, Boston", "40 Oak Avenue, Denver", "7 Pine Road, Austin"]


def _pdf_text(sb, pid: str) -> str:
    names = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (names[-1],)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


def _inbox(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[f"dp_test_{i}", f"#{5000 + i}", "product_not_received"] for i in range(3)])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Board", "30", 1, "USD", "c@example.com", "C", STREETS[i], "2026-10-01"]
        for i in range(3)])  # fmt: skip
    write_rows(inbox / "shipments.csv", SHIPS, [
        [5000 + i, f"{TRACK}{i}", "UPS", "2026-10-02", "", ""] for i in range(3)])  # fmt: skip
    return inbox


def test_a_pod_saying_not_delivered_a_complaint_and_another_parcels_pod_prove_no_delivery(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path)
    text_pdf(inbox / "5000_delivery_confirmation.pdf", [[
        "UPS Delivery Confirmation", f"Tracking number: {TRACK}0",
        "Shipment NOT delivered on 2026-11-04: no one available", "Returned to sender",
    ]])  # fmt: skip
    text_pdf(inbox / "5001_delivery_confirmation.pdf", [[
        "From: c@example.com", "Date: 2026-11-04", "Subject: order 5001",
        "the carrier says delivered and signed for it. I want my money back",
    ]])  # fmt: skip
    text_pdf(inbox / "5002 proof of delivery.pdf", [[  # the POD of order 5000's parcel
        "UPS Proof of Delivery", f"Tracking number: {TRACK}0", "Delivered on 2026-10-06 at 16:40",
        "Signed by: A. Smith", f"Delivered to: {STREETS[0]}",
    ]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    for pid in ("dp_test_0", "dp_test_1", "dp_test_2"):
        row = table.loc[pid]
        assert not row["Delivery"].startswith("delivered"), (pid, row.to_dict())
        text = _pdf_text(sb, pid) if pid != "dp_test_0" else review_copy_text(tmp_path, pid)
        letter = text.split("Evidence summary: dispute")[0]
        assert "records the delivery" not in letter and "delivered 20" not in letter, letter
        assert "signed by for it" not in text
    # its own proof says not delivered: the merchant's data concedes it (advice: accept, held)
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0
    assert table.loc["dp_test_0", "Status"].startswith("advice: accept (")

    returned = table.loc["dp_test_0"]
    assert returned["Delivery"] == "not delivered (per 5000_delivery_confirmation.pdf, page 1)"
    assert returned["Evidence (by reason)"].startswith("weak: 5000_delivery_confirmation.pdf, "
                                                      "page 1 says “Shipment NOT delivered")  # fmt: skip

    complaint = table.loc["dp_test_1"]
    assert complaint["Delivery"] == "not confirmed"
    assert "delivery confirmed" in complaint["Evidence (by reason)"]  # missing, not proven
    letter = _pdf_text(sb, "dp_test_1").split("Evidence summary: dispute")[0]
    assert "c@example.com wrote" in letter  # the customer's own words, as communication

    other = table.loc["dp_test_2"]  # the held proof said beside it (issue 45 item 11)
    assert other["Delivery"] == (
        "not confirmed; 5002 proof of delivery.pdf: a proof of delivery for another parcel, "
        "not sent"
    )
    # another parcel's proof is a file problem: never uploaded (it would argue against the
    # claim it was dropped to answer), kept in rejected/ with its reason, said on the row
    why = (
        f"a proof of delivery for another parcel: it names tracking number {TRACK}0, and "
        f"dp_test_2's shipment is {TRACK}2; not uploaded"
    )
    assert why in other["File problems"], other.to_dict()
    files = [f["file_name"] for f in sb.snapshot()["dp_test_2"]["files"]]
    assert not any("5002 proof" in name for name in files), files
    kept = list((inbox / "rejected").rglob("5002 proof of delivery.pdf"))
    assert len(kept) == 1
    reason = next((inbox / "rejected").rglob("5002 proof of delivery.pdf.reason.txt"))
    assert why in reason.read_text(encoding="utf-8")
    sent = _pdf_text(sb, "dp_test_2")
    assert "A. Smith" not in sent and "another parcel" not in sent  # never told the reviewer
    assert "5002 proof of delivery.pdf" not in sent
