"""Evidence payloads: complete, deterministic, with conflicts and gaps reported."""

from __future__ import annotations

import io

import pandas as pd
from PIL import Image

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.documents.files import match_evidence_files, name_tokens
from dispute_evidence.evidence import build_evidence
from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import (
    CHARGE_1001,
    ORDER_1001,
    ORDER_1001_LINE2,
    ORDER_1002,
    SHOPIFY_79,
    STRIPE_PAYMENTS,
    write_csv,
)  # fmt: skip

MERCHANT = MerchantProfile(
    merchant_id="m_1", merchant_name="Acme", merchant_website="https://acme.test"
)


def _inbox(tmp_path, disputes, shipments=None):
    files = [
        write_csv(tmp_path / "orders.csv", SHOPIFY_79, [ORDER_1001, ORDER_1001_LINE2, ORDER_1002])
    ]
    files.append(
        write_csv(
            tmp_path / "disputes.csv",
            ["provider_dispute_id", "order_number", "reason", "response_due_by"],
            disputes,
        )
    )
    if shipments:
        files.append(
            write_csv(
                tmp_path / "ship.csv",
                ["order_number", "tracking_number", "carrier", "shipped_at"],
                shipments,
            )
        )
    return ingest_paths(files, tmp_path).records


def test_payload_carries_products_tracking_and_facts(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "#1001", "reason": "fraudulent",
                                 "response_due_by": "2026-12-01"}],
                     [{"order_number": "1001", "tracking_number": "1Z1", "carrier": "UPS", "shipped_at": "2025-05-12"},
                      {"order_number": "1001", "tracking_number": "1Z2", "carrier": "UPS"},
                      {"order_number": "1001", "tracking_number": "1Z1", "carrier": "UPS", "shipped_at": "2025-05-12"}])  # fmt: skip
    result = build_evidence(records, MERCHANT)
    (p,) = result.payloads
    ev = p.evidence
    assert [(x.product_title, x.price, x.quantity, x.currency_code) for x in ev.products] == [
        ("Linen shirt", 49.5, 2, "USD"),
        ('Belt, "leather"\r\nbrown', 10.0, 1, "USD"),
    ]
    assert ev.shipping_tracking_numbers == ["1Z1", "1Z2"] and ev.merchant_profile == MERCHANT
    facts = ev.additional_evidence
    assert facts["order_number"] == "1001" and facts["customer_email"] == "ann@example.com"
    assert (
        facts["order_total"] == 109
        and facts["order_currency"] == "USD"
        and facts["order_date"] == "2025-05-11T13:55:16Z"
    )
    assert facts["shipments"][0] == {
        "tracking_number": "1Z1",
        "carrier": "UPS",
        "shipped_at": "2025-05-12T00:00:00Z",
    }
    assert (
        facts["dispute"] == {"reason": "fraudulent"}
        and p.response_due_by == "2026-12-01T23:59:59Z"  # a date alone: end of day
    )


def test_same_inputs_give_byte_identical_json_and_hash(tmp_path):
    rows = [
        {"provider_dispute_id": "dp_1", "order_number": "1001"},
        {"provider_dispute_id": "dp_2", "order_number": "1002"},
    ]
    a = build_evidence(_inbox(tmp_path, rows), MERCHANT)
    b = build_evidence(_inbox(tmp_path, list(reversed(rows))), MERCHANT)
    assert [(p.body, p.content_hash) for p in a.payloads] == [
        (p.body, p.content_hash) for p in b.payloads
    ]
    assert a.payloads[0].content_hash != a.payloads[1].content_hash


def test_conflict_names_both_sources_and_missing_order_is_incomplete(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1001"},
                                {"provider_dispute_id": "dp_1", "order_number": "1002"},
                                {"provider_dispute_id": "dp_3", "order_number": "7777"}])  # fmt: skip
    result = build_evidence(records, MERCHANT)
    assert result.payloads == []
    why = ("dispute dp_1 is listed for different orders: order 1001 (disputes.csv row 2); order 1002 "
           "(disputes.csv row 3); correct the wrong list (drop it again under the same name): until "
           "then nothing is sent for this dispute")  # fmt: skip
    assert [r.line() for r in result.conflicts] == [
        f"disputes.csv row 2, column 'order_number' = '1001': {why}",
        f"disputes.csv row 3, column 'order_number' = '1002': {why}",
    ]
    assert [(i.provider_dispute_id, i.reason) for i in result.incomplete] == [
        ("dp_1", f"held: {why}"),  # nothing is sent for it
        ("dp_3", "no order lines for order 7777 yet: drop the orders export"),
    ]


def test_later_export_of_an_order_replaces_the_earlier_one(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1002"}])
    later = write_csv(
        tmp_path / "orders_tuesday.csv", SHOPIFY_79, [{**ORDER_1002, "Refunded Amount": "5.00"}]
    )
    tuesday = ingest_paths([later], tmp_path).records
    merged = {k: pd.concat([records[k], tuesday[k]], ignore_index=True) for k in records}
    (p,) = build_evidence(merged, MERCHANT).payloads
    assert len(p.evidence.products) == 1 and p.evidence.additional_evidence["refunded_amount"] == 5


def test_payments_join_by_metadata_or_payment_reference_and_fill_a_missing_deadline(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1001"},
                                {"provider_dispute_id": "dp_2", "order_number": "1002", "response_due_by": "2025-07-01"}])  # fmt: skip
    header = [*STRIPE_PAYMENTS, "orderId (metadata)"]
    by_reference = {**CHARGE_1001, "id": "c124.1", "orderId (metadata)": "", "Card Last4": "0005",
                    "Dispute Evidence Due (UTC)": "2025-06-30 23:59:59"}  # Shopify's Payment Reference of #1002  # fmt: skip
    monday = write_csv(tmp_path / "pay_mon.csv", header, [{**CHARGE_1001, "Card Last4": "1111"}])
    tuesday = write_csv(tmp_path / "pay_tue.csv", header, [CHARGE_1001, by_reference])
    pays = ingest_paths([monday, tuesday], tmp_path).records["payments"]
    result = build_evidence({**records, "payments": pays}, MERCHANT)
    p1, p2 = result.payloads
    (charge,) = p1.evidence.additional_evidence["payments"]  # the latest export of ch_3PxA1 only
    assert charge == {
        "payment_id": "ch_3PxA1", "payment_intent": "pi_3PxA1", "paid_at": "2025-05-11T13:55:16Z",
        "payment_amount": 109, "amount_refunded": 0, "currency": "USD", "payment_status": "Paid",
        "customer_email": "ann@example.com", "card_name": "Ann Smith", "card_brand": "Visa",
        "card_last4": "4242", "card_funding": "credit", "card_country": "US", "avs_line1_check": "pass",
        "avs_zip_check": "pass", "cvc_check": "pass", "dispute_reason": "fraudulent",
        "dispute_status": "needs_response",
    }  # fmt: skip
    assert (
        p1.response_due_by == "2025-06-20T23:59:59Z"
    )  # the disputes list had none: from the charge
    assert [c["card_last4"] for c in p2.evidence.additional_evidence["payments"]] == ["0005"]
    assert (
        p2.response_due_by == "2025-07-01T23:59:59Z"
    )  # the disputes list wins; a date alone ends its day
    assert result.unlisted_disputes == []


def test_a_disputed_charge_no_listed_dispute_names_is_reported(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1001"}])
    header = [*STRIPE_PAYMENTS, "orderId (metadata)"]
    unlisted = {
        **CHARGE_1001,
        "id": "ch_9",
        "orderId (metadata)": "1099",
        "Dispute Reason": "product_not_received",
    }
    won = {**CHARGE_1001, "id": "ch_8", "orderId (metadata)": "1098", "Dispute Status": "won"}
    plain = {
        **CHARGE_1001,
        "id": "ch_7",
        "orderId (metadata)": "1097",
        "Dispute Status": "",
        "Dispute Reason": "",
    }
    f = write_csv(tmp_path / "payments.csv", header, [CHARGE_1001, unlisted, won, plain])
    result = build_evidence(
        {**records, "payments": ingest_paths([f], tmp_path).records["payments"]}, MERCHANT
    )
    assert [r.line() for r in result.unlisted_disputes] == [
        "payments.csv row 3, column 'id' = 'ch_9': charge ch_9 is disputed (product_not_received, needs_response) "
        "but the disputes list has no dispute for it (order 1099); add its dispute id (dp_…) and order number "
        "to the disputes list"
    ]  # closed (won) and undisputed charges are not reported


def test_a_later_export_of_a_shipment_replaces_its_status(tmp_path):
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1001"}])
    cols = ["order_number", "tracking_number", "carrier", "delivery_status", "delivered_at"]
    monday = write_csv(tmp_path / "ship_mon.csv", cols, [
        {"order_number": "1001", "tracking_number": "1Z1", "carrier": "UPS", "delivery_status": "In transit"}])  # fmt: skip
    tuesday = write_csv(tmp_path / "ship_tue.csv", cols, [
        {"order_number": "1001", "tracking_number": "1Z1", "carrier": "UPS", "delivery_status": "Delivered",
         "delivered_at": "2025-05-15"},
        {"order_number": "1001", "tracking_number": "1Z2", "carrier": "UPS", "delivery_status": "In transit"}])  # fmt: skip
    ships = ingest_paths([monday, tuesday], tmp_path).records["shipments"]
    (p,) = build_evidence({**records, "shipments": ships}, MERCHANT).payloads
    assert p.evidence.shipping_tracking_numbers == ["1Z1", "1Z2"]
    shipments = p.evidence.additional_evidence["shipments"]
    assert [(s["tracking_number"], s["delivery_status"]) for s in shipments] == [
        ("1Z1", "Delivered"), ("1Z2", "In transit")]  # no stale "In transit" entry for 1Z1  # fmt: skip


def test_file_name_tokens():
    assert {"dp_123", "dp", "123", "receipt", "dp_123_receipt"} <= name_tokens("dp_123_receipt")
    assert "1001" in name_tokens("#1001 invoice") and "1001" not in name_tokens("10010")


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), "white").save(out, "PNG")
    return out.getvalue()


def test_match_evidence_files(tmp_path):
    (tmp_path / "sub").mkdir()
    files = {
        "dp_123_receipt.pdf": b"%PDF-1.4 a", "#1001 invoice.pdf": b"%PDF-1.4 b", "sub/1001-label.png": _png(),
        "10010.pdf": b"%PDF-1.4 c", "1001 and 2002.pdf": b"%PDF-1.4 d", "2002 fake.pdf": b"MZ\x90\x00",
        "2002 empty.jpg": b"", "2002 signature.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(72),
        "2002 label.png": b"\x89PNG\r\n\x1a\nxx",
    }  # fmt: skip
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    matches, issues = match_evidence_files([tmp_path / n for n in files], tmp_path,
                                           {"dp_123": "555", "dp_9": "1001", "dp_7": "2002"})  # fmt: skip
    assert {k: sorted(f.label for f in v) for k, v in matches.items()} == {
        "dp_123": ["dp_123_receipt.pdf"],
        "dp_9": ["#1001 invoice.pdf", "sub/1001-label.png"],
    }
    assert matches["dp_9"][1].mime == "image/png" and len(matches["dp_9"][0].sha256) == 64
    assert {i.label: i.reason for i in issues} == {
        "10010.pdf": "matches no dispute: put the dispute id (dp_…) or order number in the name"
        " (did you mean '1001'?)",  # not matched (10010 is another number), but hinted
        "1001 and 2002.pdf": "matches 2 disputes (dp_7, dp_9); rename it to name one",
        "2002 fake.pdf": "content is not PDF, PNG or JPG (whatever the name says); not uploaded",
        "2002 empty.jpg": "empty file",
        # a JPEG's or a PNG's first bytes and nothing after: an exhibit that would show nothing
        "2002 signature.jpg": "begins as a JPEG but no viewer can open it: re-save or re-scan it "
        "and drop it again; not uploaded",
        "2002 label.png": "begins as a PNG but no viewer can open it: re-save or re-scan it and "
        "drop it again; not uploaded",
    }


def test_near_misses_get_a_did_you_mean(tmp_path):
    from dispute_evidence.documents.files import match_evidence_files
    from dispute_evidence.evidence import build_evidence

    inbox = tmp_path
    (inbox / "dp_abc123XYZ_recipt.pdf").write_bytes(b"%PDF-1.4 x")  # one character off
    (inbox / "invoice 10O1.pdf").write_bytes(b"%PDF-1.4 y")  # letter O for zero
    (inbox / "scan_0007.pdf").write_bytes(b"%PDF-1.4 z")  # nothing close
    _, issues = match_evidence_files(
        sorted(inbox.glob("*.pdf")), inbox, {"dp_abc123XYZQ": "1001", "dp_other999": "2002"}
    )
    why = {i.label: i.reason for i in issues}
    assert why["dp_abc123XYZ_recipt.pdf"].endswith("(did you mean 'dp_abc123XYZQ'?)")
    assert why["invoice 10O1.pdf"].endswith("(did you mean '1001'?)")
    assert "did you mean" not in why["scan_0007.pdf"]
    # orders 1001 and 1002 are in the export; the disputes list says 1020 (digits swapped)
    records = _inbox(tmp_path, [{"provider_dispute_id": "dp_1", "order_number": "1001"},
                                {"provider_dispute_id": "dp_2", "order_number": "1020"}])  # fmt: skip
    (incomplete,) = build_evidence(records, MERCHANT).incomplete
    assert incomplete.reason.endswith(
        "(did you mean '1002'?: check the order number in the disputes list)"
    )
