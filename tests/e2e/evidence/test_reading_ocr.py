"""Reading images and image-only PDF pages with Tesseract OCR (a process), and what goes out
unread without it (the rest of reading: tests/unit/evidence/test_reading.py)."""

from __future__ import annotations

from datetime import date

import pytest

from dispute_evidence.documents.reading import (
    ReadLimits,
    ToRead,
    read_document,
    read_documents,
)
from support.docfixtures import scan_pdf, scan_png
from tests.unit.evidence.test_reading import PDF, needs_ocr


@pytest.mark.e2e
@needs_ocr
@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_a_photo_is_read_by_ocr(tmp_path, suffix):
    image = scan_png(tmp_path / f"IMG_1234{suffix}", [
        "Order #5004", "Tracking number 1Z000004", "Delivered 2026-03-02",
    ])  # fmt: skip
    mime = "image/png" if suffix == ".png" else "image/jpeg"
    facts = read_document(image, image.name, mime)
    assert facts.read == "ocr" and facts.pages == 1
    assert "5004" in facts.order_numbers and "1Z000004" in facts.tracking_numbers
    assert facts.delivery is not None and facts.delivery.on == date(2026, 3, 2)


@pytest.mark.e2e
@needs_ocr
def test_an_image_only_pdf_page_is_read_by_ocr(tmp_path):
    pdf = scan_pdf(tmp_path / "scan_0001.pdf", [
        "Return policy", "Items may be returned within 30 days for a full refund.",
    ])  # fmt: skip
    facts = read_document(pdf, "scan_0001.pdf", PDF)
    assert facts.read == "ocr" and facts.kind == "policy"
    assert facts.policy_clause is not None
    assert "30 days for a full refund" in facts.policy_clause.text


@pytest.mark.e2e
def test_without_tesseract_an_image_goes_out_unread_and_says_so(tmp_path):
    image = scan_png(tmp_path / "IMG_1.png", ["Order #5004"])
    facts = read_document(image, "IMG_1.png", "image/png", limits=ReadLimits(tesseract=None))
    assert facts.read == "no_ocr"
    assert "Tesseract is not installed (apt-get install tesseract-ocr)" in facts.note
    cache = tmp_path / "cache"
    cache.mkdir()
    item = ToRead(image, "IMG_1.png", "image/png", "c" * 64)
    read_documents([item], ReadLimits(tesseract=None), cache)
    assert not list(cache.iterdir())  # this machine's lack, not the file's: read once installed
