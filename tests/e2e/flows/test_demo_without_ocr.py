"""`make demo` on a machine without Tesseract and poppler (issue 39, item 6): one line says
what is missing and what the run loses, and the demo still completes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dispute_evidence.documents.reading import ReadLimits, missing_ocr_line

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.e2e
def test_the_demo_without_ocr_tools_says_what_it_loses_and_completes(tmp_path):
    bare = tmp_path / "bin"  # a PATH with neither tesseract nor pdftoppm on it
    bare.mkdir()
    env = {**os.environ, "PATH": str(bare)}
    cmd = [sys.executable, "-m", "dispute_evidence", "demo", "--workdir", str(tmp_path / "demo")]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if "OCR" in line]
    assert len(said) == 1, r.stderr
    assert "Tesseract and pdftoppm not found" in said[0]
    assert "photos, screenshots and scanned PDFs are not read" in said[0]
    assert "apt-get install tesseract-ocr poppler-utils" in said[0]
    assert "Traceback" not in r.stderr and "4 sent" in r.stdout, r.stdout  # 1045: in transit, held


def test_the_line_names_only_what_is_missing():
    both = ReadLimits(tesseract="/usr/bin/tesseract", pdftoppm="/usr/bin/pdftoppm")
    assert missing_ocr_line(both) == ""
    no_poppler = ReadLimits(tesseract="/usr/bin/tesseract", pdftoppm=None)
    line = missing_ocr_line(no_poppler)
    assert "(pdftoppm not found): scanned PDFs (pages with no text) are not read" in line
    assert line.endswith("apt-get install poppler-utils") and "photos" not in line
