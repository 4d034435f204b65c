"""`status --merchant` and `approve --merchant`: a fleet merchant's state (its schema in the
shared PostgreSQL) and inbox found from the merchants file, with no URL copied by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.fleet.merchants import load_merchants, plan_runs
from dispute_evidence.fleet.run import run_merchant
from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from dispute_evidence.sandbox.workload import make_inbox, seed_rows
from support.pg import free_port, postgres_missing, throwaway_postgres

TOKEN = "sk_test_fleet_cmds"


@pytest.fixture
def fleet(tmp_path, monkeypatch):
    if why := postgres_missing():
        pytest.skip(f"needs PostgreSQL: {why}")
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,)), seed_rows(3, prefix="m1_dp_"))
    make_inbox(tmp_path / "inbox-m1", 3, prefix="m1_dp_")
    (tmp_path / "inbox-m2").mkdir()
    (tmp_path / "settings.toml").write_text(
        '[ingest]\nsettle_seconds = 0\n[evidence]\nsummary_pdf = false\n[review]\nhold = "all"\n'
    )
    monkeypatch.setenv("TOKEN_K", TOKEN)
    monkeypatch.chdir(tmp_path)
    with throwaway_postgres(free_port(), ("fleet",)) as pg:
        merchants = [f"""[[merchant]]\nid = "{m}"\ninbox = "inbox-{m}"\nkey = "k"\n"""
                     for m in ("m1", "m2")]  # fmt: skip
        (tmp_path / "merchants.toml").write_text(
            f'[fleet]\nstate_url = "postgresql+psycopg://{pg}/fleet"\nbase_url = "{sb.base_url}"\n'
            'config = "settings.toml"\n[keys.k]\ntoken_env = "TOKEN_K"\n\n' + "\n".join(merchants)
        )
        yield sb, tmp_path
    sb.stop()


def test_status_and_approve_by_merchant_on_the_shared_database(fleet, monkeypatch):
    sb, root = fleet
    runs = plan_runs(load_merchants(root / "merchants.toml"), root)
    first = run_merchant(next(r for r in runs if r.id == "m1"), trigger="manual")
    assert first.counts["awaiting_approval"] == 3
    shown = CliRunner().invoke(app, ["status", "--merchant", "m1", "--merchants", "merchants.toml"])
    assert shown.exit_code == 0, shown.output
    assert "awaiting_approval 3" in shown.output
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANTS", str(root / "merchants.toml"))
    done = CliRunner().invoke(app, ["approve", "--merchant", "m1", "m1_dp_1"])  # documented default
    assert done.exit_code == 0, done.output
    assert "m1_dp_1: approved" in done.output and "sent:" in done.output
    assert [p for p, d in sb.snapshot().items() if d["evidence_updates"]] == ["m1_dp_1"]
    after = CliRunner().invoke(app, ["status", "--merchant", "m1"])
    assert "awaiting_approval 2" in after.output and "submitted 1" in after.output
    other = CliRunner().invoke(app, ["status", "--merchant", "m9"])
    assert other.exit_code == 2 and "No merchant 'm9'" in other.output and "m1, m2" in other.output


def test_the_merchants_file_default_is_named_when_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPUTE_EVIDENCE_MERCHANTS", raising=False)
    r = CliRunner().invoke(app, ["status", "--merchant", "m1"])
    assert r.exit_code == 2 and "config/merchants.toml" in r.output
    assert Path("config").exists() is False


def test_an_inbox_without_a_state_file_points_to_merchant(tmp_path, monkeypatch):
    """`status --inbox` / `approve --inbox` on a fleet merchant's inbox (its state is in
    PostgreSQL, not beside it) name `--merchant m1`; an inbox the merchants file does not list
    gets the general hint. No database is needed: the merchants file is only read."""
    monkeypatch.chdir(tmp_path)
    for name in ("DISPUTE_EVIDENCE_MERCHANTS", "DISPUTE_API_BASE_URL", "DISPUTE_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "inbox-m1").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "merchants.toml").write_text(
        '[fleet]\nstate_url = "postgresql+psycopg://fleet@127.0.0.1:1/fleet"\n'
        '[keys.k]\ntoken_env = "TOKEN_K"\n\n[[merchant]]\nid = "m1"\ninbox = "inbox-m1"\n'
        'key = "k"\n'
    )
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANTS", str(tmp_path / "merchants.toml"))
    for command in (["status"], ["approve", "m1_dp_1"]):
        r = CliRunner().invoke(app, [*command, "--inbox", "inbox-m1"])
        assert r.exit_code == 2 and "no state file at" in r.output, r.output
        assert "inbox-m1 is merchant m1's inbox in" in r.output
        assert "Use --merchant m1 (with --merchants " in r.output
    r = CliRunner().invoke(app, ["status", "--inbox", "other"])
    assert r.exit_code == 2 and "use --merchant NAME (its merchants file:" in r.output, r.output
    monkeypatch.delenv("DISPUTE_EVIDENCE_MERCHANTS")  # none at ./config/merchants.toml either
    r = CliRunner().invoke(app, ["status", "--inbox", "inbox-m1"])
    assert r.exit_code == 2 and "use --merchant NAME" in r.output, r.output
    assert not list(tmp_path.glob("*.sqlite3"))  # looking made no state
