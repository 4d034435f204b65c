"""The letter cites exhibits by label (issue 36, finding 10): "(Exhibit A, page 2)", not
"(5000 proof of delivery.pdf, page 1; packet page 4)"; in `files` mode (no packet) its page
lists which file each label is, so a reviewer can match the label to the file sent alone. The
sources for the analyst leave the reviewer's reading path (no CSV footnotes), and the
reviewer's pages say nothing in our internal words (export file names, API enums, account
ids)."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import date

from pypdf import PdfReader

from dispute_evidence.documents.facts import Delivery, DocumentFacts, Message, Quote
from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, build_packet
from dispute_evidence.evidence.summary_pdf import sources_pdf, summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from support.docfixtures import pdf_of
from tests.unit.evidence.test_letter import ORDER, PRODUCTS, SHIPPED

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
    letter = _page_one(summary_pdf("dp_1", wire_facts(_payload()), [RECEIPT, POD, CHAT]))
    # labelled in the order the letter first names them: the carrier's proof (third-party
    # proof first, issue 44 item 5), the customer's message, then the receipt its attachments
    # line names
    # (the thesis cites it; its bullet, the same date and signer, is not printed again)
    assert "proof of delivery (Exhibit A, page 2) shows the parcel delivered" in letter
    assert "Ann Smith wrote (Exhibit B): “Thanks, the parcel came yesterday.”" in letter
    assert "Attached as supporting documents: Exhibit C (receipt or invoice)." in letter
    assert "packet page" not in letter and ".pdf, page" not in letter


def test_in_files_mode_the_letters_page_maps_each_label_to_its_file():
    letter = _page_one(summary_pdf("dp_1", wire_facts(_payload()), [RECEIPT, POD, CHAT]))
    listed = letter.split("Exhibits (each sent as a file of its own)", 1)[1]
    # each with a caption saying what it shows (issue 44, item 11)
    assert ("Exhibit A: 5000 proof of delivery.pdf (proof of delivery: delivered 2026-10-06, "
            "signed by J. Doe)") in listed  # fmt: skip
    assert "Exhibit B: 5000 chat.pdf (customer communication: 1 message, 2026-10-07)" in listed
    assert "Exhibit C: 5000 receipt.pdf (receipt or invoice)" in listed
    # the files go as they were dropped: no stamp on them is promised
    assert "the list above names its file" in letter and "every page of it" not in letter


def test_the_data_sheet_lists_the_exhibits_and_cites_the_proof_by_label():
    pages = [" ".join((p.extract_text() or "").split())
             for p in PdfReader(io.BytesIO(summary_pdf("dp_1", wire_facts(_payload()), [RECEIPT, POD]))).pages]  # fmt: skip
    sheet = next(p for p in pages if p.startswith("Evidence summary"))
    assert "(per Exhibit A, page 2)" in sheet and "(per 5000 proof" not in sheet
    assert "Exhibit A proof of delivery 5000 proof of delivery.pdf" in sheet
    assert "Exhibit B receipt or invoice 5000 receipt.pdf" in sheet


# -- sources out of the reviewer's reading path, no internal jargon on the reviewer's pages --
SOURCES = {"dispute": "disputes.csv, row 3", "order": "orders_export_1.csv, row 2",
           "shipments": "shipments.xlsx, sheet S1, row 4"}  # fmt: skip
JARGON = (".csv", ".xlsx", ", row ", "[1]", "[2]", "product_not_received", "Merchant id", "acct_",
          "Sources of the letter")  # fmt: skip


def _jargon_payload() -> dict[str, object]:
    payload = _payload()
    payload["merchant_profile"] = {"merchant_id": "acct_1Q2w3E", "merchant_name": "Acme"}
    extra = payload["additional_evidence"]
    assert isinstance(extra, dict)
    extra["financial_status"] = "partially_refunded"
    return payload


def test_the_reviewers_pages_carry_no_footnotes_export_names_enums_or_account_ids():
    body = summary_pdf("dp_1", wire_facts(_jargon_payload()), [RECEIPT, POD, CHAT])
    text = " ".join(" ".join((p.extract_text() or "").split())
                    for p in PdfReader(io.BytesIO(body)).pages)  # fmt: skip
    for word in JARGON:
        assert word not in text, word
    assert "Payment status partially refunded" in text  # the export's code, said in words
    assert "reason: product not received" in text


def test_the_sources_go_to_an_appendix_at_the_very_end_of_the_packet():
    """Between the data sheet and the first exhibit stands no page of CSV rows: the records
    behind the statements are the merchant's, on the packet's last page, stamped as such."""
    attached = [RECEIPT, POD, CHAT]
    payload = _jargon_payload()
    docs = [Document(d.name, "application/pdf", pdf_of(d.pages or 1, d.name.upper()), d.kind)
            for d in attached]  # fmt: skip
    made = lambda pages: summary_pdf("dp_1", wire_facts(payload), attached, pages=pages)  # noqa: E731
    back = sources_pdf("dp_1", wire_facts(payload), attached, SOURCES)
    packet = build_packet(made, docs, PROFILES["visa"], back=back)
    pages = [" ".join((p.extract_text() or "").split())
             for p in PdfReader(io.BytesIO(packet.body)).pages]  # fmt: skip
    last = pages[-1]
    assert "For the merchant's records: where this response's statements come from" in last
    for where in SOURCES.values():
        assert where in last, where
    for line in ("Exhibit A 5000 proof of delivery.pdf", "Exhibit B 5000 chat.pdf",
                 "Exhibit C 5000 receipt.pdf"):  # fmt: skip
        assert line in last  # which file each exhibit is
    assert f"For the merchant's records: sources — page {len(pages)} of {len(pages)}" in last
    first_exhibit = min(x.start or 0 for x in packet.exhibits.values())
    for page in pages[: first_exhibit - 1]:  # the letter and the data sheet
        for word in JARGON:
            assert word not in page, (word, page)


def _embedded_fonts(body: bytes) -> set[str]:
    """The fonts a PDF embeds (a font file of its own), by base name."""
    out = set()
    for page in PdfReader(io.BytesIO(body)).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            if descriptor is not None and any(
                k in descriptor.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3")
            ):
                out.add(str(font["/BaseFont"]))
    return out


def test_the_sources_appendix_embeds_no_font_unless_its_text_needs_one():
    """The merchant's appendix of file names and rows: Latin-1 text in the standard fonts (no
    font to embed: half the cost to make and to merge), any other text in the embedded body
    font, so a Polish file name still prints."""
    payload = _payload()
    plain = sources_pdf("dp_1", wire_facts(payload), [POD, CHAT], SOURCES)
    assert plain is not None and _embedded_fonts(plain) == set()
    polish = replace(POD, name="5000 potwierdzenie doręczenia.pdf")
    wide = sources_pdf("dp_1", wire_facts(payload), [polish, CHAT], SOURCES)
    assert wide is not None and any("DejaVu" in f for f in _embedded_fonts(wide))
    text = " ".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(wide)).pages)
    assert "doręczenia" in text
