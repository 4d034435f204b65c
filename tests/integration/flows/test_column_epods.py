"""Issue 45, through the real CLI against the local API:
- item 1: a Blue Dart ePOD whose text is 12 labels then their 12 values goes to the issuer with
  its own signer, address and date ("Rohith T", never "Relation"; "12 CMH Road, Indiranagar,
  Bengaluru 560038", never "Pickup Date");
- item 4: a POD named for its waybill number matches its dispute by name, and one whose text
  names only its waybill (a column-ordered Delhivery ePOD) by content; a partial delivery's
  Delivery column says it is partial;
- item 11: a POD whose text is another dispute's, in a file named for this one, is said in
  this one's Delivery column, beside the carrier's status."""

from __future__ import annotations

import io

from pypdf import PdfReader

from support.docfixtures import columns_pdf, text_pdf
from support.pod_corpus import BLUE_DART, DELHIVERY
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = [
    "order_number",
    "product_title",
    "price",
    "quantity",
    "currency_code",
    "customer_email",
    "customer_name",
    "shipping_address",
    "order_date",
]
SHIPS = [
    "order_number",
    "tracking_number",
    "carrier",
    "shipped_at",
    "delivered_at",
    "delivery_status",
]
STREETS = [
    "12 CMH Road, Indiranagar, Bengaluru 560038",
    "45 Church Street, Bengaluru 560001",
    "7 Park Street, Kolkata 700016",
]


def _run(sandbox_factory, monkeypatch, inbox):
    """`dispute-evidence run` on the inbox against a local API of 3 disputes (locale en_IN)."""
    sb = sandbox_factory(rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__LOCALE", "en_IN")
    run_cli("--inbox", str(inbox))
    return sb


def _sent_text(sb, pid: str) -> str:
    """The text of the summary PDF the API holds for the dispute (its letter first)."""
    names = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (names[-1],)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


def _inbox(tmp_path, ships: list[list[object]]):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(0, 0))
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason"],
        [[f"dp_test_{i}", f"#{5000 + i}", "product_not_received"] for i in range(3)],
    )
    write_rows(
        inbox / "orders.csv",
        ORDERS,
        [
            [
                5000 + i,
                "Trail Shoe",
                "2999",
                1,
                "INR",
                f"c{i}@example.com",
                f"C {i}",
                STREETS[i],
                "2025-12-01",
            ]
            for i in range(3)
        ],
    )
    write_rows(inbox / "shipments.csv", SHIPS, ships)
    return inbox


def test_a_column_ordered_epod_goes_out_with_its_own_signer_address_and_date(
    sandbox_factory, tmp_path, monkeypatch
):
    """Item 1: named for its order (as the issue's was), its text 12 labels then 12 values."""
    inbox = _inbox(
        tmp_path,
        [[5000 + i, f"7731234569{i}", "Blue Dart", "2025-12-05", "", ""] for i in range(3)],
    )
    columns_pdf(inbox / "5000 Blue Dart ePOD.pdf", *BLUE_DART)
    sb = _run(sandbox_factory, monkeypatch, inbox)
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert row["Delivery"] == (  # was "delivered 2025-12-05 (per …)": the pickup date
        "delivered 2025-12-09, signed by Rohith T (per 5000 Blue Dart ePOD.pdf, page 1)"
    ), row.to_dict()
    letter = _sent_text(sb, "dp_test_0")
    assert "to 12 CMH Road, Indiranagar, Bengaluru 560038, signed for by Rohith T" in letter
    for label in ("Relation", "Pickup Date", "Delivered Time", "Product"):
        assert f"signed for by {label}" not in letter and f"to {label}" not in letter


def test_pods_named_for_their_waybill_or_naming_only_it_reach_their_disputes(
    sandbox_factory, tmp_path, monkeypatch
):
    """Item 4: by the tracking number in the file's name, or in a column-ordered text."""
    inbox = _inbox(
        tmp_path,
        [
            [5000, "77312345690", "Blue Dart", "2025-12-05", "", "in transit"],
            [5001, "1490811239876", "Delhivery", "2025-12-03", "", "in transit"],
            [5002, "1Z999AA10123456784", "UPS", "2025-12-03", "", ""],
        ],
    )
    columns_pdf(inbox / "BlueDart ePOD 77312345690.pdf", *BLUE_DART)
    columns_pdf(inbox / "scan_0042.pdf", *DELHIVERY)
    sb = _run(sandbox_factory, monkeypatch, inbox)
    table = latest_disputes(tmp_path)

    blue = table.loc["dp_test_0"]  # by name: the waybill number in the file's name
    assert blue["Delivery"] == (
        "delivered 2025-12-09, signed by Rohith T (per BlueDart ePOD 77312345690.pdf, page 1)"
    ), blue.to_dict()
    files = [f["file_name"] for f in sb.snapshot()["dp_test_0"]["files"]]
    assert any("77312345690" in name for name in files), files

    delhivery = table.loc["dp_test_1"]  # by content: its text names only the waybill
    assert delhivery["Delivery"] == (
        "delivered 2025-12-07, signed by Kavya Menon (per scan_0042.pdf, page 1)"
    ), delhivery.to_dict()
    files = [f["file_name"] for f in sb.snapshot()["dp_test_1"]["files"]]
    assert any("scan_0042" in name for name in files), files
    assert "signed for by Kavya Menon" in _sent_text(sb, "dp_test_1")


def _two_parcels_and_a_misnamed_proof(tmp_path):
    inbox = _inbox(
        tmp_path,
        [
            [5000, "1Z999AA10000000001", "UPS", "2025-12-02", "2025-12-09", "Delivered"],
            [5000, "1Z999AA10000000002", "UPS", "2025-12-02", "", "In transit"],
            [5001, "1Z999AA10000000003", "UPS", "2025-12-02", "", "In transit"],
            [5002, "1Z999AA10000000004", "UPS", "2025-12-02", "", "In transit"],
        ],
    )
    text_pdf(
        inbox / "5001 proof of delivery.pdf",
        [
            [  # dp_test_2's parcel's proof
                "UPS Proof of Delivery",
                "Tracking number: 1Z999AA10000000004",
                "Delivered on 2025-12-08 at 10:40",
                "Signed by: K. Das",
                f"Delivered to: {STREETS[2]}",
            ]
        ],
    )
    return inbox


def test_a_partial_delivery_is_partial_in_the_delivery_column(
    sandbox_factory, tmp_path, monkeypatch
):
    """Item 4: one parcel of two delivered."""
    _run(sandbox_factory, monkeypatch, _two_parcels_and_a_misnamed_proof(tmp_path))
    partial = latest_disputes(tmp_path).loc["dp_test_0"]["Delivery"]
    assert partial == (  # was "delivered 2025-12-09"
        "delivered in part, 1 of 2 parcels: 1Z999AA10000000001 delivered 2025-12-09; "
        "not delivered: 1Z999AA10000000002 (in transit)"
    ), partial


def test_another_disputes_proof_named_for_this_one_is_said_in_its_delivery_column(
    sandbox_factory, tmp_path, monkeypatch
):
    """Item 11: dp_test_1's file holds dp_test_2's parcel's proof."""
    sb = _run(sandbox_factory, monkeypatch, _two_parcels_and_a_misnamed_proof(tmp_path))
    held = latest_disputes(tmp_path).loc["dp_test_1"]
    assert held["Delivery"] == (  # was "not confirmed (carrier status: in transit)" alone
        "not confirmed (carrier status: in transit); 5001 proof of delivery.pdf: a proof of "
        "delivery for another parcel, not sent"
    ), held.to_dict()
    assert "It is dp_test_2's parcel: name the file for that dispute" in held["File problems"]
    files = [f["file_name"] for f in sb.snapshot()["dp_test_1"]["files"]]
    assert not any("5001 proof" in name for name in files), files
    # in transit, and its one proof is another parcel's: nothing proves delivery, so it waits
    # for a person as advice: accept, and nothing of it reaches the issuer
    assert held["Status"].startswith("advice: accept (carrier shows in transit), not sent")
    assert sb.snapshot()["dp_test_1"]["evidence_updates"] == 0 and files == []
