"""Card numbers the detector did not recognise (issue 45, items 5 and 6, critical; PCI DSS): a
PAN in an evidence file's name, split over two lines of a customer's e-mail, written with
no-break spaces, dots, double spaces, tabs or a line break in a statement, with no-break
spaces in a product description, in a receipt PDF's metadata and in a photo's EXIF. Each is
planted on its own, the real CLI runs against the local API over loopback, and then every
request the API stored (evidence JSON, file names, file bytes, PDF text and metadata), the
state, the documents cache, every report file and every PDF's text are searched for the
number, whatever stands between its digits."""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter

from support.docfixtures import text_pdf
from tests.integration.flows.test_case_wins import _inbox, _rows
from tests.integration.flows.test_product_as_sold import HEADER
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

PAN = "4539148803436467"  # Visa, passes Luhn
SPACED = "4539 1488 0343 6467"
NBSP, THIN, NARROW = "\u00a0", "\u2009", "\u202f"


def _texts(data: bytes) -> list[str]:
    """What a person or a program can read in bytes we wrote or sent: the bytes as text, a
    workbook's members, a PDF's text and metadata (Info and XMP), a SQLite database's cells."""
    out = [data.decode("latin-1"), data.decode("utf-8", "replace")]
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            out += [zf.read(n).decode("utf-8", "replace") for n in zf.namelist()]
    if data[:5] == b"%PDF-":
        with contextlib.suppress(Exception):
            reader = PdfReader(io.BytesIO(data))
            out += [p.extract_text() or "" for p in reader.pages]
            out += [str(v) for v in (reader.metadata or {}).values()]
            if (xmp := reader.root_object.get("/Metadata")) is not None:
                out.append(xmp.get_object().get_data().decode("latin-1"))
    return out


def _db_texts(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [repr(r) for t in tables for r in db.execute(f'SELECT * FROM "{t}"')]


def _shows(texts: list[str]) -> list[str]:
    """The texts that show the PAN, whatever stands between its digits."""
    return [t[:200] for t in texts if PAN in re.sub(r"\D", "", t)]


def _leaks(sb, tmp_path: Path, originals: set[str]) -> dict[str, list[str]]:
    """Where the PAN shows: the API's stored evidence, file names and files; every file the
    run wrote (the state, its caches, the reports) but the analyst's own inputs, moved."""
    found: dict[str, list[str]] = {}
    snap = sb.snapshot()
    found["api evidence"] = _shows([repr(d["evidence"]) for d in snap.values()])
    rows = sb.call(lambda s: s._db.execute("SELECT file_name, content FROM files").fetchall())
    found["api file names"] = _shows([str(r[0]) for r in rows])
    for name, content in rows:
        found[f"api file {name}"] = _shows(_texts(bytes(content)))
    for p in tmp_path.rglob("*"):
        if not p.is_file() or p.name in originals:
            continue
        data = p.read_bytes()
        texts = _db_texts(p) if data[:16] == b"SQLite format 3\x00" else _texts(data)
        found[str(p.relative_to(tmp_path))] = _shows(texts)
    return {k: v for k, v in found.items() if v}


def _problems(tmp_path: Path) -> str:
    return (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()


def _uploaded(sb, pid: str) -> list[str]:
    return [f["file_name"] for f in sb.snapshot()[pid]["files"]]


def test_a_card_number_in_an_evidence_file_name_is_covered_everywhere(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["general"])
    name = f"dp_test_0 receipt {SPACED}.pdf"
    text_pdf(inbox / name, [["Receipt for order #5000", "Total 129.00 USD"]])
    run_cli("--inbox", str(inbox))
    # used (its content is clean), under its name with the number covered
    assert "dp_test_0 receipt [card number ending 6467].pdf" in _uploaded(sb, "dp_test_0")
    assert _leaks(sb, tmp_path, {name}) == {}


def test_a_card_number_split_over_two_lines_of_an_email_is_held(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_not_received"])
    name = "dp_test_0 customer email.pdf"
    text_pdf(
        inbox / name,
        [
            [
                "From: c0@example.com",
                "Date: 2026-10-20",
                "Subject: order #5000",
                "I never got it. Please refund it on my card 4539 1488",
                "0343 6467 (exp 12/28, CVV 123). Thanks",
            ]
        ],
    )
    run_cli("--inbox", str(inbox))
    assert not [n for n in _uploaded(sb, "dp_test_0") if "email" in n]
    problems = _problems(tmp_path)
    assert name in problems and "shows a full card number (page 1)" in problems, problems
    assert _leaks(sb, tmp_path, {name}) == {}


STATEMENTS = [
    f"We refunded nothing: the customer paid with {NBSP.join(SPACED.split())} and kept it.",
    f"Paid by card {'.'.join(SPACED.split())}; delivered 2026-10-05.",
    f"Card on file {'  '.join(SPACED.split())} was charged once.",
    f"Card\t{chr(9).join(SPACED.split())}\twas charged once.",
    "The customer wrote their card 4539 1488 03\n43 6467 in the order note; we never used it.",
    f"Thin {THIN.join(SPACED.split())} and narrow {NARROW.join(SPACED.split())} spaces.",
]


def test_a_card_number_written_otherwise_in_a_statement_is_covered(
    sandbox_factory, tmp_path, monkeypatch
):
    n = len(STATEMENTS)
    sb = sandbox_factory(rows=_rows(n))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["general"] * n)
    header = ["provider_dispute_id", "order_number", "reason", "amount", "currency", "Statement"]
    write_rows(
        inbox / "disputes.csv",
        header,
        [
            [f"dp_test_{i}", f"#{5000 + i}", "general", 129.0, "USD", s]
            for i, s in enumerate(STATEMENTS)
        ],
    )
    run_cli("--inbox", str(inbox))
    snap = sb.snapshot()
    for i in range(n):  # the statement is still sent, the number covered
        said = snap[f"dp_test_{i}"]["evidence"]["additional_evidence"]["merchant_statement"]["text"]
        assert "[card number ending 6467]" in said, (i, said)
    assert _leaks(sb, tmp_path, {"disputes.csv"}) == {}


def test_a_card_number_with_no_break_spaces_in_a_product_description_is_covered(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"])
    write_rows(
        inbox / "orders.csv",
        [
            "order_number",
            "product_title",
            "sku",
            "price",
            "quantity",
            "currency_code",
            "customer_email",
            "order_date",
        ],
        [[5000, "Skateboard deck", "SKB-825", "129", 1, "USD", "a@x.com", "2026-10-01"]],
    )
    body = f"<p>Maple deck. Test card {NBSP.join(SPACED.split())} used for the demo.</p>"
    cells = {
        "Handle": "deck",
        "Title": "Skateboard deck",
        "Body (HTML)": body,
        "Variant SKU": "SKB-825",
        "Variant Price": "129.00",
        "Status": "active",
    }
    write_rows(inbox / "products_export_1.csv", HEADER, [[cells.get(h, "") for h in HEADER]])
    run_cli("--inbox", str(inbox))
    sold = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["products_as_sold"]
    assert "[card number ending 6467]" in sold[0]["description"], sold
    assert _leaks(sb, tmp_path, {"products_export_1.csv"}) == {}


def _receipt_with_metadata(path: Path) -> None:
    text_pdf(path, [["Receipt for order #5000", "Total 129.00 USD"]])
    writer = PdfWriter(clone_from=PdfReader(path))
    writer.add_metadata(
        {
            "/Title": f"Receipt {SPACED}",
            "/Subject": f"card {PAN}",
            "/Keywords": f"visa, {'.'.join(SPACED.split())}",
        }
    )
    with path.open("wb") as fh:
        writer.write(fh)


def _photo_with_exif(path: Path) -> None:
    image = Image.new("RGB", (60, 40), (200, 150, 90))
    exif = image.getexif()
    exif[0x010E] = f"Parcel left at the door, card {SPACED}"  # ImageDescription
    exif.get_ifd(0x8769)[0x9286] = b"ASCII\x00\x00\x00" + PAN.encode()  # UserComment
    image.save(path, "JPEG", exif=exif)


@pytest.mark.parametrize(
    ("name", "make", "fields"),
    [
        ("dp_test_0 receipt.pdf", _receipt_with_metadata, "Keywords, Subject, Title"),
        ("dp_test_0 doorstep photo.jpg", _photo_with_exif, "EXIF (raw), ImageDescription"),
    ],
)
def test_a_file_whose_metadata_holds_a_card_number_is_held(
    sandbox_factory, tmp_path, monkeypatch, name, make, fields
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_not_received"])
    make(inbox / name)
    run_cli("--inbox", str(inbox))
    assert name not in _uploaded(sb, "dp_test_0")
    problems = _problems(tmp_path)
    assert name in problems and f"its metadata: {fields}" in problems, problems
    assert _leaks(sb, tmp_path, {name}) == {}
