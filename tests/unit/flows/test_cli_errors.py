"""The CLI says "Configuration error" (exit 2) only for configuration errors."""

from __future__ import annotations

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.exits import EXIT_USAGE
from dispute_evidence.sandbox.workload import make_inbox
from dispute_evidence.state.records import Records


def test_an_unexpected_value_error_in_the_run_is_not_a_configuration_error(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)

    def pandas_fails(*a, **k):  # the kind of ValueError pandas raises on a bug of ours
        raise ValueError("Length mismatch: Expected axis has 3 elements, new values have 2")

    monkeypatch.setattr(Records, "record_ingest", pandas_fails)  # the store's records part
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])
    assert isinstance(r.exception, ValueError) and "Length mismatch" in str(r.exception)
    assert r.exit_code != EXIT_USAGE and "Configuration error" not in r.output


def test_a_configuration_error_is_one_line_and_exit_2(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    bad = tmp_path / "bad.toml"
    bad.write_text("[ingest]\nsettle_secnds = 0\n")
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run", "--config", str(bad)])
    assert r.exit_code == EXIT_USAGE and "Configuration error" in r.output
