"""An API that misbehaves never hangs, kills or misleads a run (issue 39, items 9, 11 and 12):
the real CLI against the local API, told to misbehave by a test-only SandboxConfig switch."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN, seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox

pytestmark = pytest.mark.timeout(90)  # before the fix, item 9's run never ended


def test_item_9_a_file_listing_that_never_ends_is_cut_said_once_and_the_run_goes_on(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), endless_files=True), rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(1, 1))
    out = run_cli("--inbox", str(inbox), "--reconcile")  # each file checked before uploading
    lists = sb.requests_by_route().get("GET /v1/files", 0)
    assert 0 < lists <= 2 * 20, lists  # bounded per dispute (a hard cap of 20 pages), not endless
    said = [line for line in out.splitlines() if "file listing" in line and "did not end" in line]
    assert len(said) == 2, out  # one line per dispute
    assert all("not uploaded again" in line for line in said), said
    snap = sb.snapshot()
    # the rest of the run went on: each dispute's evidence went; no file was sent blindly
    assert [snap[f"dp_test_{i}"]["evidence_updates"] for i in range(2)] == [1, 1]
    sent = [f["file_name"] for i in range(2) for f in snap[f"dp_test_{i}"]["files"]]
    assert not [name for name in sent if "proof" in name], sent  # the files checked first
    summary = (tmp_path / "inbox.reports" / "latest" / "summary.txt").read_text()
    assert summary.count("did not end") == 2, summary  # the report names each file held back


def test_item_11_b_a_dispute_listing_that_never_shows_ours_is_left_for_reads_by_id(
    sandbox_factory, tmp_path, monkeypatch, caplog
):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), hidden_disputes=True), rows=seed_rows(3))
    use_sandbox(sb, monkeypatch)
    monkeypatch.delenv("DISPUTE_EVIDENCE_READBACK__ENABLED")  # each run reads back
    # a read share of 30 requests a run (spent within seconds, not an hour)
    monkeypatch.setenv("DISPUTE_API_RATE_LIMIT_PER_HOUR", "300")
    monkeypatch.setenv("DISPUTE_API_RATE_LIMIT_PERIOD", "10")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3, files=(1, 1))
    run_cli("--inbox", str(inbox))
    assert [d["evidence_updates"] for d in sb.snapshot().values()] == [1, 1, 1]
    first = sb.requests_by_route().get("GET /v1/disputes", 0)
    # the key's proof, then twice (does the API hold evidence? its views of ours?) never more
    # pages than reading each dispute would cost: 1 + 2 x 3, where it read the whole share
    assert first <= 1 + 2 * 3, first

    for i in range(3):  # something new for each: its status must be read before it goes
        (inbox / "proofs" / f"dp_test_{i}_extra.pdf").write_bytes(b"%PDF-1.4\n" + b"x" * 99)
    before = sb.requests_by_route()
    caplog.clear()
    run_cli("--inbox", str(inbox))
    after = sb.requests_by_route()
    pages = after.get("GET /v1/disputes", 0) - before.get("GET /v1/disputes", 0)
    by_id = after["GET /v1/disputes/{dispute_id}"] - before.get("GET /v1/disputes/{dispute_id}", 0)
    assert pages <= 1 + 3, pages  # the run's first request, then 3: not the whole read share
    assert by_id == 3, by_id  # each read by its id instead
    said = [r.getMessage() for r in caplog.records if "read by id" in r.getMessage()]
    assert len(said) == 1 and "not in the API's dispute listing" in said[0], said
    snap = sb.snapshot()
    assert all(
        any("extra" in f["file_name"] for f in snap[f"dp_test_{i}"]["files"]) for i in range(3)
    ), snap  # and what was new was sent


def _run(*args: str):
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r


def test_item_11_c_a_login_page_for_an_answer_stops_the_run_in_one_line(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    monkeypatch.delenv("DISPUTE_EVIDENCE_READBACK__ENABLED")  # each run reads back
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(1, 1))
    assert _run("--inbox", str(inbox)).exit_code == 0
    sent = [len(d["files"]) for d in sb.snapshot().values()]

    sb.config.html_reads = True  # a proxy now answers every read with its login page
    for i in range(2):
        (inbox / "proofs" / f"dp_test_{i}_extra.pdf").write_bytes(b"%PDF-1.4\n" + b"x" * 99)
    r = _run("--inbox", str(inbox))
    assert r.exit_code == 4, r.output  # stopped cleanly: the API could not be reached
    said = [line for line in r.stderr.splitlines() if "text/html" in line]
    assert len(said) == 1, r.stderr
    assert "Sign in" in said[0] and "DISPUTE_API_BASE_URL" in said[0], said
    assert [len(d["files"]) for d in sb.snapshot().values()] == sent  # nothing sent blindly

    fresh = tmp_path / "other" / "inbox"  # a state meeting this API for the first time
    make_inbox(fresh, 1)
    r = _run("--inbox", str(fresh))
    assert r.exit_code == 4 and "text/html" in r.stderr and "Nothing was sent" in r.stderr, r.output


def test_item_11_d_an_evidence_answer_naming_another_dispute_is_never_recorded(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))  # dp_test_0 alone first
    assert _run("--inbox", str(inbox)).exit_code == 0
    theirs = sb.snapshot()["dp_test_0"]["dispute_id"]

    sb.config.answer_dispute_id = theirs  # a broken API: each answer names dp_test_0's id
    make_inbox(inbox, 2, files=(0, 0))  # dp_test_1 joins
    r = _run("--inbox", str(inbox))
    said = [line for line in r.output.splitlines() if theirs in line and "dp_test_0" in line]
    assert said and all("dp_test_1" in line for line in said), r.output
    table = latest_disputes(tmp_path)
    assert table.loc["dp_test_1", "API dispute id"] != theirs, table.loc["dp_test_1"].to_dict()
    assert table.loc["dp_test_0", "API dispute id"] == theirs

    sb.config.answer_dispute_id = ""
    sb.move("dp_test_0", "lost")  # that one ends: the other must not end with it
    monkeypatch.delenv("DISPUTE_EVIDENCE_READBACK__ENABLED")
    _run("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    assert table.loc["dp_test_0", "status (code)"] == "closed"
    assert table.loc["dp_test_1", "status (code)"] != "closed", table.loc["dp_test_1"].to_dict()
