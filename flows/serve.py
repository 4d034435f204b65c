"""`dispute-evidence serve`: a nightly deployment, an inbox deployment and the inbox watcher
that starts it, and an approve deployment (held evidence, from the UI), in one process."""

from __future__ import annotations

import contextvars
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from prefect.schedules import Cron

from dispute_evidence import prefect_env
from dispute_evidence.names import terminal
from dispute_evidence.served import healthy, serve_token_name, write_server_marker
from dispute_evidence.settings import RunRequest, Settings, load_settings
from dispute_evidence.settings.environment import environment
from dispute_evidence.watch import InboxWatcher
from flows.pipeline import approve_evidence, evidence_run

INBOX_DEPLOYMENT = "inbox"

LOCAL_PREFECT = "http://127.0.0.1:4200/api"
# An inbox-triggered run may be working when the nightly one starts: wait for it, don't skip.
NIGHTLY_LOCK_WAIT = 2 * 3600.0


def local_timezone() -> str:
    """This machine's IANA zone name (cron schedules need one); UTC if it cannot be told."""
    with suppress(OSError):
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            return link.split("zoneinfo/", 1)[1]
    return environment().timezone or "UTC"


def build_deployments(
    inbox: Path, config: Path | None, state: str | None, settings: Settings | None = None
) -> list[Any]:
    """The nightly deployment (cron, in its time zone) and the inbox deployment (no schedule:
    the in-process watcher starts it when settled new files arrive). One run at a time each."""
    settings = settings or load_settings(config)
    params = {"inbox": str(inbox), "config": str(config) if config else None, "state": state}

    def request(trigger: str) -> dict[str, Any]:
        given = RunRequest(
            inbox=inbox,
            config=config,
            state=state,
            trigger=trigger,
            wait_for_lock=NIGHTLY_LOCK_WAIT,
        )
        return {"request": given.model_dump(mode="json", exclude_defaults=True)}

    tz = settings.schedule.timezone or local_timezone()
    cron = settings.schedule.cron
    nightly = evidence_run.to_deployment(
        name="nightly",
        schedules=[Cron(cron, timezone=tz)],
        parameters=request("nightly"),
        concurrency_limit=1,
        description=f"Nightly at '{cron}' ({tz}): ingest the inbox, submit, report.",
        tags=[f"tz:{tz}"],
    )
    dropped = evidence_run.to_deployment(
        name=INBOX_DEPLOYMENT,
        parameters=request("inbox"),
        concurrency_limit=1,
        description="Started by `serve`'s inbox watcher when settled new files arrive "
        "(no schedule: no runs while nothing arrives).",
    )
    return [nightly, dropped, approval_deployment(params)]


def approval_deployment(params: dict[str, Any]) -> Any:
    """Approving held evidence ([review] hold) from the UI: a custom run with the ids."""
    return approve_evidence.to_deployment(
        name="approve",
        parameters={k: params[k] for k in ("inbox", "config", "state")},
        description="Approve evidence waiting for approval: Run → Custom run, list the dispute "
        "ids (or all_complete). It is sent at once, as a run sends it (send=false: recorded "
        "only, and the next run sends it); if a run is working on the inbox, the approval is "
        "recorded and that run, or the next, sends it.",
    )


class DeploymentStarter:
    """The watcher's `start_run`: one inbox flow run at a time, through the Prefect API."""

    def __init__(
        self,
        name: str,
        parameters: dict[str, Any] | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.name = name
        self.parameters = parameters  # overrides of the deployment's defaults
        self.last: Any = None
        self.say = say  # `watch` prints each run it starts, and its headline when it ends
        self._told: Any = None  # the last run whose end was said

    def __call__(self, files: list[str]) -> bool:
        from prefect import get_client
        from prefect.deployments import run_deployment

        try:
            if self.last is not None:
                with get_client(sync_client=True) as client:
                    running = client.read_flow_run(self.last).state
                if running is not None and not running.is_final():
                    return False  # it will pick the files up, or the next check will
            flow_run: Any = run_deployment(self.name, parameters=self.parameters, timeout=0)
        except Exception as exc:  # noqa: BLE001 - the server may still be starting: retry later
            logging.getLogger("dispute_evidence.watch").warning("could not start a run: %s", exc)
            return False
        self.last = flow_run.id
        if self.say is not None:
            self.say(f"started {self.name} run {flow_run.name} for {len(files)} new file(s)")
        return True

    def say_if_ended(self) -> None:
        """Once per run it started: its end state and headline (a "Needs attention" run's
        message is the headline, "5 sent · 3 need you")."""
        if self.say is None or self.last is None or self._told == self.last:
            return
        from prefect import get_client

        try:
            with get_client(sync_client=True) as client:
                run = client.read_flow_run(self.last)
        except Exception:  # noqa: BLE001 - the server is busy: say it at the next look
            return
        if run.state is None or not run.state.is_final():
            return
        self._told = self.last
        headline = run.state.message or _headline(run.state)
        self.say(
            f"{self.name} run {run.name} ended: {run.state.name}"
            + (f": {headline}" if headline else "")
        )


def _headline(state: Any) -> str:
    """A plain Completed run's headline, from its result (the run's "outcome")."""
    try:
        data = state.result(raise_on_failure=False)
    except Exception:  # noqa: BLE001 - results not kept: the state's name says enough
        return ""
    return str(data.get("outcome") or "") if isinstance(data, dict) else ""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PortTaken(RuntimeError):
    """The port `serve --prefect-port` names answers already, or ours could not start on it."""


def ensure_prefect_server(port: int | None = None) -> subprocess.Popen[bytes] | None:
    """Prefect's ephemeral mode cannot schedule: start a local server unless one is configured;
    `port`: on that port only (`serve --prefect-port`), else 4200 or a free one."""
    if environment().prefect_api_url:
        return None
    if port is not None and healthy(f"http://127.0.0.1:{port}/api"):
        raise PortTaken(
            f"--prefect-port {port}: a Prefect server answers there already (someone else's); "
            "choose a free port, or set PREFECT_API_URL to use that server"
        )
    log_path = (
        Path(environment().prefect_home or Path.home() / ".prefect").expanduser()
        / "dispute-evidence-server.log"
    )
    log_path.parent.mkdir(parents=True, exist_ok=True)
    # a server already on 4200 is someone else's: ours goes on a free port, never into theirs
    chosen = port
    port = chosen or (4200 if not healthy(LOCAL_PREFECT) else _free_port())
    for _attempt in range(1 if chosen else 3):
        proc = _start_server(port, log_path)
        url = f"http://127.0.0.1:{port}/api"
        for _ in range(360):  # a first start migrates its database: minutes on a busy machine
            if proc.poll() is not None:
                break  # ours ended (the port was taken meanwhile): whoever answers is not ours
            if healthy(url):
                prefect_env.use_server(url)
                print(
                    f"Prefect UI: {url.removesuffix('/api')}  (server log: {log_path})", flush=True
                )
                return proc
            time.sleep(0.5)
        else:
            proc.terminate()
            break
        port = _free_port()
    if chosen:
        raise PortTaken(
            f"--prefect-port {chosen}: the local Prefect server did not start on it (in use, or "
            "not allowed); choose another port (its log says why)"
        )
    raise RuntimeError(
        "the local Prefect server did not start; set PREFECT_API_URL to an existing one"
    )


def _start_server(port: int, log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("ab") as log:
        return subprocess.Popen(
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
            stdout=log,
            stderr=subprocess.STDOUT,
            # its own session: Ctrl-C or SIGTERM to serve's process group (a terminal, systemd)
            # must not kill the server first; serve stops it last, when its runs have ended
            start_new_session=True,
        )


def serve_deployments(
    inbox: Path,
    config: Path | None,
    state: str | None,
    settings: Settings,
    prefect_port: int | None = None,
) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    # SIGTERM (systemd, docker stop) ends serve like Ctrl-C: the finally below stops the server
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if settings.prefect.api_url:
        prefect_env.use_server(settings.prefect.api_url)
    server = ensure_prefect_server(prefect_port)
    stop = threading.Event()
    marker, working = None, 0
    watcher = InboxWatcher(
        inbox,
        state=state or settings.paths.state,
        settle_seconds=settings.ingest.settle_seconds,
        start_run=DeploymentStarter(f"{evidence_run.name}/{INBOX_DEPLOYMENT}"),
        mode=settings.schedule.inbox_watch,
        poll_seconds=settings.schedule.inbox_poll_seconds,
    )
    api_url = environment().prefect_api_url  # ours, started above, or the one configured
    assert api_url, "ensure_prefect_server names the server it started"
    try:
        # Prefect read its settings at import: point it at the server through its own API
        with temporary_settings(updates={PREFECT_API_URL: api_url}):
            context = contextvars.copy_context()  # the thread must see these settings too
            threading.Thread(
                target=context.run, args=(watcher.run, stop), daemon=True, name="inbox-watcher"
            ).start()
            deployments = build_deployments(inbox, config, state, settings)
            marker = write_server_marker(inbox, api_url, _serve_token(inbox))
            for line in serve_banner(inbox, config, settings):
                print(terminal(line), flush=True)  # the inbox's and config's paths
            working = _serve_quietly(deployments, server.pid if server is not None else None)
    finally:
        stop.set()
        if marker is not None:
            marker.unlink(missing_ok=True)
        left = end_children(except_pid=server.pid if server is not None else None)
        stopped = max(left, working)
        if server is not None:
            _flush_logs()  # to the server while it is there (not "Error logging to API" after)
            stop_server(server)
        print(
            terminal(
                f"serve stopped: no more runs start for {inbox}{_ended(stopped)}; nothing of it "
                "is left running."
            ),
            flush=True,
        )


def _ended(runs: int) -> str:
    return (
        f" ({runs} run(s) still working were stopped; the next run finishes them)" if runs else ""
    )


def _children(except_pid: int | None) -> list[int]:
    """This process's child processes (flow runs the runner started), but the server."""
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError, ValueError, IndexError):
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid == me and pid != except_pid:
                found.append(pid)
    return found


def wait_for_children(except_pid: int | None, grace: float) -> list[int]:
    """Reap the flow runs that end within `grace` seconds; returns those still running."""
    deadline = time.monotonic() + grace
    while (alive := _children(except_pid)) and time.monotonic() < deadline:
        for pid in alive:
            with suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.2)
    return _children(except_pid)


def end_children(except_pid: int | None, grace: float = 20.0) -> int:
    """Wait for the flow runs still ending, so they report to the server before it stops;
    SIGKILL what outlives `grace`. Returns how many there were."""
    children = _children(except_pid)  # each was told to stop (the group's signal, the runner)
    for pid in wait_for_children(except_pid, grace):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return len(children)


def _serve_token(inbox: Path) -> str:
    """A fresh token for this serve, kept on its server: a one-off `run` follows the marker
    only to a server that holds it."""
    import secrets

    from prefect.variables import Variable

    token = secrets.token_hex(16)
    Variable.set(serve_token_name(inbox), token, overwrite=True)
    return token


def _flush_logs() -> None:
    from prefect.logging.handlers import APILogHandler

    loggers = [logging.getLogger(name) for name in ("", "prefect", "prefect.flow_runs")]
    for handler in {h for lg in loggers for h in lg.handlers if isinstance(h, APILogHandler)}:
        with suppress(Exception):  # best effort: the logs are in the terminal anyway
            handler.flush()


def stop_server(server: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """Stop the Prefect server serve started (SIGTERM, then SIGKILL after `grace` seconds)
    and reap it: nothing is left running, not even a zombie."""
    with suppress(ProcessLookupError):
        server.terminate()
    try:
        server.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=grace)


RUNS_GRACE = 45.0  # seconds a stopped serve gives its runs to write their reports (a loaded
# 2-core machine took 23 s; systemd's default stop timeout, 90 s, still leaves room)


def _serve_quietly(deployments: list[Any], server_pid: int | None) -> int:
    """prefect.serve without its banner (its commands need a `prefect` on PATH and the
    server's URL), stopped cleanly by SIGTERM or Ctrl-C. Returns how many runs were working.

    The runs were told too (a terminal's Ctrl-C, systemd's SIGTERM reach the process group):
    each records itself `interrupted` and writes its report, and the runner is stopped only
    once they have ended (RUNS_GRACE at most; a second signal: at once), since stopping it
    cancels and kills them. Prefect's own SIGTERM handler calls the sync `Runner.stop` inside
    its event loop, which leaves `astop` never awaited; asyncio's Ctrl-C cancels the runner,
    which kills its runs at once."""
    import asyncio

    from prefect.runner import Runner

    working: list[int] = []

    class _Runner(Runner):
        def handle_sigterm(self, *args: Any, **kwargs: Any) -> None:
            loop = self._loop
            if loop is None or not self.started:
                raise KeyboardInterrupt
            signalled = bool(stopping)
            # astop, awaited on the runner's own loop: start() then returns by itself
            loop.call_soon_threadsafe(
                lambda: stopping.append(loop.create_task(self._stop(wait=not signalled)))
            )

        async def _stop(self, *, wait: bool) -> None:
            if not self.started:
                return
            if wait:
                if poller := getattr(self, "_scheduled_run_poller", None):
                    poller.stopping = True  # no run starts while the others end
                working.extend(_children(server_pid))
                await asyncio.to_thread(wait_for_children, server_pid, RUNS_GRACE)
            if self.started:
                await self.astop()

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, runner.handle_sigterm)
        await runner.start()

    stopping: list[asyncio.Task[None]] = []  # held until done (the loop keeps weak refs)
    runner = _Runner()
    for deployment in deployments:
        runner.add_deployment(deployment)
    with suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return len(working)


def serve_banner(inbox: Path, config: Path | None, settings: Settings) -> list[str]:
    """What `serve` is doing and commands that work from any shell (full paths, this venv)."""
    import shlex

    bin_dir = Path(sys.executable).parent
    tz = settings.schedule.timezone or local_timezone()
    api = environment().prefect_api_url or LOCAL_PREFECT
    where = f"--inbox {shlex.quote(str(inbox))}" + (
        f" --config {shlex.quote(str(config))}" if config else ""
    )
    return [
        f"Serving {evidence_run.name}/nightly (cron '{settings.schedule.cron}', {tz}) and "
        f"{evidence_run.name}/{INBOX_DEPLOYMENT} (started when settled new files arrive).",
        f"Watching {inbox}. Each run's start and headline are printed here; Ctrl-C stops.",
        f"  run now:        {bin_dir / 'dispute-evidence'} run {where}",
        f"  status:         {bin_dir / 'dispute-evidence'} status {where}",
        f"  nightly now:    PREFECT_API_URL={api} {bin_dir / 'prefect'} deployment run "
        f"'{evidence_run.name}/nightly'",
    ]
