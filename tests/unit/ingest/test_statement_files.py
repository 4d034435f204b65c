"""A merchant's statement dropped into the untrusted inbox as a text file (issue 37 item 4):
taken by its name, size-checked before a byte is read, read as UTF-8 or refused with one
line, never through a link."""

from __future__ import annotations

import os

from dispute_evidence.ingest import ingest_file, scan_inbox
from dispute_evidence.ingest.statements import MAX_STATEMENT_BYTES, statement_key


def test_statement_files_are_named_for_an_order_or_a_dispute():
    assert statement_key("1036 statement.txt") == "1036"
    assert statement_key("#1036 Merchant Statement.md") == "1036"
    assert statement_key("dp_1QfB2m_statement.txt") == "dp_1QfB2m"
    assert statement_key("statement.txt") == "" and statement_key("1036 statement.pdf") == ""


def test_the_inbox_takes_statements_and_says_why_other_text_files_are_not_read(tmp_path):
    (tmp_path / "1036 statement.md").write_text("Why no refund is owed.", encoding="utf-8")
    (tmp_path / "notes.md").write_text("internal", encoding="utf-8")
    (tmp_path / "elsewhere.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "elsewhere.txt", tmp_path / "1037 statement.txt")
    sheets, _, skipped = scan_inbox(tmp_path)
    assert [p.name for p in sheets] == ["1036 statement.md", "elsewhere.txt"]
    why = dict(skipped)
    assert why["1037 statement.txt"].startswith("symbolic link: not followed")
    assert why["notes.md"] == (
        "a text file not read: for a statement, name it '<order number or dispute id> "
        "statement.txt' (or .md)"
    )


def test_a_statement_not_in_utf8_is_refused_with_one_line_saying_how_to_save_it(tmp_path):
    path = tmp_path / "1036 statement.txt"
    path.write_bytes("Le colis a été livré.".encode("cp1252"))
    tables, rejects, summaries = ingest_file(path, path.name)
    assert tables == []
    assert [r.line() for r in rejects] == [
        "1036 statement.txt: merchant statement: not UTF-8 text (byte 12 is not): save it as "
        "UTF-8 (Notepad: Save as, Encoding UTF-8) and drop it again"
    ]
    assert summaries[0].problem == rejects[0].reason


def test_an_oversized_statement_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "1036 statement.txt"
    with path.open("wb") as fh:  # sparse: its size says it all, and it is never read
        fh.truncate(MAX_STATEMENT_BYTES + 1)
    tables, rejects, _ = ingest_file(path, path.name)
    assert tables == [] and "is over the 127 KB a statement may hold" in rejects[0].reason


def test_a_statement_is_one_record_for_its_order_and_dispute_key(tmp_path):
    path = tmp_path / "#1036 statement.txt"
    path.write_text("\ufeffNo return reached us.\r\n", encoding="utf-8")
    tables, rejects, _ = ingest_file(path, path.name)
    assert rejects == []
    [(kind, frame)] = tables
    assert kind == "statements"
    assert frame[["provider_dispute_id", "order_number", "statement"]].values.tolist() == [
        ["1036", "1036", "No return reached us."]
    ]
