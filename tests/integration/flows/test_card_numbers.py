"""Card numbers never leave and are never kept (issue 39, item 7, critical; PCI DSS): a full
card number in a customer's e-mail (PDF), a chat screenshot (OCR), a receipt with its security
code, a payments export's `Card Last4` cell and a charge's description. The real CLI against
the local API over loopback; then every file the run wrote is searched for the numbers."""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3
import zipfile
from pathlib import Path

from pypdf import PdfReader
from typer.testing import CliRunner

from dispute_evidence.cli import app
from support.docfixtures import scan_png, text_pdf
from tests.conftest import seed_rows
from tests.support.cli_helpers import use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows
from tests.unit.evidence.test_reading import needs_ocr

EMAIL, CHAT, RECEIPT = "4111111111111111", "5555555555554444", "378282246310005"
LAST4, DESCRIPTION = "4242424242424242", "6011111111111117"
PANS = (EMAIL, CHAT, RECEIPT, LAST4, DESCRIPTION)
STRIPE = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
          "Status", "Card Brand", "Card Last4", "Description", "orderId (metadata)"]  # fmt: skip


def _texts(path: Path) -> list[str]:
    """What a person or a program could read in a file we wrote: its bytes as text, a
    workbook's members, a PDF's extracted text, a SQLite database's every cell."""
    data = path.read_bytes()
    out = [data.decode("latin-1")]
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            out += [zf.read(n).decode("utf-8", "replace") for n in zf.namelist()]
    if data[:5] == b"%PDF-":
        with contextlib.suppress(Exception):  # a damaged one: its bytes were searched
            out += [p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages]
    if data[:16] == b"SQLite format 3\x00":
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'"):
                out += [repr(r) for r in db.execute(f'SELECT * FROM "{table}"')]
    return out


def _digits_found(texts: list[str]) -> set[str]:
    squeezed = [re.sub(r"[\s\-]", "", t) for t in texts]
    return {pan for pan in PANS for t in squeezed if pan in t}


@needs_ocr
def test_no_card_number_is_uploaded_sent_or_kept(sandbox_factory, tmp_path, monkeypatch, caplog):
    sb = sandbox_factory(rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(0, 0))
    text_pdf(inbox / "dp_test_0 customer email.pdf", [
        ["From: c0@example.com", "Date: 2026-10-20", "Subject: order #5000"],
        ["Please refund my card 4111 1111 1111 1111 (exp 12/28, CVV 123)."]])  # fmt: skip
    scan_png(inbox / "dp_test_1 chat.png", ["Customer: my card is 5555-5555-5555-4444",
                                             "Agent: please never send your card number"])  # fmt: skip
    text_pdf(inbox / "dp_test_2 receipt.pdf", [[
        "Receipt for order #5002", "Card: 3782 822463 10005  CVV 1234", "Total 28.50 USD"]])  # fmt: skip
    write_rows(inbox / "payments.csv", STRIPE, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", LAST4,
         "Order #5000", "5000"],
        ["ch_1", "2026-10-01 11:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "4242",
         "Refund to 6011 1111 1111 1117 please", "5001"],
    ])  # fmt: skip
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "Traceback" not in r.output, r.output

    snap = sb.snapshot()
    uploaded = [f["file_name"] for d in snap.values() for f in d["files"]]
    assert not [n for n in uploaded if "email" in n or "chat" in n or "receipt" in n], uploaded
    assert not _digits_found([repr(d["evidence"]) for d in snap.values()]), snap
    assert snap["dp_test_0"]["evidence_updates"] == 1  # the rest of the work went on

    problems = (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()
    for name, page in (("dp_test_0 customer email.pdf", "page 2"), ("dp_test_1 chat.png",
                        "page 1"), ("dp_test_2 receipt.pdf", "page 1")):  # fmt: skip
        assert f"shows a full card number ({page})" in problems and name in problems, problems
    assert "[card number ending 4242]" in problems and "[card number ending 1117]" in problems

    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    # the analyst's own files, moved (never copied) to archive/ and rejected/, are theirs
    ours = (".reason.txt",)
    dropped = {p for p in written if p.name == "payments.csv" or (p.name.startswith((
        "dp_test_0 customer", "dp_test_1 chat", "dp_test_2 receipt")) and not p.name.endswith(
        ours))}  # fmt: skip
    kept = [p for p in written if p not in dropped]
    assert any(".dispute-evidence" in str(p) for p in kept)  # the state and its caches
    leaks = {str(p.relative_to(tmp_path)): _digits_found(_texts(p)) for p in kept}
    assert {k: v for k, v in leaks.items() if v} == {}
    said = [r.output, *(rec.getMessage() for rec in caplog.records)]
    assert not _digits_found(said), said
    originals = [p for p in dropped if p.suffix in (".pdf", ".png")]  # untouched, set aside
    assert sorted(p.parent.name for p in originals) == ["rejected"] * 3, originals
    assert all(_digits_found(_texts(p)) for p in originals if p.suffix == ".pdf")
