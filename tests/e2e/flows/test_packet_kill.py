"""A run SIGKILLed at random moments while packets go out (issue 28): each dispute ends with
exactly one packet at the API, and kills really landed while a packet was `sending`."""

from __future__ import annotations

import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN, seed_rows
from tests.e2e.flows.test_packet import pdf_of, png
from tests.support.engine_helpers import make_inbox

ROOT = Path(__file__).resolve().parents[3]


def _sending(state: Path) -> int:
    if not state.exists():
        return 0
    with sqlite3.connect(state) as c:
        try:
            return c.execute(
                "SELECT count(*) FROM evidence_files WHERE kind = 'packet' AND status = 'sending'"
            ).fetchone()[0]
        except sqlite3.OperationalError:  # killed before the schema was made
            return 0


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_sigkill_while_packets_are_sending_then_resume_sends_each_once(sandbox_factory, tmp_path):
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # killed clients drop out
    n = 24
    sb = sandbox_factory(
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(150, 300), seed=5),
        rows=seed_rows(n),
    )
    inbox, state = tmp_path / "inbox", tmp_path / "state.sqlite3"
    make_inbox(inbox, n, files=(0, 0))
    for i in range(n):
        (inbox / "proofs" / f"dp_test_{i}_receipt.pdf").write_bytes(pdf_of(2, f"RECEIPT {i}"))
        (inbox / "proofs" / f"dp_test_{i}_parcel.png").write_bytes(png())
    code = os.pathsep.join([str(ROOT / "src"), str(ROOT)])  # this checkout's code (test_crash)
    env = {**os.environ, "DISPUTE_API_TOKEN": TOKEN, "PYTHONPATH": code,
           "CRASH_UPLOAD": "packet"}  # fmt: skip
    cmd = [sys.executable, "-m", "tests.support.crash_runner", str(inbox), str(state), sb.base_url]
    rng = random.Random(13)
    killed_while_sending = 0
    for round_ in range(8):
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)  # fmt: skip
        # The first rounds wait for a packet in flight (however slow a loaded machine starts the
        # process), the others kill at a random moment
        targeted = round_ < 3
        deadline = time.monotonic() + (120.0 if targeted else rng.uniform(2.0, 12.0))
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
            if _sending(state) and (targeted or rng.random() < 0.2):
                break  # kill it now: a packet is in flight
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            killed_while_sending += _sending(state) > 0
        else:
            assert proc.returncode == 0, proc.stderr.read().decode()[-2000:]
            proc.wait()
    final = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, timeout=300)
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    snap = sb.snapshot()
    for i in range(n):
        names = [f["file_name"] for f in snap[f"dp_test_{i}"]["files"]]
        assert names == [f"dp_test_{i}-evidence-packet.pdf"], (i, names)  # once, nothing else
    with sqlite3.connect(state) as c:
        statuses = dict(c.execute("SELECT kind, group_concat(DISTINCT status) FROM evidence_files "
                                  "GROUP BY kind = 'packet'").fetchall())  # fmt: skip
    assert _sending(state) == 0 and "sending" not in str(statuses)
    assert killed_while_sending >= 1, "no kill landed while a packet was sending"
