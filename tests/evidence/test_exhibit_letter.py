"""The letter cites exhibits by label (issue 36, finding 10): "(Exhibit A, page 2)", not
"(5000 proof of delivery.pdf, page 1; packet page 4)"; in `files` mode (no packet) its page
lists which file each label is, so a reviewer can match the label to the file sent alone."""

from __future__ import annotations

import io
from datetime import date

from pypdf import PdfReader

from dispute_evidence.evidence.documents import Delivery, DocumentFacts, Message, Quote
from dispute_evidence.evidence.summary_pdf import summary_pdf
from tests.evidence.test_letter import ORDER, PRODUCTS, SHIPPED

POD = DocumentFacts("5000 proof of delivery.pdf", "", "proof_of_delivery", "text", 3,
                    delivery=Delivery(date(2026, 10, 6), "J. Doe", None,
                                      Quote("Delivered on 2026-10-06, signed for by J. DOE", 2)))  # fmt: skip
CHAT = DocumentFacts("5000 chat.pdf", "", "communication", "text", 1,
                     messages=(Message(date(2026, 10, 7), "Ann Smith",
                                       Quote("Thanks, the parcel came yesterday.", 1)),))  # fmt: skip
RECEIPT = DocumentFacts("5000 receipt.pdf", "", "receipt", "not_read")


def _payload() -> dict[str, object]:
    dispute = {"reason": "product_not_received", "amount": 129, "currency": "USD"}
    extra = {**ORDER, "dispute": dispute, "shipments": [SHIPPED]}
    return {"products": PRODUCTS, "additional_evidence": extra}


def _page_one(body: bytes) -> str:
    return " ".join((PdfReader(io.BytesIO(body)).pages[0].extract_text() or "").split())


def test_the_letter_cites_each_document_by_its_exhibit_label_and_page():
    letter = _page_one(summary_pdf("dp_1", _payload(), [RECEIPT, POD, CHAT]))
    # labelled in the order the letter first names them: the customer's message, the proof,
    # then the receipt its attachments line names
    assert "Ann Smith wrote (Exhibit A): “Thanks, the parcel came yesterday.”" in letter
    assert "The proof of delivery (Exhibit B, page 2) records the delivery" in letter
    assert "Attached as supporting documents: Exhibit C (receipt or invoice)." in letter
    assert "packet page" not in letter and ".pdf, page" not in letter


def test_in_files_mode_the_letters_page_maps_each_label_to_its_file():
    letter = _page_one(summary_pdf("dp_1", _payload(), [RECEIPT, POD, CHAT]))
    listed = letter.split("Exhibits (each sent as a file of its own)", 1)[1]
    assert "Exhibit A: 5000 chat.pdf (customer communication)" in listed
    assert "Exhibit B: 5000 proof of delivery.pdf (proof of delivery)" in listed
    assert "Exhibit C: 5000 receipt.pdf (receipt or invoice)" in listed


def test_the_data_sheet_lists_the_exhibits_and_cites_the_proof_by_label():
    pages = [" ".join((p.extract_text() or "").split())
             for p in PdfReader(io.BytesIO(summary_pdf("dp_1", _payload(), [RECEIPT, POD]))).pages]  # fmt: skip
    sheet = next(p for p in pages if p.startswith("Evidence summary"))
    assert "(per Exhibit A, page 2)" in sheet and "(per 5000 proof" not in sheet
    assert "Exhibit A proof of delivery 5000 proof of delivery.pdf" in sheet
    assert "Exhibit B receipt or invoice 5000 receipt.pdf" in sheet
