"""`dispute-evidence serve`: a nightly deployment and an inbox deployment in one process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from contextlib import suppress
from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect.schedules import Cron, Interval

from dispute_evidence.settings import load_settings
from flows.pipeline import evidence_run, inbox_watch

LOCAL_PREFECT = "http://127.0.0.1:4200/api"
# An inbox-triggered run may be working when the nightly one starts: wait for it, don't skip.
NIGHTLY_LOCK_WAIT = 2 * 3600.0


def local_timezone() -> str:
    """This machine's IANA zone name (cron schedules need one); UTC if it cannot be told."""
    with suppress(OSError):
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            return link.split("zoneinfo/", 1)[1]
    return os.environ.get("TZ") or "UTC"


def build_deployments(inbox: Path, config: Path | None, state: str | None) -> list[Any]:
    """The nightly (cron) and inbox (interval) deployments, one run at a time each."""
    settings = load_settings(config)
    params = {"inbox": str(inbox), "config": str(config) if config else None, "state": state}
    nightly = evidence_run.to_deployment(
        name="nightly",
        schedules=[
            Cron(settings.schedule.cron, timezone=settings.schedule.timezone or local_timezone())
        ],
        parameters={**params, "trigger": "nightly", "wait_for_lock": NIGHTLY_LOCK_WAIT},
        concurrency_limit=1,
        description="Nightly: ingest the inbox, submit, report.",
    )
    watch = inbox_watch.to_deployment(
        name="inbox",
        schedules=[Interval(timedelta(seconds=settings.schedule.inbox_poll_seconds))],
        parameters=params,
        concurrency_limit=1,
        description="Runs the pipeline when analysts drop new files.",
    )
    return [nightly, watch]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as r:  # noqa: S310 - loopback only
            return bool(r.status == 200)
    except OSError:
        return False


def ensure_prefect_server() -> subprocess.Popen[bytes] | None:
    """Prefect's ephemeral mode cannot schedule: start a local server unless one is configured."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    log_path = (
        Path(os.environ.get("PREFECT_HOME", Path.home() / ".prefect")).expanduser()
        / "dispute-evidence-server.log"
    )
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("ab")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "prefect",
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            "4200",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    for _ in range(120):
        if _healthy(LOCAL_PREFECT):
            os.environ["PREFECT_API_URL"] = LOCAL_PREFECT
            print(
                f"Prefect UI: {LOCAL_PREFECT.removesuffix('/api')}  (server log: {log_path})",
                flush=True,
            )
            return proc
        time.sleep(0.5)
    proc.terminate()
    raise RuntimeError(
        "the local Prefect server did not start; set PREFECT_API_URL to an existing one"
    )


def serve_deployments(inbox: Path, config: Path | None, state: str | None) -> None:
    from prefect import serve
    from prefect.settings import PREFECT_API_URL, temporary_settings

    server = ensure_prefect_server()
    try:
        # Prefect read its settings at import: point it at the server through its own API
        with temporary_settings(updates={PREFECT_API_URL: os.environ["PREFECT_API_URL"]}):
            serve(*build_deployments(inbox, config, state))
    finally:
        if server is not None:
            server.terminate()
