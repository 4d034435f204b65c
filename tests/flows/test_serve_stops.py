"""`serve` stops on SIGTERM or Ctrl-C sent to its whole process group, as systemd and a
terminal send them (issue 30): within seconds, saying so, nothing of it left running (its own
Prefect server, its flow-run processes), no traceback; the run it stopped is `interrupted`
and the next run finishes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path, text: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return True
        time.sleep(0.5)
    return False


@pytest.fixture(scope="module")
def prefect_home(tmp_path_factory):
    """One Prefect home for both signals: its database is migrated once."""
    return tmp_path_factory.mktemp("prefect-home")


@pytest.mark.slow
@pytest.mark.timeout(400)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_on_a_signal_to_its_process_group(tmp_path, sandbox_factory, prefect_home, sig):
    from dispute_evidence.sandbox import SandboxConfig

    sb = sandbox_factory(  # slow answers: the signal comes while a run is working
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(1500, 1500)), seed_rows(4)
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {
        "PREFECT_HOME": str(prefect_home),
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DISPUTE_API_BASE_URL": sb.base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "1",
    }
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dispute_evidence", "serve", "--inbox", str(inbox)],
            stdout=o, stderr=e, env=env, cwd=tmp_path, start_new_session=True,
        )  # fmt: skip
    pgid = proc.pid
    try:
        assert _wait_for(out, "nightly now:", 240), out.read_text() + err.read_text()
        make_inbox(inbox, 4)
        assert _wait_for(out, "inbox run started", 120), out.read_text()
        time.sleep(2)
        started = time.monotonic()
        os.killpg(pgid, sig)
        proc.wait(timeout=60)
        took = time.monotonic() - started
        deadline = time.monotonic() + 5
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _group_alive(pgid), "serve left processes running"
    finally:
        if _group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
        proc.wait(timeout=10)
    said, errors = out.read_text(), err.read_text()
    assert took < 30, took
    assert "serve stopped" in said and "Traceback" not in said + errors, said + errors
    assert proc.returncode in (0, 130, 143), proc.returncode
