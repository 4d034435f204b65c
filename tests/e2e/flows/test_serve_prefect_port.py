"""`serve --prefect-port` (issue 45, item 4): serve's own local Prefect server goes on the port
given (its UI there), not 4200 or a port of its choosing, and serve still stops on `kill -INT`
leaving nothing running."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import suppress

import pytest

from tests.conftest import TOKEN
from tests.e2e.flows.test_serve_stops import _wait_for, _with_prefect_home


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _up(proc, out) -> bool:
    """serve said it is serving; False at once when it ended (a usage error) or after 300 s."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if _wait_for(out, "nightly now:", 1):
            return True
    return False


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_serve_starts_its_prefect_server_on_the_port_given(tmp_path, tmp_path_factory):
    home = tmp_path_factory.mktemp("prefect-home-port")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DISPUTE_API_BASE_URL": "http://127.0.0.1:9/v1", "DISPUTE_API_TOKEN": TOKEN}  # fmt: skip
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    cmd = [sys.executable, "-m", "dispute_evidence", "serve", "--inbox", str(inbox),
           "--prefect-port", str(port)]  # fmt: skip
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen(cmd, stdout=o, stderr=e, env=env, cwd=tmp_path,
                                start_new_session=True)  # fmt: skip
    try:
        assert _up(proc, out), out.read_text() + err.read_text()
        assert f"Prefect UI: http://127.0.0.1:{port}  " in out.read_text()
        marker = inbox / ".dispute-evidence" / "prefect-server.json"
        assert json.loads(marker.read_text())["api_url"] == f"http://127.0.0.1:{port}/api"
        os.kill(proc.pid, signal.SIGINT)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 10  # its server's process, a moment after serve's own
        while _with_prefect_home(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _with_prefect_home(home), "serve left its Prefect server running"
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in _with_prefect_home(home):  # a failed check leaves nothing behind
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=10)
    assert "Traceback" not in out.read_text() + err.read_text()
