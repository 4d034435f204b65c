"""Tried as a new user would (issue 24): each first-contact problem, through the real CLI."""

from __future__ import annotations

import re
import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox
from tests.pg import free_port


def _run(*args: str):
    return CliRunner().invoke(app, ["run", *args])


@pytest.fixture
def quick_inbox(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    return inbox


def _lines(output: str) -> list[str]:
    """The lines a command said after its first, which names the config file."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines[0].startswith("Config: "), lines
    return lines[1:]


# -- 4: an unreachable API, a missing token, a token with a line break -------------------
def test_an_unreachable_api_is_one_line_exit_4_and_a_report_saying_nothing_was_sent(
    quick_inbox, monkeypatch
):
    monkeypatch.setenv("DISPUTE_API_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_API_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("DISPUTE_API_BACKOFF_BASE", "0")
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 4, r.output
    assert "Traceback" not in r.output and TOKEN not in r.output
    said = [line for line in _lines(r.stderr) if "Could not reach the API" in line]
    assert len(said) == 1 and "DISPUTE_API_BASE_URL" in said[0]
    reports = quick_inbox.parent / "inbox.reports" / "latest"
    summary = (reports / "summary.txt").read_text()
    assert "stopped: the API could not be reached" in summary
    assert "Nothing was sent" in summary


def test_a_missing_token_is_one_line_naming_the_variable(quick_inbox, sandbox):
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2  # no base URL either: the one line says both
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DISPUTE_API_BASE_URL", sandbox.base_url)
        r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2, r.output
    assert "pydantic" not in r.output and "validation error" not in r.output
    lines = _lines(r.output)
    assert len(lines) == 1 and "DISPUTE_API_TOKEN is not set" in lines[0], lines


def test_a_token_with_a_trailing_newline_is_used_one_with_a_line_break_inside_refused(
    quick_inbox, sandbox, monkeypatch
):
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sandbox.base_url)
    evil = f"{TOKEN}\r\nX-Injected: 1"
    monkeypatch.setenv("DISPUTE_API_TOKEN", evil)
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2, r.output
    lines = _lines(r.output)
    assert len(lines) == 1 and "DISPUTE_API_TOKEN" in lines[0] and "line break" in lines[0]
    assert TOKEN not in r.output and "header injection" not in r.output
    monkeypatch.setenv("DISPUTE_API_TOKEN", f"  {TOKEN}\n")  # pasted with a newline
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 0, r.output
    assert "2 sent" in r.output


# -- 3: which config file, found in a documented order, said first and in the report -----
def test_config_is_found_beside_the_inbox_from_any_directory_and_named(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG", raising=False)
    site = tmp_path / "site"
    make_inbox(site / "inbox", 2)
    (site / "config").mkdir()
    config = site / "config" / "dispute-evidence.toml"
    config.write_text('[paths]\ninbox = "../inbox"\n[ingest]\nlocale = "en_GB"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = _run("--inbox", str(site / "inbox"), "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == f"Config: {config}"
    (summary_file,) = (site / "inbox.reports").glob("*/summary.txt")  # a dry run's own folder
    summary = summary_file.read_text()
    assert re.search(rf"Config file +{re.escape(str(config))}\n", summary)
    # no --inbox: [paths] inbox of the config named by the environment
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(config))
    r = _run("--dry-run")
    assert r.exit_code == 0, r.output
    assert "would send 2" in r.output
    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG")
    r = _run("--dry-run")  # nothing here, no inbox given: one line says what to do
    assert r.exit_code == 2
    assert _lines(r.output) == ["Give --inbox, or set `inbox` under [paths] in the config."]
    assert r.output.startswith("Config: none: defaults\n")


def test_config_search_order(tmp_path, monkeypatch):
    from dispute_evidence.settings import ConfigError, find_config

    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG", raising=False)
    inbox = tmp_path / "site" / "inbox"
    inbox.mkdir(parents=True)
    here, beside, env, given = (
        tmp_path / "config" / "dispute-evidence.toml",
        tmp_path / "site" / "config" / "dispute-evidence.toml",
        tmp_path / "env.toml",
        tmp_path / "given.toml",
    )
    monkeypatch.chdir(tmp_path)
    assert find_config(None, inbox) is None
    for path in (here, beside, env, given):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    assert find_config(None, None) == here.resolve()
    assert find_config(None, inbox) == beside.resolve()
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(env))
    assert find_config(None, inbox) == env.resolve()
    assert find_config(given, inbox) == given.resolve()
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="missing.toml: config file not found"):
        find_config(None, inbox)


# -- 1: a run right after copying files in reads them -------------------------------------
def test_a_run_right_after_copying_an_inbox_in_sends_what_a_nightly_run_would(
    tmp_path, sandbox_factory, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(4))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "2")
    source = tmp_path / "export"
    files = make_inbox(source, 4)
    inbox = tmp_path / "inbox"
    shutil.copytree(source, inbox, copy_function=shutil.copyfile)  # fresh times, as `cp` does
    r = _run("--inbox", str(inbox))
    assert r.exit_code == 0, r.output
    assert "Waiting up to 2 s for " in r.stderr and "still being written" in r.stderr
    assert "4 sent" in r.stdout and "still being written" not in r.stdout
    assert sb.requests_by_route()["POST /v1/files/upload"] == files + 4  # and 4 summary PDFs


def test_the_headline_never_says_nothing_needs_you_above_unread_files():
    from dispute_evidence.engine.run import headline

    assert headline({"evidence_sent": 0, "not_read_yet": 3}, False) == (
        "0 sent · 3 file(s) not read yet (still being written)"
    )
    assert headline({"evidence_sent": 1}, False) == "1 sent · nothing needs you"


# -- 2: the sandbox of an inbox keeps its state across runs ------------------------------
def test_two_sandbox_runs_in_a_row_behave_like_two_runs_against_a_real_api(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    first = _run("--inbox", str(inbox), "--sandbox")
    assert first.exit_code == 0, first.output
    assert "3 sent" in first.output
    pod = "dp_test_1 proof of delivery.pdf"
    (inbox / pod).write_bytes(b"%PDF-1.4\nsigned for by the customer")
    second = _run("--inbox", str(inbox), "--sandbox")
    assert second.exit_code == 0, second.output
    assert "no longer knows" not in second.output and "dispute id" not in second.output
    assert "2 file(s) uploaded" in second.output  # the proof and a new summary PDF
    third = _run("--inbox", str(inbox), "--sandbox")
    assert third.exit_code == 0 and "0 sent · nothing needs you" in third.output
    with sqlite3.connect(inbox / ".dispute-evidence" / "sandbox.sqlite3") as db:
        names = [r[0] for r in db.execute("SELECT file_name FROM files")]
    assert names.count(pod) == 1
