"""`kill -INT` stops a `run` started in the background from a script (issue 45, item 4): a
non-interactive shell starts `run &` with SIGINT ignored, and Python kept it ignored, so the run
went on to the end. Now it stops as Ctrl-C does: exit 130, one line, what was sent kept, and
the next run finishes. The real CLI in a subprocess against the local API."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN, seed_rows
from tests.integration.flows.test_bad_input_fs import cli_env
from tests.support.engine_helpers import make_inbox


def test_a_background_run_with_sigint_ignored_stops_on_kill_int(sandbox_factory, tmp_path):
    slow = SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(150, 150))
    sb = sandbox_factory(slow, rows=seed_rows(8))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 8)
    env = {**cli_env(sb.base_url), "DISPUTE_EVIDENCE_API__CONCURRENCY": "1"}
    cmd = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # as a script's `run &`
    )  # fmt: skip
    try:
        while sum(d["evidence_updates"] for d in sb.snapshot().values()) < 2:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)  # `kill -INT <pid>`
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    assert last.startswith("Interrupted: ") and last.endswith("sent so far; run again to finish")
    assert int(last.split()[1]) < 8

    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    snap = sb.snapshot()
    assert all(d["evidence_updates"] >= 1 for d in snap.values()), snap
    # what was sent kept: sent again at most the one request in flight at the signal (one at a
    # time here), and no file uploaded twice
    assert sum(d["evidence_updates"] for d in snap.values()) <= len(snap) + 1, snap
    assert all(len({f["sha256"] for f in d["files"]}) == len(d["files"]) for d in snap.values())
