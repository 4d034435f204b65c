"""Reading evidence documents (documents/reading.py): PDF text and Tesseract OCR in a worker
process bounded in time and memory, facts per kind, read once (cached by content)."""

from __future__ import annotations

import os
import shutil
import time
from datetime import date

import pytest

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import (
    ReadLimits,
    ToRead,
    read_document,
    read_documents,
)
from support.docfixtures import hang_pdf, locked_pdf, memory_pdf, text_pdf

PDF = "application/pdf"


def tesseract_missing_reason() -> str | None:
    """Why the OCR tests cannot run here, or None. In CI (env CI set) a missing Tesseract is
    a failure, not a skip: .ci/run installs it."""
    if shutil.which("tesseract") and shutil.which("pdftoppm"):
        return None
    if os.environ.get("CI"):
        raise RuntimeError(
            "CI must have tesseract and pdftoppm (.ci/run installs them: apt-get install "
            "tesseract-ocr poppler-utils)"
        )
    return "Tesseract or pdftoppm is not installed (apt-get install tesseract-ocr poppler-utils)"


needs_ocr = pytest.mark.skipif(
    bool(tesseract_missing_reason()), reason=tesseract_missing_reason() or ""
)


def test_in_ci_a_missing_tesseract_fails_instead_of_skipping(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="apt-get install tesseract-ocr"):
        tesseract_missing_reason()
    monkeypatch.delenv("CI")
    assert "apt-get install tesseract-ocr" in (tesseract_missing_reason() or "")


def test_the_11_kb_pdf_that_hung_the_run_costs_its_budget_then_is_a_file_only(tmp_path):
    """Issue 30: two pages drawing a 990,000-operator form 5,000 times. pypdf alone runs for
    hours; the reader's worker is killed at its budget and the file is used as a file only."""
    pdf = hang_pdf(tmp_path / "carrier scan.pdf")
    assert pdf.stat().st_size < 12_000
    t0 = time.monotonic()
    facts = read_document(pdf, "carrier scan.pdf", PDF, limits=ReadLimits(seconds=1.5))
    took = time.monotonic() - t0
    assert took < 60, took  # a hang guard: pypdf alone runs for hours
    assert facts.read == "timeout"
    assert facts.note == (
        "not read: reading it took more than its 1.5 s reading budget; it is sent as a file only"
    )


def test_a_reader_over_its_memory_budget_is_stopped_not_the_run(tmp_path):
    pdf = memory_pdf(tmp_path / "big.pdf")
    facts = read_document(pdf, "big.pdf", PDF, limits=ReadLimits(seconds=60, memory_mb=128))
    assert facts.read == "timeout", facts  # its own address-space limit, not the clock (60 s)
    assert facts.note == (
        "not read: reading it took more than its 128 MB memory budget; it is sent as a file only"
    )


def test_a_password_protected_pdf_is_held_as_a_file_problem(tmp_path):
    pdf = locked_pdf(tmp_path / "5003 invoice.pdf", ["Invoice", "Order number: 5003"])
    facts = read_document(pdf, "5003 invoice.pdf", PDF)
    assert facts.read == "encrypted"
    assert facts.note.startswith("password-protected: no reviewer can open it")


def test_proof_of_delivery_gives_date_signer_address_and_identifiers(tmp_path):
    pdf = text_pdf(tmp_path / "scan_0007.pdf", [[
        "UPS Proof of Delivery", "Order number: 5003", "Tracking number: 1Z999AA10123456784",
        "Delivered on March 5, 2026 at 10:14", "Signed by: J. Smith",
        "Delivered to: 12 High Street, Springfield",
    ]])  # fmt: skip
    facts = read_document(pdf, "scan_0007.pdf", PDF)
    assert (facts.read, facts.kind, facts.pages) == ("text", "proof_of_delivery", 1)
    assert facts.order_numbers == ("5003",)
    assert facts.tracking_numbers == ("1Z999AA10123456784",)
    assert facts.delivery is not None
    assert facts.delivery.on == date(2026, 3, 5)
    assert facts.delivery.signed_by == "J. Smith"
    assert facts.delivery.address == "12 High Street, Springfield"
    assert facts.delivery.quote.text == "Delivered on March 5, 2026 at 10:14"
    assert facts.delivery.quote.page == 1


def test_policy_clause_is_quoted_with_its_page(tmp_path):
    pdf = text_pdf(tmp_path / "terms.pdf", [["Acme Boards"], [
        "Refund policy", "Items may be returned within 30 days of delivery for a full refund.",
    ]])  # fmt: skip
    facts = read_document(pdf, "terms.pdf", PDF)
    assert facts.kind == "policy" and facts.pages == 2
    assert facts.policy_clause is not None and facts.policy_clause.page == 2
    # the clause alone, not run together with the title line above it ("Refund policy Items…")
    assert facts.policy_clause.text == (
        "Items may be returned within 30 days of delivery for a full refund."
    )


@pytest.mark.parametrize(
    ("lines", "clause"),
    [
        (["Acme Box subscription terms", "Cancel any time before the 1st of the month."],
         "Cancel any time before the 1st of the month."),
        (["Refunds are issued to", "Visa cards within 5 days."],  # one sentence, wrapped
         "Refunds are issued to Visa cards within 5 days."),
    ],
)  # fmt: skip
def test_a_policy_title_line_is_not_quoted_as_part_of_the_clause(lines, clause):
    found = doctext.facts(DocumentFacts("terms.pdf", "", "policy", "text"), ["\n".join(lines)])
    assert found.policy_clause is not None and found.policy_clause.text == clause


def test_communication_gives_dated_messages_quoted(tmp_path):
    pdf = text_pdf(tmp_path / "1043 emails.pdf", [[
        "From: Dana Customer <dana@example.com>", "Date: 2026-03-07", "Subject: Re: order 5003",
        "The board is fine, I just changed my mind.",
        "From: Acme Support", "Date: March 8, 2026", "We can take it back within 30 days.",
    ]])  # fmt: skip
    facts = read_document(pdf, "1043 emails.pdf", PDF)
    assert facts.kind == "communication"
    first, second = facts.messages
    assert first.on == date(2026, 3, 7) and first.author == "Dana Customer <dana@example.com>"
    assert first.quote.text == "The board is fine, I just changed my mind."
    assert second.on == date(2026, 3, 8) and second.author == "Acme Support"


def test_receipt_gives_order_number_and_amount(tmp_path):
    pdf = text_pdf(tmp_path / "receipt.pdf", [[
        "Receipt", "Order #5003", "Board  x1   120.00", "Total: EUR 129.90",
    ]])  # fmt: skip
    facts = read_document(pdf, "receipt.pdf", PDF)
    assert facts.kind == "receipt" and facts.order_numbers == ("5003",)
    assert facts.amount == (129.90, "EUR")


def test_a_file_is_read_once_then_comes_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    pdf = text_pdf(tmp_path / "a.pdf", [["Order number: 7001"]])
    item = ToRead(pdf, "a.pdf", PDF, "ab" * 32)
    first = read_documents([item], cache=cache)[item.sha256]
    assert first.order_numbers == ("7001",)
    assert (cache / f"{item.sha256}.json").exists()
    pdf.unlink()  # not there to read: the answer can only come from the cache
    renamed = ToRead(pdf, "b.pdf", PDF, item.sha256)
    again = read_documents([renamed], cache=cache)[item.sha256]
    assert again.order_numbers == ("7001",) and again.name == "b.pdf"


def test_many_files_are_read_on_two_workers_and_a_bad_one_spoils_nothing(tmp_path):
    items = []
    for i in range(6):
        pdf = text_pdf(tmp_path / f"{i}.pdf", [[f"Order number: {8000 + i}"]])
        items.append(ToRead(pdf, pdf.name, PDF, f"{i:064d}"))
    bad = hang_pdf(tmp_path / "bad.pdf")
    items.insert(2, ToRead(bad, "bad.pdf", PDF, "f" * 64))
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.4\n" + b"\x00garbage" * 50)
    items.append(ToRead(junk, "junk.pdf", PDF, "e" * 64))
    out = read_documents(items, ReadLimits(seconds=1.5, workers=2))
    assert out["f" * 64].read == "timeout"
    assert out["e" * 64].read in ("text", "unreadable")
    assert [out[f"{i:064d}"].order_numbers for i in range(6)] == [
        (str(8000 + i),) for i in range(6)
    ]


@pytest.mark.parametrize(
    "body", ['{"reader": "x"}', "[]", '{"reader": "%s", "facts": []}', "not json", ""]
)
def test_a_damaged_or_planted_cache_entry_is_read_again(tmp_path, body):
    from dispute_evidence.documents.reading import READER

    cache = tmp_path / "cache"
    cache.mkdir()
    pdf = text_pdf(tmp_path / "a.pdf", [["Order number: 7002"]])
    item = ToRead(pdf, "a.pdf", PDF, "d" * 64)
    (cache / f"{item.sha256}.json").write_text(body.replace("%s", READER))
    assert read_documents([item], cache=cache)[item.sha256].order_numbers == ("7002",)


def test_the_worker_answers_with_facts_and_keeps_them_the_text_never_comes_back(tmp_path):
    """The worker finds the facts and writes the cache itself (both cores do that work): what
    crosses the pipe to the run is the facts, with a card number in the text covered; the
    text itself, and the number, never."""
    import json
    import subprocess
    import sys
    from dataclasses import asdict

    from dispute_evidence.documents.reading import PACKAGE_ROOT, WORKER

    pdf = text_pdf(tmp_path / "5003 email.pdf", [["From: ann@example.com", "Date: 2026-10-09",
                   "Order number: 5003", "Please refund my card 4111 1111 1111 1111."]])  # fmt: skip
    cache = tmp_path / "cache"
    cache.mkdir()
    limits = ReadLimits(tesseract=None, pdftoppm=None)
    request = {**limits.request(pdf, PDF), "limits": asdict(limits), "cache": str(cache),
               "name": pdf.name, "sha256": "c" * 64}  # fmt: skip
    worker = [sys.executable, "-I", str(WORKER), "1024", str(PACKAGE_ROOT)]
    out = subprocess.run(worker, input=json.dumps(request) + "\n", capture_output=True,
                         text=True, timeout=60, check=True).stdout  # fmt: skip
    answer = json.loads(out)
    assert answer["read"] == "text" and "texts" not in answer
    assert answer["facts"]["order_numbers"] == ["5003"]
    assert answer["facts"]["card_pages"] == [1]  # held by the run as a file problem
    assert "4111" not in out and "1111 1111" not in out
    kept = (cache / f"{'c' * 64}.json").read_text()
    assert "5003" in kept and "1111 1111" not in kept


def test_a_few_files_are_read_by_one_worker_process_not_one_per_core(tmp_path, monkeypatch):
    """A small inbox (a merchant of a platform's night: 1-3 disputes) starts one reading
    process, not `workers` of them: each is a Python interpreter, ~0.1 s of CPU to start
    (issue 48: 10,000 merchants a night). More files than a worker is kept ahead start more."""
    from dispute_evidence.documents import reading

    started: list[object] = []

    class Counted(reading._Worker):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)  # type: ignore[arg-type]
            started.append(self)

    monkeypatch.setattr(reading, "_Worker", Counted)
    items = []
    for i in range(3 * reading.PIPELINE):
        pdf = text_pdf(tmp_path / f"{i}.pdf", [[f"Order number: {9000 + i}"]])
        items.append(ToRead(pdf, pdf.name, PDF, f"{i:064d}"))
    out = read_documents(items[:3], ReadLimits(workers=2))
    assert len(started) == 1 and [out[f"{i:064d}"].order_numbers for i in range(3)] == [
        (str(9000 + i),) for i in range(3)
    ]
    started.clear()
    out = read_documents(items, ReadLimits(workers=2))
    assert len(started) == 2 and len(out) == len(items)
