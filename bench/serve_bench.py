"""`serve` idle and awake (issue 14): the real `dispute-evidence serve` on a Prefect server,
idling for BENCH_SERVE_IDLE seconds (default 600; `--quick`: 60), then a drop.

Prints the CPU seconds per idle hour of the serve process (the watcher and the deployments'
runner) and of the Prefect server beside it, the flow runs created while idle (must be 0),
and the drop-to-run latency (files copied -> flow run created) and drop-to-done."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import TOKEN, figure, free_port, heading, sandbox_process
from flows.serve import healthy

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"


def _cpu_seconds(pid: int) -> float:
    """utime + stime of one process (not its children), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _flow_runs(api: str) -> list[dict[str, object]]:
    """Flow runs that ran or run (not the nightly schedule's future runs)."""
    r = httpx.post(f"{api}/flow_runs/filter", json={"limit": 200}, timeout=10)
    r.raise_for_status()
    return [x for x in r.json() if x.get("state_type") != "SCHEDULED"]


def _wait(predicate, seconds: float, step: float = 0.25) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def run(quick: bool = False) -> None:
    idle = float(os.environ.get("BENCH_SERVE_IDLE", 60 if quick else 600))
    heading(f"serve: {idle:.0f} s idle on a Prefect server, then a drop (issue 14)")
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    inbox = work / "inbox"
    inbox.mkdir()
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        "PREFECT_HOME": str(work / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "2",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "prefect",
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    serve = None
    try:
        if not _wait(lambda: healthy(api), 120):
            raise RuntimeError("the Prefect server did not start")
        with sandbox_process("--generate", "0") as base:
            env |= {
                "PREFECT_API_URL": api,
                "DISPUTE_API_BASE_URL": base,
                "DISPUTE_API_TOKEN": TOKEN,
            }
            serve = subprocess.Popen(
                [sys.executable, "-m", "dispute_evidence", "serve", "--inbox", str(inbox)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if not _wait(lambda: _deployments(api) >= 2, 120):
                raise RuntimeError("serve did not register its deployments")
            time.sleep(10)  # start-up done
            cpu0, srv0, runs0 = _cpu_seconds(serve.pid), _cpu_seconds(server.pid), _flow_runs(api)
            time.sleep(idle)
            cpu1, srv1, runs1 = _cpu_seconds(serve.pid), _cpu_seconds(server.pid), _flow_runs(api)
            per_hour = 3600 / idle
            figure("idle: serve process CPU seconds per hour", f"{(cpu1 - cpu0) * per_hour:.1f}")
            figure("idle: Prefect server CPU seconds per hour", f"{(srv1 - srv0) * per_hour:.1f}")
            figure(f"idle: flow runs created in {idle:.0f} s", str(len(runs1) - len(runs0)), "(0)")
            t0 = time.monotonic()
            for item in SAMPLE.iterdir():
                (shutil.copytree if item.is_dir() else shutil.copy2)(item, inbox / item.name)
            started = _wait(lambda: len(_flow_runs(api)) > len(runs1), 120)
            latency = time.monotonic() - t0
            done = _wait(
                lambda: any((r.get("state_type") or "") == "COMPLETED" for r in _flow_runs(api)),
                300,
            )
            total = time.monotonic() - t0
            figure("drop -> flow run created (s)", f"{latency:.1f}" if started else "none", "(<60)")
            figure("drop -> run finished (s)", f"{total:.1f}" if done else "not finished")
            states = sorted({str(r.get("state_name")) for r in _flow_runs(api)})
            figure("flow runs after the drop", f"{len(_flow_runs(api))} ({', '.join(states)})")
    finally:
        for proc in (serve, server):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def _deployments(api: str) -> int:
    try:
        r = httpx.post(f"{api}/deployments/count", json={}, timeout=5)
        return int(r.json()) if r.status_code == 200 else 0
    except httpx.HTTPError:
        return 0
