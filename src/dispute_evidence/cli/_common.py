"""What the commands share: settings, the inbox, the API, one run in process, one-line endings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from dispute_evidence.exits import EXIT_DISK_FULL, EXIT_USAGE

if TYPE_CHECKING:
    from dispute_evidence.sandbox import RunningSandbox
    from dispute_evidence.settings import Settings


def _settings_or_exit(config: Path | None, inbox: Path | None = None) -> Settings:
    """The whole configuration, checked before anything starts: each problem one line, exit 2.
    The first line says which config file is used (see settings.find_config for the order)."""
    from dispute_evidence.settings import ConfigError, load_settings

    try:
        settings = load_settings(config, inbox=inbox)
    except ConfigError as exc:
        for line in str(exc).splitlines():
            typer.echo(f"Configuration error: {line}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(f"Config: {settings.config_label}", err=True)
    return settings


def _inbox_or_exit(settings: Settings, given: Path | None) -> Path:
    """--inbox, else the config's `[paths] inbox`; one line and exit 2 when neither is usable."""
    inbox = settings.inbox(given)
    if inbox is None:
        typer.echo("Give --inbox, or set `inbox` under [paths] in the config.", err=True)
        raise typer.Exit(EXIT_USAGE)
    if not inbox.is_dir():
        typer.echo(
            f"Inbox not found: {inbox} (create the folder or pass the right --inbox).", err=True
        )
        raise typer.Exit(EXIT_USAGE)
    return inbox


def _wait_for_files_being_written(inbox: Path, settle: float) -> None:
    """An explicit run reads what was just copied in: it waits for those files to settle."""
    from dispute_evidence.watch import wait_until_settled

    left = wait_until_settled(inbox, settle, lambda line: typer.echo(line, err=True))
    if left:
        typer.echo(
            f"{len(left)} file(s) are still being written; they are left for the next run.",
            err=True,
        )


def _api_settings_or_exit(settings: Settings, base_url: str | None) -> None:
    """The API's URL and token checked before the run starts: a missing or unusable one is one
    line naming its variable (never the token), exit 2."""
    from dispute_evidence.settings import ConfigError

    try:
        settings.api_settings(base_url=base_url)
    except ConfigError as exc:
        for line in str(exc).splitlines():
            typer.echo(f"Configuration error: {line}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


SANDBOX_DB = "sandbox.sqlite3"  # in <inbox>/.dispute-evidence/: the inbox's own local API


def _sandbox_for(inbox: Path, settings: object) -> RunningSandbox:
    """A local API that knows the disputes named in the inbox (as the real provider would).
    Its state is kept in the inbox's private folder, so the next `--sandbox` run meets the
    same API: the disputes, evidence and files the last one sent are still there."""
    from dispute_evidence.ingest import ingest_paths, scan_inbox
    from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
    from dispute_evidence.sandbox.seed import generate_disputes

    sheets, _, _ = scan_inbox(inbox)
    records = ingest_paths(sheets, inbox).records["disputes"]
    template = generate_disputes(max(len(records), 1), seed=7)
    rows = []
    for tmpl, d in zip(template, records.to_dict("records"), strict=False):
        row = {**tmpl, "provider_dispute_id": d["provider_dispute_id"]}
        if d.get("response_due_by"):
            row["response_due_by"] = d["response_due_by"]
        if d.get("currency"):
            row["currency"] = d["currency"]
        rows.append(row)
    token = "sk_test_" + os.urandom(12).hex()
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(token,)), rows, db_path=_sandbox_db(inbox))
    os.environ["DISPUTE_API_TOKEN"] = token  # this process only; never a flow parameter
    return sb


def _with_sandbox(settings: Settings, sb: RunningSandbox) -> Settings:
    """The settings with the API replaced by the inbox's local one (its URL and token)."""
    from pydantic import SecretStr

    api = settings.api.model_copy(
        update={"base_url": sb.base_url, "token": SecretStr(sb.config.tokens[0])}
    )
    return settings.model_copy(update={"api": api})


def _sandbox_identity(inbox: Path) -> str:
    """What the state calls the inbox's own sandbox: where it keeps its state (one in memory
    is a new API each run)."""
    from dispute_evidence.engine.store.apis import sandbox_identity

    db = _sandbox_db(inbox)
    return sandbox_identity(db if db != ":memory:" else f"in memory {os.urandom(6).hex()}")


def _sandbox_db(inbox: Path) -> str:
    """<inbox>/.dispute-evidence/sandbox.sqlite3, or memory when that folder is unusable (a
    link or a file: never written through; the run's report names the folder)."""
    from dispute_evidence.inbox import PRIVATE, InboxLayout

    layout = InboxLayout.at(inbox)
    if PRIVATE in layout.folder_problems():
        return ":memory:"
    folder = layout.root / PRIVATE
    folder.mkdir(mode=0o700, exist_ok=True)
    return str(folder / SANDBOX_DB)


def _prefect_api(inbox: Path, settings: Settings) -> str | None:
    """The Prefect server to record this run in: PREFECT_API_URL, `[prefect] api_url`, or the
    one this inbox's own `serve` uses. Never whatever else answers on this host: another
    user's server must not receive this inbox's runs. None: the run stays in-process."""
    from dispute_evidence.served import served_prefect_api

    return (
        os.environ.get("PREFECT_API_URL") or settings.prefect.api_url or served_prefect_api(inbox)
    )


def _utf8_path_or_exit(inbox: Path) -> None:
    """The inbox's own path is kept in the state and in every stored copy's path: it must be
    UTF-8 (names inside it need not be)."""
    from dispute_evidence.names import readable

    shown = readable(str(inbox))
    if shown != str(inbox):
        typer.echo(
            f"The inbox path {shown} is not UTF-8 (each <0x..> is a byte that is not): rename "
            "that folder, or pass a path to it that is.",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)


def _stopped_before_the_run(exc: KeyboardInterrupt) -> None:
    from dispute_evidence.engine.run import interrupt_exit_code

    typer.echo("Interrupted: 0 sent so far; run again to finish.", err=True)
    raise typer.Exit(interrupt_exit_code(exc)) from None


def _one_line_or_raise(exc: Exception) -> None:
    """A full disk is one line, exit 74 (every write is transactional: nothing was lost); an
    API address that redirects (before anything was sent) is one line, exit 2."""
    from dispute_evidence.api.errors import UnexpectedResponse
    from dispute_evidence.engine.run import DISK_FULL, disk_full

    if isinstance(exc, UnexpectedResponse) and 300 <= (exc.status or 0) < 400:
        typer.echo(f"Configuration error: {exc.message}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    where = disk_full(exc)
    if where is None:
        raise exc
    typer.echo(DISK_FULL.format(where=where), err=True)
    raise typer.Exit(EXIT_DISK_FULL) from None


def _print_result(result: dict[str, Any]) -> None:
    summary = Path(result["report"])
    if result["exit_code"] in (3, 4):  # key refused, API unreachable: one line says it all
        typer.echo(result.get("stopped") or "The API refused the key.", err=True)
        typer.echo(f"Report: {summary.parent}", err=True)
        return
    typer.echo(summary.with_name("summary.txt").read_text(encoding="utf-8"))
    typer.echo(f"Report: {summary.parent}  (summary.html, disputes.xlsx, problems.xlsx)")
    if result["exit_code"] in (130, 143):  # Ctrl-C or SIGTERM: the last line says so
        typer.echo(result["outcome"], err=True)


def _run(
    inbox: Path,
    settings: Settings,
    state: str | None,
    dry_run: bool,
    base_url: str | None,
    trigger: str,
    adopt: bool = False,
    reconcile: bool = False,
    api_identity: str | None = None,
) -> dict[str, Any]:
    """One run: as a Prefect flow run when a Prefect server is there to show it, otherwise the
    same steps in this process (no temporary server: seconds instead of 13-23 s)."""
    if api_url := _prefect_api(inbox, settings):
        os.environ["PREFECT_API_URL"] = api_url
        from flows.pipeline import evidence_run

        return evidence_run(  # type: ignore[return-value]  # a State's data when called
            str(inbox),
            str(settings.config_file) if settings.config_file else None,
            state,
            dry_run,
            base_url,
            trigger,
            adopt=adopt,
            reconcile=reconcile,
            api_identity=api_identity,
        )
    from dispute_evidence.engine.run import run_inbox

    api = None if dry_run else settings.api_settings(base_url=base_url)
    kw = dict(
        api=api,
        state=state,
        dry_run=dry_run,
        trigger=trigger,
        adopt=adopt,
        reconcile=reconcile,
        config_dir=Path("config"),
        api_identity=api_identity,
    )
    if not sys.stderr.isatty():
        return run_inbox(settings, inbox, **kw).as_dict()  # type: ignore[arg-type]
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("submitting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("disputes"),
        TimeRemainingColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("submit", total=None)
        progress = lambda done, total: bar.update(task, completed=done, total=total)  # noqa: E731
        return run_inbox(settings, inbox, progress=progress, **kw).as_dict()  # type: ignore[arg-type]
