"""Evidence documents read and matched by what they say (issue 27 finding 8; issue 30's hung
run and password-protected PDF): the real CLI against the sandbox, over loopback."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.problems import ProblemKind
from dispute_evidence.reports.wording import HEADING
from support.docfixtures import hang_pdf, locked_pdf, scan_png, text_pdf
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox
from tests.unit.evidence.test_reading import needs_ocr

MATCHED = HEADING[ProblemKind.EVIDENCE_MATCHED_BY_CONTENT]
NOT_READ = HEADING[ProblemKind.DOCUMENT_NOT_READ]


def _run(inbox) -> str:
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "Traceback" not in r.output, r.output
    return r.output


def _api(sb, monkeypatch) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__SUMMARY_PDF", "false")


def _uploaded(sb, pid: str) -> list[str]:
    return sorted(f["file_name"] for f in sb.snapshot()[pid].get("files", []))


def _problems(tmp_path) -> pd.DataFrame:
    folder = tmp_path / "inbox.reports" / "latest"
    return pd.read_csv(folder / "problems.csv", dtype=str).fillna("")


def _inbox(tmp_path, n: int):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, n, files=(0, 0))  # orders #5000.., tracking 1Z000000..; no named files
    return inbox


def test_a_scan_named_by_no_dispute_goes_to_the_one_its_text_names(
    sandbox_factory, tmp_path, monkeypatch
):
    """Finding 8: `scan_0007.pdf` whose text gives an order number and that order's tracking
    number was "matches no dispute"; now it goes to that dispute, and the report says how."""
    sb = sandbox_factory(rows=seed_rows(3))
    _api(sb, monkeypatch)
    inbox = _inbox(tmp_path, 3)
    text_pdf(inbox / "scan_0007.pdf", [[
        "Proof of Delivery", "Order number: 5001", "Tracking number: 1Z000001",
        "Delivered on 2026-03-05", "Signed by: C. One",
    ]])  # fmt: skip
    text_pdf(inbox / "scan_0008.pdf", [["Orders 5000 and 5002", "Order #5000", "Order #5002"]])
    dry = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    preview = next(p for p in (tmp_path / "inbox.reports").iterdir() if p.name != "latest")
    matches = pd.read_csv(preview / "file_matches.csv", dtype=str).fillna("")
    assert matches.values.tolist() == [
        ["dp_test_1", "scan_0007.pdf", "content: names order 5001, tracking number 1Z000001"]
    ]
    out = _run(inbox)
    assert _uploaded(sb, "dp_test_1") == ["scan_0007.pdf"]
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_2") == []  # ambiguous: neither
    problems = _problems(tmp_path)
    by_content = problems.loc[problems["problem_kind"] == MATCHED]
    assert by_content["problem"].tolist() == [
        "matched to dp_test_1: its text names order 5001, tracking number 1Z000001"
    ]
    ambiguous = problems.loc[problems["file"] == "scan_0008.pdf", "problem"].tolist()
    assert ambiguous == [
        "its text names 2 disputes: dp_test_0 (order 5000); dp_test_2 (order 5002); "
        "not matched: rename it to name one"
    ]
    disputes = pd.read_csv(tmp_path / "inbox.reports" / "latest" / "disputes.csv", dtype=str)
    row = disputes.fillna("").set_index("Dispute").loc["dp_test_1"]
    assert row["File problems"] == ""  # a file matched by its text is no file problem
    assert "3 sent · 1 file(s) uploaded · 1 need you" in out  # scan_0008.pdf; the match informs
    page = (tmp_path / "inbox.reports" / "latest" / "summary.html").read_text()
    assert "matched by content: names order 5001, tracking number 1Z000001" in page


@needs_ocr
def test_a_photo_is_read_by_ocr_and_goes_to_the_dispute_it_names(
    sandbox_factory, tmp_path, monkeypatch
):
    """Finding 8's `IMG_1234.jpg`: a photo of a delivery slip naming a tracking number."""
    sb = sandbox_factory(rows=seed_rows(3))
    _api(sb, monkeypatch)
    inbox = _inbox(tmp_path, 3)
    scan_png(inbox / "IMG_1234.jpg", ["Delivery slip", "Tracking number 1Z000002"])
    _run(inbox)
    assert _uploaded(sb, "dp_test_2") == ["IMG_1234.jpg"]
    what = _problems(tmp_path).set_index("file").loc["IMG_1234.jpg", "problem"]
    assert what == "matched to dp_test_2: its text names tracking number 1Z000002"


def test_a_pdf_that_hangs_its_reader_is_sent_as_a_file_with_one_line(
    sandbox_factory, tmp_path, monkeypatch
):
    """Issue 30: an 11 KB PDF hung the run for hours (and every later run, holding the lock).
    Its reading is cut at the budget; it is sent as a file only, with one plain line; the
    next run does not read it again; the disputes beside it go, each once."""
    import time

    sb = sandbox_factory(rows=seed_rows(3))
    _api(sb, monkeypatch)
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__READ_SECONDS", "1.5")
    inbox = _inbox(tmp_path, 3)
    hang_pdf(inbox / "dp_test_0 carrier scan.pdf")
    started = time.monotonic()
    first = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert time.monotonic() - started < 120  # a hang, not a speed target: it was hours
    assert first.exit_code == 0, first.output  # a file sent as it is needs no one
    assert "Traceback" not in first.output, first.output
    assert "3 sent · 1 file(s) uploaded · nothing needs you" in first.output, first.output
    assert _uploaded(sb, "dp_test_0") == ["dp_test_0 carrier scan.pdf"]
    line = "not read: reading it took more than its 1.5 s reading budget; it is sent as a file only"
    row = _problems(tmp_path).set_index("problem_kind").loc[NOT_READ]
    assert (row["file"], row["problem"]) == ("dp_test_0 carrier scan.pdf", line)
    summary = (tmp_path / "inbox.reports" / "latest" / "summary.txt").read_text()
    assert line in summary, summary
    cached = list((inbox / ".dispute-evidence" / "documents").glob("*.json"))
    assert len(cached) == 1  # read once: a nightly run never pays for it again
    read_at = cached[0].stat().st_mtime_ns

    # A second run with a budget 20 times longer: were the file read again, it would take
    # 30 s and its line would name the 30 s budget; the cached answer still names 1.5 s.
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__READ_SECONDS", "30")
    started = time.monotonic()
    second = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert time.monotonic() - started < 120
    assert second.exit_code == 0, second.output
    assert "0 sent · nothing needs you" in second.output, second.output
    assert _problems(tmp_path).set_index("problem_kind").loc[NOT_READ, "problem"] == line
    assert cached[0].stat().st_mtime_ns == read_at
    ledger = {pid: d["evidence_updates"] for pid, d in sb.snapshot().items()}
    assert ledger == {"dp_test_0": 1, "dp_test_1": 1, "dp_test_2": 1}  # each once, in all


def test_a_password_protected_pdf_is_held_as_a_file_problem_and_the_rest_goes(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    _api(sb, monkeypatch)
    inbox = _inbox(tmp_path, 2)
    locked_pdf(inbox / "dp_test_0 invoice.pdf", ["Invoice", "Order #5000"])
    text_pdf(inbox / "dp_test_1 invoice.pdf", [["Invoice", "Order #5001", "Total: 20.00 USD"]])
    out = _run(inbox)
    assert "2 sent" in out, out
    assert _uploaded(sb, "dp_test_0") == []
    assert _uploaded(sb, "dp_test_1") == ["dp_test_1 invoice.pdf"]
    row = _problems(tmp_path).set_index("file").loc["dp_test_0 invoice.pdf"]
    assert row["problem_kind"] == HEADING[ProblemKind.EVIDENCE_FILE_REJECTED]
    assert row["problem"].startswith("password-protected: no reviewer can open it")
    assert (inbox / "rejected" / "dp_test_0 invoice.pdf").exists()  # kept, with its reason


def test_without_tesseract_a_photo_still_goes_and_the_report_says_it_was_not_read(
    sandbox_factory, tmp_path, monkeypatch
):
    import shutil

    sb = sandbox_factory(rows=seed_rows(1))
    _api(sb, monkeypatch)
    inbox = _inbox(tmp_path, 1)
    scan_png(inbox / "dp_test_0 slip.png", ["Delivered 2026-03-02"])
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "tesseract" else which(name))
    out = _run(inbox)
    assert "1 sent" in out, out
    assert _uploaded(sb, "dp_test_0") == ["dp_test_0 slip.png"]
    line = _problems(tmp_path).set_index("problem_kind").loc[NOT_READ, "problem"]
    assert line.startswith("not read: it is an image or a scan and Tesseract is not installed")
