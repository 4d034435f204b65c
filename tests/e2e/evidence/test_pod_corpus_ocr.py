"""Every field of the proof-of-delivery corpus (support/pod_corpus.py) is read right at least
90% of the time, images by Tesseract OCR (the rest: tests/unit/evidence/test_pod_corpus.py);
so is every field of its column-ordered ePODs alone (issue 45 item 1: Blue Dart, DTDC, Aramex,
Royal Mail, Delhivery; text and image), and no field is ever read as a label."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.pod_corpus import COLUMNS, FIELDS, LAYOUTS, read_corpus, right, summed
from tests.unit.evidence.test_reading import needs_ocr

BAR = 0.90


@pytest.mark.e2e
@needs_ocr
def test_every_field_of_the_pod_corpus_is_read_right_at_least_90_percent(tmp_path: Path):
    results = read_corpus(tmp_path)
    every, columns = summed(results), summed([r for r in results if r[0] in COLUMNS])
    print(f"\nPOD corpus, {every.layouts} layouts: read right per field")
    print("\n".join(f"  {line}" for line in every.lines()))
    print(f"column-ordered ePODs, {columns.layouts} layouts (text and image): read right per field")
    print("\n".join(f"  {line}" for line in columns.lines() if not line.startswith("wrong")))
    assert every.layouts == len(LAYOUTS) and columns.layouts == len(COLUMNS) >= 8
    assert all(every.rates[name] >= BAR for name in FIELDS), every
    assert all(columns.rates[name] >= BAR for name in FIELDS), columns
    assert every.labels == [], every.labels  # a label read as a value: wrong, never allowed
    assert all(right(lay, facts)["signer"] for lay, facts in results if "bluedart" in lay.name)
