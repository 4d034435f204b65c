"""Matching a file to its dispute by what its text names (documents/files.py), with the real
reader (documents/reading.py) on PDFs made here."""

from __future__ import annotations

from dispute_evidence.documents.files import match_evidence_files
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from support.docfixtures import locked_pdf, text_pdf

DISPUTES = {"dp_a": "#5000", "dp_b": "5001", "dp_c": "5002"}
TRACKING = {"1Z000002": {"dp_c"}}


def _reader(files):
    items = [ToRead(f.path, f.path.name, f.mime, f.sha256) for f in files]
    return read_documents(items, ReadLimits(seconds=10))


def _match(tmp_path, *docs):
    paths = [text_pdf(tmp_path / name, [lines]) for name, lines in docs]
    return match_evidence_files(paths, tmp_path, DISPUTES, read=_reader, tracking=lambda: TRACKING)


def test_each_identifier_of_one_dispute_matches_it_and_says_which(tmp_path):
    matches, issues = _match(
        tmp_path,
        ("scan_1.pdf", ["Order #5000"]),  # the list says '#5000': the same order
        ("scan_2.pdf", ["Re: dispute dp_b, order number 5001"]),
        ("scan_3.pdf", ["Tracking number: 1z000002"]),  # case does not matter
    )
    assert issues == []
    how = {f.label: (pid, f.matched) for pid, fs in matches.items() for f in fs}
    assert how == {
        "scan_1.pdf": ("dp_a", "content: names order 5000"),
        "scan_2.pdf": ("dp_b", "content: names dispute dp_b, order 5001"),
        "scan_3.pdf": ("dp_c", "content: names tracking number 1Z000002"),
    }


def test_a_text_naming_two_disputes_matches_neither_and_says_both(tmp_path):
    matches, issues = _match(tmp_path, ("scan_9.pdf", ["Order #5000", "Tracking 1Z000002"]))
    assert matches == {}
    assert [i.reason for i in issues] == [
        "its text names 2 disputes: dp_a (order 5000); dp_c (tracking number 1Z000002); "
        "not matched: rename it to name one"
    ]


def test_the_name_wins_over_the_text_and_a_number_in_passing_is_not_an_order(tmp_path):
    matches, issues = _match(
        tmp_path,
        ("dp_b notes.pdf", ["Order #5000"]),  # named for dp_b: it is dp_b's
        ("scan_4.pdf", ["Unit 5001, 12 High Street"]),  # 5001 is no order number here
    )
    assert [(f.label, f.matched) for f in matches["dp_b"]] == [("dp_b notes.pdf", "name")]
    assert list(matches) == ["dp_b"]
    assert issues[0].label == "scan_4.pdf" and issues[0].reason.startswith("matches no dispute")


def test_a_locked_pdf_is_a_file_problem_of_its_dispute(tmp_path):
    locked = locked_pdf(tmp_path / "dp_a invoice.pdf", ["Invoice"])
    matches, issues = match_evidence_files([locked], tmp_path, DISPUTES, read=_reader)
    assert matches == {}
    assert issues[0].dispute == "dp_a" and issues[0].reason.startswith("password-protected")


def test_without_a_reader_files_match_by_name_only(tmp_path):
    pdf = text_pdf(tmp_path / "scan_5.pdf", [["Order #5000"]])
    matches, issues = match_evidence_files([pdf], tmp_path, DISPUTES)
    assert matches == {} and issues[0].reason.startswith("matches no dispute")


def test_an_unmatched_damaged_file_says_not_read_once(tmp_path):
    (tmp_path / "scan_7.pdf").write_bytes(b"%PDF-1.4\nnot a real pdf")
    paths = [tmp_path / "scan_7.pdf"]
    matches, issues = match_evidence_files(
        paths, tmp_path, DISPUTES, read=_reader, tracking=lambda: TRACKING
    )
    assert matches == {}
    (issue,) = issues
    assert "(its text was not read: damaged" in issue.reason
    assert "not read: not read" not in issue.reason
