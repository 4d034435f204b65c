"""The state knows which API holds each dispute's evidence and file (issue 30, critical): a
`--sandbox` trial, then a run against the real API, on the same inbox, sends everything to the
real API exactly once, and the sandbox's record never counts as sent there."""

from __future__ import annotations

import sqlite3
from collections import Counter

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import seed_rows
from tests.support.engine_helpers import make_inbox

REAL_TOKEN = "sk_live_the_real_one_0123456789"


def _run(*args: str):
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r


def _files_at(sb) -> Counter[str]:
    return Counter(f["file_name"] for d in sb.snapshot().values() for f in d["files"])


def test_a_sandbox_trial_then_the_real_api_gets_every_dispute_exactly_once(
    tmp_path, monkeypatch, sandbox_factory, caplog
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    trial = _run("--inbox", str(inbox), "--sandbox")
    assert trial.exit_code == 0 and "3 sent" in trial.output, trial.output

    real = sandbox_factory(SandboxConfig(tokens=(REAL_TOKEN,)), seed_rows(3))  # "the real API"
    monkeypatch.setenv("DISPUTE_API_BASE_URL", real.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", REAL_TOKEN)
    first = _run("--inbox", str(inbox))
    assert first.exit_code == 0, first.output
    assert "3 sent" in first.output, first.output
    said = [r.getMessage() for r in caplog.records if "has nothing from this state" in r.message]
    assert len(said) == 1 and real.base_url in said[0] and "sandbox" in said[0], said
    assert REAL_TOKEN not in first.output + said[0]
    snap = real.snapshot()
    assert {pid: d["evidence_updates"] for pid, d in snap.items()} == {
        f"dp_test_{i}": 1 for i in range(3)
    }
    files = _files_at(real)
    assert files and all(n == 1 for n in files.values()), files
    assert sum(1 for name in files if name.endswith("_proof0.pdf")) == 3  # every dispute's file

    again = _run("--inbox", str(inbox))  # nothing new: nothing sent, nothing twice
    assert again.exit_code == 0 and "0 sent" in again.output, again.output
    assert all(d["evidence_updates"] == 1 for d in real.snapshot().values())
    assert _files_at(real) == files

    state = tmp_path / "inbox.state.sqlite3"
    with sqlite3.connect(state) as db:
        sent_to = {r[0] for r in db.execute("SELECT sent_to FROM disputes")}
        file_to = {r[0] for r in db.execute("SELECT sent_to FROM evidence_files")}
    assert sent_to == file_to and len(sent_to) == 1
    (where,) = sent_to
    assert where.startswith(real.base_url) and REAL_TOKEN not in where


def test_back_to_the_sandbox_it_is_sent_nothing_twice(tmp_path, monkeypatch, sandbox_factory):
    """Switching back re-sends the evidence (a full-state upsert: harmless) and lists each
    dispute's files at the API before uploading: no file lands twice anywhere."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    assert _run("--inbox", str(inbox), "--sandbox").exit_code == 0
    real = sandbox_factory(SandboxConfig(tokens=(REAL_TOKEN,)), seed_rows(2))
    with monkeypatch.context() as mp:
        mp.setenv("DISPUTE_API_BASE_URL", real.base_url)
        mp.setenv("DISPUTE_API_TOKEN", REAL_TOKEN)
        assert _run("--inbox", str(inbox)).exit_code == 0
    back = _run("--inbox", str(inbox), "--sandbox")
    assert back.exit_code == 0, back.output
    with sqlite3.connect(inbox / ".dispute-evidence" / "sandbox.sqlite3") as db:
        names = Counter(r[0] for r in db.execute("SELECT file_name FROM files"))
    assert names and all(n == 1 for n in names.values()), names
    assert all(n == 1 for n in _files_at(real).values())
