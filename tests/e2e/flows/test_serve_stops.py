"""`serve` stops on SIGTERM or Ctrl-C sent to its whole process group, as systemd and a
terminal send them (issue 30): once its runs have written their reports (RUNS_GRACE at most),
saying so, nothing of it left running (its own Prefect server, its flow-run processes), no
traceback; the run it stopped is `interrupted` (the next run finishing such a run exactly once:
tests/e2e/flows/test_run_kill_int.py, tests/e2e/engine/test_crash.py). A run serve starts that fails on purpose says why in one line,
with no traceback under it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from flows.serve import RUNS_GRACE
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (an exited child its parent has not reaped
    yet, or one reparented to an init that never reaps: neither runs anything)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _with_prefect_home(home: Path) -> list[int]:
    """Every running process whose environment has PREFECT_HOME=`home`: serve, its flow runs,
    its Prefect server (in a session of its own, so no process-group signal reaches it)."""
    want, found = f"PREFECT_HOME={home}".encode(), []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if want in environ.read_bytes().split(b"\0") and _running(int(environ.parent.name)):
                found.append(int(environ.parent.name))
        except (OSError, ValueError):
            continue  # ended while we looked
    return found


def _prefect_server_pid(inbox: Path, home: Path) -> int:
    """The pid of serve's own Prefect server: the `prefect server start` on the port serve's
    marker names, with serve's PREFECT_HOME."""
    marker = inbox / ".dispute-evidence" / "prefect-server.json"
    port = json.loads(marker.read_text())["api_url"].rsplit(":", 1)[1].split("/")[0]
    for pid in _with_prefect_home(home):
        with suppress(OSError):
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"server" in argv and b"start" in argv and port.encode() in argv:
                return pid
    raise AssertionError(f"no Prefect server on port {port} among serve's processes")


def _wait_for(path, text: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return True
        time.sleep(0.5)
    return False


# seconds serve may take to say it serves: the first test of this module migrates the Prefect
# home's new database, and a fresh clone's `make test` on a slow 2-core machine spent 263 s
# starting a Prefect server (tests/conftest.py HARNESS_START)
SERVE_START = 420


def _leave_nothing(proc: subprocess.Popen[bytes], home: Path) -> None:
    """Serve's group and everything with its Prefect home (its server: a session apart)
    killed and reaped: a failed check leaves nothing behind."""
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in _with_prefect_home(home):
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _serve(tmp_path: Path, inbox: Path, env: dict[str, str], **popen: Any):
    """`serve --inbox` started in a session of its own, its output in serve.out/serve.err,
    once it says it serves (the server migrated, the deployments made)."""
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with out.open("w") as o, err.open("w") as e:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dispute_evidence", "serve", "--inbox", str(inbox)],
            stdout=o, stderr=e, env=env, cwd=tmp_path, start_new_session=True, **popen,
        )  # fmt: skip
    if not _wait_for(out, "nightly now:", SERVE_START):
        _leave_nothing(proc, Path(env["PREFECT_HOME"]))
        raise AssertionError(out.read_text() + err.read_text())
    return proc, out, err


def _as_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a script's `serve &` starts


def _last_runs(inbox: Path) -> list[dict[str, str]]:
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateStore

    with StateStore(default_state(inbox)) as store:
        return store.runs.last_runs(5)


@pytest.fixture(scope="module")
def prefect_home(tmp_path_factory):
    """One Prefect home for both signals: its database is migrated once."""
    return tmp_path_factory.mktemp("prefect-home")


# (signal, requests the API admitted before it comes): 1, the run's first request (it proves
# the key) is still unanswered, nothing was sent; 2, the run is sending its evidence
MOMENTS = [(signal.SIGTERM, 1), (signal.SIGINT, 2)]


@pytest.mark.slow
@pytest.mark.timeout(SERVE_START + 200)
@pytest.mark.parametrize(("sig", "admitted"), MOMENTS, ids=["sigterm-at-start", "sigint-sending"])
def test_serve_stops_on_a_signal_to_its_process_group(
    tmp_path, sandbox_factory, prefect_home, sig, admitted
):
    from dispute_evidence.sandbox import SandboxConfig

    sb = sandbox_factory(  # slow answers: the signal comes while a request is unanswered
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
    proc, out, err = _serve(tmp_path, inbox, env)
    pgid = proc.pid
    try:
        server = _prefect_server_pid(inbox, prefect_home)
        assert os.getpgid(server) != pgid  # why the group check alone cannot see it
        make_inbox(inbox, 4)
        assert _wait_for(out, "inbox run started", 120), out.read_text()
        # the signal comes while the API holds a request (each is answered after 1.5 s), not
        # while a loaded machine still migrates its new state: an interrupt there is Prefect's
        deadline = time.monotonic() + 120
        while sum(map(len, sb.requests_by_key().values())) < admitted:
            assert time.monotonic() < deadline, out.read_text() + err.read_text()
            time.sleep(0.1)
        time.sleep(0.5)
        os.killpg(pgid, sig)
        proc.wait(timeout=RUNS_GRACE + 60)  # a hang guard, not a speed test
        deadline = time.monotonic() + 5
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _group_alive(pgid), "serve left processes running"
        assert not _running(server), f"serve's Prefect server (pid {server}) still runs"
        assert not _with_prefect_home(prefect_home), "processes of serve still run"
    finally:
        _leave_nothing(proc, prefect_home)
    said, errors = out.read_text(), err.read_text()
    assert "serve stopped: no more runs start for" in said, said + errors
    assert "nothing of it is left running" in said, said
    assert "Traceback" not in said + errors, said + errors
    assert proc.returncode in (0, 130, 143), proc.returncode
    # the run it stopped says so, and is recorded `interrupted`
    assert "inbox run interrupted as it started: nothing was sent" in said or admitted > 1, said
    assert "inbox run finished: Interrupted: " in said or admitted == 1, said
    runs = _last_runs(inbox)
    assert runs and runs[0]["outcome"] == "interrupted", (runs, said, errors[-3000:])


@pytest.mark.slow
@pytest.mark.timeout(SERVE_START + 200)
def test_serve_started_with_sigint_ignored_stops_on_kill_int(tmp_path, prefect_home):
    """Issue 39 item 6: a script's `serve &` starts with SIGINT ignored (a non-interactive
    shell does that to background jobs), and `kill -INT` was ignored with it."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {"PREFECT_HOME": str(prefect_home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DISPUTE_API_BASE_URL": "http://127.0.0.1:9/v1", "DISPUTE_API_TOKEN": TOKEN}  # fmt: skip
    proc, out, err = _serve(tmp_path, inbox, env, preexec_fn=_as_background_job)
    try:
        os.kill(proc.pid, signal.SIGINT)  # `kill -INT <pid>`: serve alone, not its group
        proc.wait(timeout=60)
        deadline = time.monotonic() + 10
        while _with_prefect_home(prefect_home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _with_prefect_home(prefect_home), "processes of serve still run"
    finally:
        _leave_nothing(proc, prefect_home)
    said, errors = out.read_text(), err.read_text()
    assert "serve stopped: no more runs start for" in said, said + errors
    assert "Traceback" not in said + errors, said + errors
    assert proc.returncode in (0, 130), proc.returncode


@pytest.mark.slow
@pytest.mark.timeout(SERVE_START + 200)
def test_a_served_run_that_fails_says_why_in_one_line_without_a_traceback(tmp_path, prefect_home):
    """A run serve starts that ends Failed on purpose (here: no API configured) says why in one
    line; Prefect's engine raised that Failed state in the run's process and printed 30 lines of
    its traceback under it in serve's terminal."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PREFECT_API", "DISPUTE_API"))  # no API: a configuration error
    }
    env |= {
        "PREFECT_HOME": str(prefect_home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "1",
    }
    proc, out, err = _serve(tmp_path, inbox, env)
    try:
        make_inbox(inbox, 2)
        assert _wait_for(out, "inbox run stopped: configuration error", 120), out.read_text()
        time.sleep(3)  # the run's process ends after saying it: its last words are in `err`
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        _leave_nothing(proc, prefect_home)
    said, errors = out.read_text(), err.read_text()
    assert "DISPUTE_API_BASE_URL is not set" in said, said
    assert "Traceback" not in said + errors and "Engine execution" not in errors, said + errors
