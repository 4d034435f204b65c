"""The reading worker parses a PDF once: its text and its metadata (looked at for card
numbers) come from the same reader, not from a second parse of the file (issue 47: the
documents-read prepare, 4,063 PDFs, paid pypdf's parse twice a file)."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest
from pypdf import PdfWriter

from dispute_evidence.documents import _read_worker


def _pdf(tmp_path: Path) -> Path:
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    writer.add_metadata({"/Title": "Order 1001 shipped"})
    path = tmp_path / "proof.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def test_a_pdf_is_parsed_once_for_its_text_and_its_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []
    real = pypdf.PdfReader

    class Counting(real):  # type: ignore[misc,valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            opened.append(args[0] if args else kwargs.get("stream"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(pypdf, "PdfReader", Counting)
    req = {
        "path": str(_pdf(tmp_path)),
        "mime": "application/pdf",
        "max_pages": 5,
        "max_chars": 2000,
        "ocr_pages": 0,
        "seconds": 30,
    }
    answer = _read_worker.handle(req)
    assert answer["metadata"]["Title"] == "Order 1001 shipped"
    assert answer["pages"] == 1
    assert len(opened) == 1
    assert "opened" not in req  # nothing of the reader is left on the request
