"""The letter argues, reason by reason (issue 44, items 4, 5, 6 and 11): the real CLI against the
sandbox, in packet mode, reading what the API holds. The body opens with its thesis: the claim
answered by the decisive proof, with its exhibit; a carrier's signed proof is quoted and our
shipment record only ties it to the order; the policy clause quoted is the one that answers
the claim, its number whole; the page carries the letter's date and the merchant's contact, a
caption per exhibit, and no export file name or row."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from pypdf import PdfReader

from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.support.cli_helpers import run_cli as _run
from tests.support.cli_helpers import use_sandbox as _api
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "shipping_address", "order_date"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at",
         "delivery_status"]  # fmt: skip
TRACK = "1Z999AA10123456784"
POD = ["UPS Proof of Delivery", f"Tracking number: {TRACK}", "Delivered on 2026-10-06 at 16:40",
       "Signed by: A. Smith", "Delivered to: 12 Elm Street, Boston, MA 02108"]  # fmt: skip
POLICY = ["Acme Outfitters returns policy",
          "Sale items marked final sale cannot be returned or exchanged.",
          "4 Returns",
          "4.1 Items must be unused and in their original packaging.",
          "4.2 Returns are accepted within 30 days of delivery for a full refund.",
          "4.3 Footwear returned worn cannot be refunded or exchanged."]  # fmt: skip
CONTACT = "disputes@acme.test"


def _pages(sb, pid: str) -> list[str]:
    """Each page of the one file the API holds for `pid` (its packet), as its text."""
    (name,) = [f["file_name"] for f in sb.snapshot()[pid]["files"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (name,)).fetchone()[0]))
    return [" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(body)).pages]


def _run_cases(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(2))
    _api(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_CONTACT", CONTACT)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "product_not_received"],
                ["dp_test_1", "#5001", "credit_not_processed"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Board", "30", 1, "USD", "ann@example.com", "Ann Smith",
         "12 Elm Street, Boston, MA 02108", "2026-10-01"] for i in range(2)])  # fmt: skip
    write_rows(inbox / "shipments.csv", SHIPS, [
        [5000, TRACK, "UPS", "2026-10-02", "", "In transit"],  # the sheet never caught up
        [5001, "1Z999AA10123456785", "UPS", "2026-10-02", "2026-10-05", "Delivered"]])  # fmt: skip
    text_pdf(inbox / "5000 proof of delivery.pdf", [POD])
    text_pdf(inbox / "5001 refund policy.pdf", [POLICY[:2], POLICY[2:]])
    _run("--inbox", str(inbox))
    return sb


def _body(letter: str) -> str:
    return letter.split("To the reviewer of this dispute,", 1)[1].strip()


def test_the_letter_opens_with_its_thesis_and_quotes_the_carriers_proof_first(
    sandbox_factory, tmp_path, monkeypatch
):
    pages = _pages(_run_cases(sandbox_factory, tmp_path, monkeypatch), "dp_test_0")
    letter = pages[0]
    # item 4: the first sentence answers the claim with the decisive proof and its exhibit
    assert _body(letter).startswith(
        "The cardholder says the goods were not received; UPS's signed proof of delivery "
        "(Exhibit A) shows the parcel delivered on 2026-10-06 to 12 Elm Street, Boston, MA "
        "02108, the shipping address entered at checkout, signed for by A. Smith."
    ), letter
    assert "The dispute (" not in letter
    # item 5: the document quoted; our sheet only ties its tracking number to the order
    assert "The proof of delivery (Exhibit A) records the delivery on 2026-10-06" in letter
    assert (f"The tracking number it names, {TRACK}, is the UPS parcel our shipment record "
            "holds for order 5000.") in letter  # fmt: skip
    assert "The carrier records" not in letter
    sheet = next(p for p in pages if p.startswith("Evidence summary"))
    assert "not confirmed (carrier status: in transit)" not in sheet, sheet
    assert (
        f"UPS {TRACK} 2026-10-02 delivered 2026-10-06, signed by A. Smith (per Exhibit A" in sheet
    )


def test_the_page_has_its_date_contact_captions_and_no_internal_names(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = _run_cases(sandbox_factory, tmp_path, monkeypatch)
    pages = _pages(sb, "dp_test_0")
    letter = pages[0]
    today = datetime.now(UTC).date().isoformat()
    assert f"Date of this letter {today}" in letter, letter
    assert (
        f"Acme · https://acme.test · {CONTACT} · order 5000" in letter
    )  # who answers, how to reach
    # a caption per exhibit saying what it shows, where it begins in the packet
    assert (f"Exhibit A: proof of delivery: tracking number {TRACK}, delivered 2026-10-06 to "
            "12 Elm Street, Boston, MA 02108, signed by A. Smith (page ") in letter  # fmt: skip
    # no export file name, no row, no "our payments export" on any uploaded page
    for pid in ("dp_test_0", "dp_test_1"):
        for page in _pages(sb, pid):
            assert ".csv" not in page and ", row " not in page, page
            assert "payments export" not in page and "orders export" not in page, page


def test_a_late_return_is_answered_with_the_return_window_clause_whole(
    sandbox_factory, tmp_path, monkeypatch
):
    letter = _pages(_run_cases(sandbox_factory, tmp_path, monkeypatch), "dp_test_1")[0]
    said = ("our policy (Exhibit A, page 2), clause 4.2, says: “Returns are accepted within 30 "
            "days of delivery for a full refund.”")  # fmt: skip
    assert said in letter, letter
    assert "final sale" not in letter and "3 Footwear" not in letter
