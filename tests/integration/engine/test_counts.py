"""Counts from what happened (issue 29): uploads are what the API answered in this run, not
files an earlier run had already put there."""

from __future__ import annotations

import shutil

from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.settings import RunRequest, load_settings
from tests.conftest import TOKEN
from tests.integration.engine.test_review import run, setup  # noqa: F401


def _uploads(sb) -> int:
    return sb.requests_by_route().get("POST /v1/files/upload", 0)


def test_files_already_at_the_api_are_not_counted_as_uploaded(setup):  # noqa: F811
    sb, inbox = setup
    copy = inbox.parent / "copy"
    shutil.copytree(inbox, copy)  # the same drop, for a state that starts again
    first = run(sb, inbox)
    sent = _uploads(sb)
    assert first.counts["files_uploaded"] == sent > 0
    assert not default_state(copy).exists()  # a new state; the evidence is at the API already
    settings = load_settings(None)
    again = run_inbox(
        settings,
        RunRequest(inbox=copy, reconcile=True),
        api=settings.api_settings(base_url=sb.base_url, token=TOKEN),
    )
    assert _uploads(sb) == sent  # the API got no upload in this run
    assert again.counts["files_uploaded"] == 0
    assert again.counts["files_found_at_api"] > 0
    assert "file(s) uploaded" not in again.outcome and "already at the API" in again.outcome


def test_new_files_read_counts_each_sheet_and_each_evidence_file(setup):  # noqa: F811
    sb, inbox = setup
    sheets = [p for p in inbox.rglob("*") if p.suffix in (".csv", ".xlsx")]
    pdfs = [p for p in inbox.rglob("*.pdf")]
    assert sheets and pdfs
    copy = pdfs[0].read_bytes()  # read files are archived
    first = run(sb, inbox)
    assert first.counts["new_files"] == len(sheets) + len(pdfs)
    (inbox / "dp_test_1 receipt again.pdf").write_bytes(copy)  # same content
    (inbox / "dp_test_2 label.pdf").write_bytes(b"%PDF-1.4 a new label")
    second = run(sb, inbox)
    assert second.counts["new_files"] == 1  # one new content; the copy is not read again
    assert second.counts["repeated_files"] == 1  # the copy, used under its new name
