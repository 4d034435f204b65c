"""Issue 45 item 4: a checkout screenshot's clause, read by Tesseract OCR, is quoted without
the ticked box before it (OCR read it as "i] | agree …", "[VW | agree …"). The text alone:
tests/unit/evidence/test_checkout_clause.py."""

from __future__ import annotations

import pytest

from dispute_evidence.documents.reading import read_document
from support.docfixtures import checkout_png
from tests.unit.evidence.test_reading import needs_ocr

CLAUSE = "I agree to the Terms of Service and the Refund Policy: returns within 30 days."


@pytest.mark.e2e
@needs_ocr
def test_a_checkout_screenshots_clause_starts_with_its_words_not_the_box(tmp_path):
    png = checkout_png(tmp_path / "checkout.png", CLAUSE)
    facts = read_document(png, "checkout.png", "image/png")
    assert facts.read == "ocr" and facts.kind == "policy", facts
    quoted = [q.text for q in (facts.policy_clause, *facts.policy_clauses.values()) if q]
    assert quoted, facts
    for text in quoted:
        assert text.startswith("I agree to the Terms of Service"), text
