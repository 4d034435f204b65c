"""The page a reviewer reads (issue 44, item 11): no page of the letter holds only its closing
and signature, however long the body runs."""

from __future__ import annotations

import io

from pypdf import PdfReader

from dispute_evidence.evidence.summary_pdf import summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from tests.unit.evidence.test_letter import CHARGE, ORDER, PRODUCTS, SHIPPED

CLOSING = ("For these reasons", "Exhibits", "The data sheet on the next page", "Acme")


def _letter_pages(paragraphs: int) -> list[str]:
    """The letter's pages (before the data sheet) for a statement of `paragraphs` paragraphs."""
    statement = "\n\n".join(f"Paragraph {i}: the customer collected the parcel in person at our "
                            "shop counter and signed the collection book." for i in range(paragraphs))  # fmt: skip
    dispute = {"reason": "product_not_received", "amount": 129, "currency": "USD"}
    extra = {**ORDER, "dispute": dispute, "shipments": [{**SHIPPED, "delivered_at": "2026-10-06",
             "delivery_status": "Delivered"}], "payments": [CHARGE],
             "merchant_statement": {"text": statement, "from": "statement.txt"}}  # fmt: skip
    payload = {"products": PRODUCTS, "additional_evidence": extra,
               "merchant_profile": {"merchant_id": "m_1", "merchant_name": "Acme",
                                    "merchant_website": ""}}  # fmt: skip
    pages = PdfReader(io.BytesIO(summary_pdf("dp_1", wire_facts(payload), []))).pages
    texts = [" ".join((p.extract_text() or "").split()) for p in pages]
    sheet = next(i for i, t in enumerate(texts) if "Evidence summary: dispute" in t)
    before = texts[sheet].split("Evidence summary: dispute")[0]  # a timeline moved over
    return texts[:sheet] + ([before] if before.strip() else [])


def _only_closing(page: str) -> bool:
    """A page of the letter holding only its end (the timeline moved over whole is not)."""
    return page.startswith(CLOSING) or (len(page) < 200 and not page.startswith("Timeline"))


def test_no_page_holds_only_the_closing_and_signature():
    seen_two = False
    for n in range(8, 40):  # the body grows a paragraph at a time across the page's end
        pages = _letter_pages(n)
        seen_two |= len(pages) > 1
        for page in pages[1:]:
            assert not _only_closing(page), (n, page)
    assert seen_two  # the sweep did cross onto a second page


def test_a_letter_just_too_long_moves_its_timeline_and_keeps_to_page_1():
    """Where the body fits but the timeline would push the request and signature over, the
    timeline goes whole to the top of the next page and page 1 ends with the signature."""
    moved = 0
    for n in range(0, 12):
        pages = _letter_pages(n)
        if "The timeline and the data sheet on the next page" not in pages[0]:
            assert "Timeline" in pages[0] or len(pages) > 1, n
            continue
        moved += 1
        assert pages[0].rstrip().endswith("Acme"), (n, pages[0][-200:])
        assert pages[1].startswith("Timeline – ") and "Delivered." in pages[1], (n, pages[1])
    assert moved  # the sweep did meet such a letter
