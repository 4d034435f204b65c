"""Issue 37 item 3: proofs of delivery from any carrier, read per field. The corpus
(support/pod_corpus.py) holds at least 12 layouts, images read by OCR among them; the
share read right per field (date, signer, address, tracking number) is printed and must be at
least 90% on each."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from support.docfixtures import text_pdf
from support.pod_corpus import LAYOUTS


def test_the_corpus_has_twelve_layouts_images_among_them():
    assert len({lay.name for lay in LAYOUTS}) == len(LAYOUTS) >= 12
    images = [lay for lay in LAYOUTS if lay.mime != "application/pdf" or "scan" in lay.name]
    assert len(images) >= 4
    assert any(lay.dayfirst for lay in LAYOUTS) and any(not lay.dayfirst for lay in LAYOUTS)


@pytest.mark.parametrize(
    ("text", "dayfirst", "on"),
    [
        ("Delivered 10-Dec-2025 14:32 IST", None, date(2025, 12, 10)),
        ("Delivered Dec 10, 2025 2:15 PM EST", None, date(2025, 12, 10)),
        ("Delivered 10 Dec, 2025", None, date(2025, 12, 10)),
        ("Delivered 10/12/2025 14:32", True, date(2025, 12, 10)),  # en_IN, en_GB
        ("Delivered 10/12/2025 14:32", None, date(2025, 10, 12)),  # en_US, or unset
        ("Shipped 25/11/2025; delivered 10/12/2025", None, date(2025, 12, 10)),  # the text says
    ],
)
def test_dates_carriers_write_by_the_text_then_the_locale(text, dayfirst, on):
    found = doctext.facts(DocumentFacts("pod.pdf", "", "proof_of_delivery", "text"), [text],
                          dayfirst)  # fmt: skip
    assert found.delivery is not None and found.delivery.on == on


def test_a_document_read_with_another_locale_is_read_again(tmp_path: Path):
    cache = tmp_path / "cache"
    cache.mkdir()
    pdf = text_pdf(tmp_path / "pod.pdf", [["Proof of Delivery", "Delivered on 10/12/2025"]])
    item = ToRead(pdf, "pod.pdf", "application/pdf", "d" * 64)
    us = read_documents([item], ReadLimits(dayfirst=False), cache)[item.sha256]
    gb = read_documents([item], ReadLimits(dayfirst=True), cache)[item.sha256]
    assert us.delivery and gb.delivery
    assert (us.delivery.on, gb.delivery.on) == (date(2025, 10, 12), date(2025, 12, 10))
