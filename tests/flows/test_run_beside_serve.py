"""A manual `run` while `serve`'s run works on the inbox steps aside in one line (issue 30):
no Prefect ERROR log, no traceback, nothing sent by it; once the lock is free it runs."""

from __future__ import annotations

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.state import StateStore, new_owner
from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox


def test_a_manual_run_gives_way_to_serves_run_without_an_error_log(
    prefect_harness, tmp_path, monkeypatch, sandbox_factory
):
    from prefect.settings import PREFECT_API_URL

    sb = sandbox_factory(rows=seed_rows(2))
    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))  # serve's server
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    state = tmp_path / "inbox.state.sqlite3"
    with StateStore(state) as store:  # serve's inbox run, working (a live holder)
        store.bind_inbox(inbox.resolve())
        assert store.acquire_run_lock(new_owner("served")) is None
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 1, r.output
    lines = [line for line in r.output.splitlines() if line.strip()][1:]
    assert lines == [lines[0]] and "another run is in progress" in lines[0], r.output
    assert "ERROR" not in r.output and "Traceback" not in r.output
    assert all(d["evidence_updates"] == 0 for d in sb.snapshot().values())
    with StateStore(state) as store:
        store.release_run_lock(new_owner("served"))
    again = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "2 sent" in again.output, again.output
    assert [d["evidence_updates"] for d in sb.snapshot().values()] == [1, 1]
