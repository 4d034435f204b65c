"""`serve`, `watch` and `deploy`: runs on a schedule and on arrival, in Prefect."""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from dispute_evidence import prefect_env
from dispute_evidence.cli._app import (
    CONFIG_HELP,
    _flag,
    app,
    echo,
    terminal_logging,
)
from dispute_evidence.cli._common import (
    _inbox_or_exit,
    _settings_or_exit,
    _stop_on_interrupt,
    exit_on,
)
from dispute_evidence.exits import EXIT_USAGE
from dispute_evidence.settings.environment import environment


@app.command()
def serve(
    inbox: Annotated[
        Path | None,
        typer.Option(help="The inbox folder to watch and process nightly; default: [paths] inbox."),
    ] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    state: Annotated[str | None, typer.Option(help="State store path or URL.")] = None,
    prefect_port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help="The port of serve's own local Prefect server (its UI too). Default: 4200, or "
            "a free port when 4200 answers already. Not used when PREFECT_API_URL is set.",
        ),
    ] = None,
) -> None:
    """Long-running: a nightly deployment and an inbox deployment, served from this process.

    Starts a local Prefect server unless PREFECT_API_URL points at one.
    """
    settings = _settings_or_exit(config, inbox)  # before any server starts: one line per problem
    inbox = _inbox_or_exit(settings, inbox)
    _stop_on_interrupt()
    from flows.serve import PortTaken, serve_deployments

    try:
        serve_deployments(inbox.resolve(), settings.config_file, state, settings, prefect_port)
    except PortTaken as exc:
        echo(f"serve: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


@app.command()
def watch(
    inbox: Annotated[Path | None, typer.Option(help="The inbox folder to watch.")] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    state: Annotated[str | None, typer.Option(help="State store path or URL.")] = None,
    deployment: Annotated[
        str, typer.Option(help="The deployment to start when settled new files arrive.")
    ] = "dispute-evidence/inbox",
    merchants: Annotated[
        Path | None,
        typer.Option(help="Watch every merchant's inbox of this file (after `deploy`)."),
    ] = None,
) -> None:
    """Start the inbox deployment on your Prefect server when settled new files arrive.

    For prefect.yaml set-ups (PREFECT_API_URL); `serve` does this by itself. Nothing happens
    while the inbox is idle. With --merchants: every merchant's inbox, each starting its own
    merchant deployment."""
    import threading

    settings = _settings_or_exit(config, inbox)
    if merchants is None:
        inbox = settings.inbox(inbox)
    if settings.prefect.api_url:
        prefect_env.use_server(settings.prefect.api_url)
    if not prefect_env.server():
        echo(
            "Set PREFECT_API_URL (or [prefect] api_url) to your Prefect server, or use `serve`.",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    if (inbox is None) == (merchants is None):
        echo("Give --inbox (one inbox) or --merchants (every merchant's).", err=True)
        raise typer.Exit(EXIT_USAGE)
    from dispute_evidence.watch import InboxWatcher
    from flows.serve import DeploymentStarter

    terminal_logging(logging.INFO, "%(asctime)s %(levelname)s %(message)s")
    if merchants is not None:
        watchers = _merchant_watchers(merchants)
    else:
        assert inbox is not None
        if not inbox.is_dir():
            echo(
                f"Inbox not found: {inbox} (create the folder or pass the right --inbox).",
                err=True,
            )
            raise typer.Exit(EXIT_USAGE)
        watchers = [
            InboxWatcher(
                inbox.resolve(),
                state=state or settings.paths.state,
                settle_seconds=settings.ingest.settle_seconds,
                start_run=DeploymentStarter(deployment, say=_say),
                mode=settings.schedule.inbox_watch,
                poll_seconds=settings.schedule.inbox_poll_seconds,
            )
        ]
        echo(f"Watching {inbox} ({settings.schedule.inbox_watch}); starts {deployment}.")
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,), daemon=True) for w in watchers]
    for t in threads:
        t.start()
    starters = [w.start_run for w in watchers if isinstance(w.start_run, DeploymentStarter)]
    with contextlib.suppress(KeyboardInterrupt):
        while any(t.is_alive() for t in threads):
            time.sleep(1)
            for starter in starters:  # each run started: its headline once it ends
                starter.say_if_ended()
    stop.set()
    echo("watch stopped.")


def _say(line: str) -> None:
    from datetime import datetime

    echo(f"{datetime.now():%Y-%m-%d %H:%M:%S} {line}")


def _deploy_check(merchants: Path, runs: list[Any], keys: int) -> None:
    """The plan, then what it needs from here: inboxes, databases, Secret blocks; exit 2 on
    any problem, one line each."""
    from dispute_evidence.fleet.check import fleet_problems
    from dispute_evidence.fleet.merchants import plan_lines

    for line in plan_lines(runs):
        echo(line)
    problems, unchecked = fleet_problems(runs)
    for line in unchecked:
        echo(f"  {line}")
    for line in problems:
        echo(f"{merchants}: {line}", err=True)
    if problems:
        raise typer.Exit(EXIT_USAGE)
    caveat = " (Secret blocks not checked)" if unchecked else ""
    echo(f"{merchants}: {len(runs)} merchant(s), {keys} key(s): OK{caveat}")


def _deploy_sweep(
    spec: Any, merchants: Path, pool: str, heartbeat: int, prune: bool, runs: list[Any]
) -> None:
    import asyncio

    from flows.fleet import deploy_sweep, sweep_name
    from flows.sweep import SWEEP_MINUTES

    stale = asyncio.run(deploy_sweep(spec, merchants, pool, heartbeat=heartbeat, prune=prune))
    zones = sorted({r.timezone for r in runs}) or ["UTC"]
    echo(
        f"Deployed the sweep for {len(runs)} merchant(s) to work pool '{pool}': "
        f"{', '.join(sweep_name(z) for z in zones)} (every {SWEEP_MINUTES} min) and shard."
    )
    echo(f"The merchants are read from {merchants} at every sweep: edit it, no re-deploy.")
    for name in stale:
        echo(f"  {'deleted' if prune else 'not needed by the sweep (--prune deletes it)'}: {name}")
    echo(f"Start workers on any machine: prefect worker start --pool {pool}")


def _merchant_watchers(merchants: Path) -> list[Any]:
    """One watcher per merchant inbox (its settings from the merchants file's config)."""
    from dispute_evidence.fleet.merchants import load_merchants, plan_runs
    from dispute_evidence.fleet.run import ensure_schema, merchant_settings
    from dispute_evidence.settings import ConfigError
    from dispute_evidence.watch import InboxWatcher
    from flows.fleet import deployment_name
    from flows.pipeline import merchant_run
    from flows.serve import DeploymentStarter

    try:
        runs = plan_runs(load_merchants(merchants), merchants.resolve().parent)
    except ConfigError as exc:
        exit_on(exc, lines=[str(exc)])
    watchers = []
    for run in runs:
        settings = merchant_settings(run)
        ensure_schema(run)  # the watcher reads the merchant's state before its first run
        name = f"{merchant_run.name}/{deployment_name(run.id)}"
        watchers.append(
            InboxWatcher(
                Path(run.inbox),
                state=run.state,
                settle_seconds=settings.ingest.settle_seconds,
                start_run=DeploymentStarter(name, parameters={"trigger": "inbox"}, say=_say),
                mode=settings.schedule.inbox_watch,
                poll_seconds=settings.schedule.inbox_poll_seconds,
            )
        )
        echo(f"Watching {run.inbox} for {run.id}; starts {name}.")
    return watchers


@app.command()
def deploy(
    merchants: Annotated[Path, typer.Option(help="The merchants file (TOML).")],
    pool: Annotated[
        str | None,
        typer.Option(help="Process work pool the workers serve (created if missing)."),
    ] = None,
    check: Annotated[
        bool, _flag("--check", "Only check the merchants file and show the plan.")
    ] = False,
    heartbeat: Annotated[
        int, typer.Option(min=30, help="Seconds between run heartbeats (crash detection: 3 beats).")
    ] = 30,
    prune: Annotated[
        bool, _flag("--prune", "Delete merchant deployments the file no longer has.")
    ] = False,
    sweep: Annotated[
        bool,
        _flag(
            "--sweep",
            "A platform's fleet: a sweep per time zone and shards, not one deployment per "
            "merchant (docs/deployment.md); merchants are read from the file at every sweep.",
        ),
    ] = False,
) -> None:
    """Register a merchants file's merchants on your Prefect server, in a work pool.

    One deployment per merchant; with --sweep, a few, whatever the number of merchants.

    Uses PREFECT_API_URL; each API key's budget is shared by its merchants. Run it again to
    update (it never duplicates), then start `prefect worker start --pool NAME` on any number
    of machines. --check only checks: the file, each inbox, each state database, each Secret
    block."""
    import asyncio

    from dispute_evidence.fleet.merchants import load_merchants, plan_lines, plan_runs
    from dispute_evidence.settings import ConfigError

    try:
        spec = load_merchants(merchants)
    except ConfigError as exc:
        exit_on(exc, lines=[str(exc)])
    runs = plan_runs(spec, merchants.resolve().parent)
    if check:
        _deploy_check(merchants, runs, len(spec.keys))
        return
    if pool is None:
        echo("Give --pool NAME (the process work pool the workers serve).", err=True)
        raise typer.Exit(EXIT_USAGE)
    if not environment().prefect_api_url:
        echo(
            "Set PREFECT_API_URL to your Prefect server (workers on other machines use it too).",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    if sweep:
        _deploy_sweep(spec, merchants, pool, heartbeat, prune, runs)
        return
    from flows.fleet import deploy_merchants

    stale = asyncio.run(
        deploy_merchants(spec, merchants.resolve().parent, pool, heartbeat=heartbeat, prune=prune)
    )
    echo(f"Deployed {len(runs)} merchant(s) to work pool '{pool}' (deployments merchant-<id>):")
    for line in plan_lines(runs):
        echo(line)
    for name in stale:
        echo(f"  {'deleted' if prune else 'not in the file (--prune deletes it)'}: {name}")
    echo(f"Start workers on any machine: prefect worker start --pool {pool}")
