"""Numbers that look like card numbers and are not (issue 45, item 10): a 16-digit order number
and a 16-digit tracking number that pass Luhn with a card brand's prefix, an Iridium phone's
IMEI and a French IBAN. Each is that order's, parcel's, phone's or account's number: the
dispute is sent with its order, the shipment keeps its tracking number, and the documents
are uploaded, not held. The real CLI against the local API over loopback."""

from __future__ import annotations

from support.docfixtures import text_pdf
from tests.integration.flows.test_case_wins import ORDERS, _rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

ORDER = "4929123456789015"  # 16 digits, Visa's prefix, passes Luhn
TRACKING = "5377123456789019"  # 16 digits, Mastercard's prefix, passes Luhn
IMEI = "300234010753376"  # an Iridium 9555's IMEI (type code 300234), passes Luhn
IBAN = "FR30 3000 6000 1341 2524 2731 672"  # valid; 3000 6000 1341 2524 passes Luhn


def test_order_tracking_imei_and_iban_numbers_are_not_card_numbers(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(4))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    orders = [ORDER, "5001", "5002", "5003"]
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason", "amount", "currency"],
        [[f"dp_test_{i}", o, "product_not_received", 129.0, "USD"] for i, o in enumerate(orders)],
    )
    write_rows(
        inbox / "orders.csv",
        ORDERS,
        [
            [
                o,
                "Satellite phone",
                "129",
                1,
                "USD",
                f"c{i}@example.com",
                f"C {i}",
                "1 Elm St, Boston, MA 02108",
                "2026-10-01",
            ]
            for i, o in enumerate(orders)
        ],
    )
    write_rows(
        inbox / "shipments.csv",
        ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at"],
        [
            [o, TRACKING if i == 1 else f"1Z{i}", "UPS", "2026-10-02", "2026-10-05"]
            for i, o in enumerate(orders)
        ],
    )
    text_pdf(
        inbox / "dp_test_2 invoice.pdf",
        [
            [
                "Invoice for order #5002",
                "Iridium 9555 satellite phone",
                f"IMEI: {IMEI}",
                "Total 129.00 USD",
            ]
        ],
    )
    text_pdf(
        inbox / "dp_test_3 refund details.pdf",
        [["Order #5003: the customer's bank details for a refund", f"IBAN {IBAN}  BIC AGRIFRPP"]],
    )
    out = run_cli("--inbox", str(inbox))

    snap = sb.snapshot()
    wrong = []  # each number's part, said together (so a failure names every one)
    extra = snap["dp_test_0"]["evidence"].get("additional_evidence", {})
    if snap["dp_test_0"]["evidence_updates"] != 1 or extra.get("order_number") != ORDER:
        wrong.append(f"the 16-digit order's dispute was not sent with its order: {extra}")
    shipped = snap["dp_test_1"]["evidence"].get("additional_evidence", {}).get("shipments", [])
    if [s.get("tracking_number") for s in shipped] != [TRACKING]:
        wrong.append(f"the 16-digit tracking number was dropped: {shipped}")
    uploaded = {pid: [f["file_name"] for f in snap[pid]["files"]] for pid in snap}
    if "dp_test_2 invoice.pdf" not in uploaded["dp_test_2"]:
        wrong.append(f"the invoice naming an IMEI was held: {uploaded['dp_test_2']}")
    if "dp_test_3 refund details.pdf" not in uploaded["dp_test_3"]:
        wrong.append(f"the document naming an IBAN was held: {uploaded['dp_test_3']}")
    problems = (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()
    if "card number" in problems:
        wrong.append("a line calls one of them a card number")
    assert wrong == [], out
