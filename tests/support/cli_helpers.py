"""What the CLI-against-the-sandbox tests share: a run, the sandbox as the API, the latest
report's dispute table."""

from __future__ import annotations

import pandas as pd
from pypdf import PdfReader
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN


def run_cli(*args: str) -> str:
    """`dispute-evidence run ARGS`; its output, which never holds a traceback."""
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r.output


def approve_cli(inbox, *pids: str) -> str:
    """`dispute-evidence approve --inbox INBOX PIDS`: a person approves, and it is sent at once."""
    r = CliRunner().invoke(app, ["approve", "--inbox", str(inbox), *pids])
    assert "Traceback" not in r.output, r.output
    return r.output


def use_sandbox(sb, monkeypatch) -> None:
    """The sandbox as the API, files read at once, no read-back."""
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")


def latest_disputes(tmp_path) -> pd.DataFrame:
    """The latest report's disputes.csv of the inbox under `tmp_path`, by dispute."""
    folder = tmp_path / "inbox.reports" / "latest"
    return pd.read_csv(folder / "disputes.csv", dtype=str).fillna("").set_index("Dispute")


def review_copy_text(tmp_path, pid: str) -> str:
    """The text of the packet the latest report shows for review (a held dispute's: nothing of
    it was sent), of the inbox under `tmp_path`."""
    path = tmp_path / "inbox.reports" / "latest" / "pdf" / f"{pid}-packet.pdf"
    return " ".join(" ".join(p.extract_text() for p in PdfReader(path).pages).split())
