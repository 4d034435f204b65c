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
