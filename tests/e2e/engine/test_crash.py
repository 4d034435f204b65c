"""Kill the engine with SIGKILL at random moments; the final state must still be exact."""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.sandbox.app import STATS_KEY
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.e2e.engine.test_engine import assert_exact
from tests.support.engine_helpers import make_inbox

ROOT = Path(__file__).resolve().parents[3]
KILLS = 12  # each waits for its run's start-up (1-15 s on a loaded machine)
CONCURRENCY = 2  # crash_runner's: requests that can be in flight when it dies


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkill_at_random_moments_then_resume(sandbox_factory, tmp_path):
    logging.getLogger("aiohttp.server").setLevel(
        logging.CRITICAL
    )  # killed clients drop connections
    n = 120
    sb = sandbox_factory(
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(40, 100), seed=5),
        rows=seed_rows(n),
    )
    inbox, state = tmp_path / "inbox", tmp_path / "state.sqlite3"
    files = make_inbox(inbox, n, files=(1, 2), seed=3)
    # this checkout's code, not whichever the venv has installed (an editable install of another)
    code = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env = {**os.environ, "DISPUTE_API_TOKEN": TOKEN, "PYTHONPATH": code}
    cmd = [sys.executable, "-m", "tests.support.crash_runner", str(inbox), str(state), sb.base_url]
    rng = random.Random(11)
    killed = landed = finished_early = 0
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda r: lines.append(r.getMessage())  # type: ignore[method-assign]
    access = logging.getLogger("dispute_evidence.sandbox.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    proc: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(KILLS):
            proc = subprocess.Popen(
                cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            # the kill lands once the run is sending (its start-up, 1-15 s on a loaded machine, is
            # not the moment under test), at a random point of its work (~12 s in all)
            before = sb.app[STATS_KEY]["admitted"]
            begun_by = time.monotonic() + 60
            while (
                sb.app[STATS_KEY]["admitted"] == before
                and proc.poll() is None
                and time.monotonic() < begun_by
            ):
                time.sleep(0.005)
            deadline = time.monotonic() + rng.uniform(0.0, 0.9)
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)
            if proc.poll() is None:
                sending = sb.app[STATS_KEY]["admitted"] > before
                left = sum(d["evidence_updates"] == 0 for d in sb.snapshot().values())
                proc.send_signal(signal.SIGKILL)
                killed += 1
                landed += sending and left > 0  # mid-run: it had sent, and work was left
            else:
                finished_early += 1
                assert proc.returncode == 0, proc.stderr.read().decode()[-2000:]
            proc.wait()
            proc.stderr.close()
    finally:  # a failure or a timeout leaves no runner behind
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    final = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, timeout=300)
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    store = StateStore(state)
    assert_exact(sb.snapshot(), store, n, files)
    admitted = sb.app[STATS_KEY]["admitted"]
    updates = sum(d["evidence_updates"] for d in sb.snapshot().values())
    lists = sum("GET /v1/files" in x for x in lines)
    redundant = lists + (updates - n)  # asked again only because an answer was lost
    cut_off = admitted - updates - files - lists  # in flight at a kill, body cut: no effect
    assert landed >= 8, (landed, killed)  # the kills really landed mid-run
    # at most one redundant request for each request in flight when a run died
    assert redundant <= killed * CONCURRENCY, (redundant, killed)
    assert cut_off <= killed * CONCURRENCY, (cut_off, killed)
