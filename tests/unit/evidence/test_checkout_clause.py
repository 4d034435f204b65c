"""Issue 45 item 4: the clause of a checkout screenshot is quoted from its words, never from
the OCR'd checkbox before them ("i] | agree …"); a sentence that only starts like one is kept
as written. With Tesseract on a screenshot made here: tests/e2e/evidence/test_checkout_ocr.py."""

from __future__ import annotations

import pytest

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts

AGREED = "I agree to the Terms of Service and the Refund Policy: returns within 30 days."


def _clause(line: str) -> str:
    base = DocumentFacts("checkout.png", "", "policy", "ocr")
    facts = doctext.facts(base, ["Checkout\nOrder summary: 1 x Trail Shoe 129.00 USD\n" + line])
    assert facts.policy_clause is not None, facts
    return facts.policy_clause.text


@pytest.mark.parametrize(
    "ocr",
    [
        "i] | agree to the Terms of Service and the Refund Policy: returns within 30 days.",
        "[VW | agree to the Terms of Service and the Refund Policy: returns within 30 days.",
        "[x] I agree to the Terms of Service and the Refund Policy: returns within 30 days.",
        "☑ I agree to the Terms of Service and the Refund Policy: returns within 30 days.",
        "| agree to the Terms of Service and the Refund Policy: returns within 30 days.",
        AGREED,
    ],
)
def test_the_box_before_i_agree_is_no_part_of_the_clause(ocr):
    assert _clause(ocr) == AGREED


def test_words_before_i_agree_are_kept():
    said = "So I agree to the Terms of Service and the Refund Policy: returns within 30 days."
    assert _clause(said) == said
