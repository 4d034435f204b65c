"""A manual `run` while `serve`'s run works on the inbox steps aside in one line (issue 30):
no Prefect ERROR log, no traceback, nothing sent by it; once the lock is free it runs.

The run is a process of its own, its stdout and stderr read whole: in-process (CliRunner),
Prefect's log handlers keep the stream they were made with, so an ERROR log or a traceback
would go to the real stderr, never into the output checked."""

from __future__ import annotations

import os
import subprocess
import sys

from dispute_evidence.state.store import StateStore, new_owner
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox


def _run(inbox, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    return subprocess.run(command, env=env, cwd=inbox.parent, text=True, capture_output=True,
                          timeout=180)  # fmt: skip


def test_a_manual_run_gives_way_to_serves_run_without_an_error_log(
    prefect_harness, tmp_path, sandbox_factory
):
    from prefect.settings import PREFECT_API_URL

    sb = sandbox_factory(rows=seed_rows(2))
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),  # serve's server
           "DISPUTE_API_BASE_URL": sb.base_url, "DISPUTE_API_TOKEN": TOKEN,
           "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0"}  # fmt: skip
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    state = tmp_path / "inbox.state.sqlite3"
    with StateStore(state) as store:  # serve's inbox run, working (a live holder)
        store.runs.bind_inbox(inbox.resolve())
        assert store.locks.acquire_run_lock(new_owner("served")) is None
    r = _run(inbox, env)
    said = r.stdout + r.stderr
    assert r.returncode == 1, said
    lines = [line for line in said.splitlines() if line.strip()]
    assert lines[0].startswith("Config: "), said  # what it read, then the one line
    assert len(lines) == 2 and "another run is in progress" in lines[1], said
    assert "ERROR" not in said and "Traceback" not in said, said
    assert all(d["evidence_updates"] == 0 for d in sb.snapshot().values())
    with StateStore(state) as store:
        store.locks.release_run_lock(new_owner("served"))
    again = _run(inbox, env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 sent" in again.stdout, again.stdout
    assert "Traceback" not in again.stdout + again.stderr, again.stderr
    assert [d["evidence_updates"] for d in sb.snapshot().values()] == [1, 1]
