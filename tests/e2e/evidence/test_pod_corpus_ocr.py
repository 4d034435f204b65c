"""Every field of the proof-of-delivery corpus (tests/evidence/pod_corpus.py) is read right
at least 90% of the time, images by Tesseract OCR (the rest: tests/unit/evidence/test_pod_corpus.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evidence.pod_corpus import FIELDS, LAYOUTS, read_rates
from tests.unit.evidence.test_reading import needs_ocr

BAR = 0.90


@pytest.mark.e2e
@needs_ocr
def test_every_field_of_the_pod_corpus_is_read_right_at_least_90_percent(tmp_path: Path):
    rates, wrong = read_rates(tmp_path)
    print(f"\nPOD corpus, {len(LAYOUTS)} layouts: read right per field")
    for name in FIELDS:
        print(f"  {name:<9} {rates[name]:6.1%}")
    for line in wrong:
        print(f"  wrong: {line}")
    assert all(rates[name] >= BAR for name in FIELDS), (rates, wrong)
