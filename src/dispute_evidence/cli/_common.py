"""What the commands share: settings, the inbox, the API, one run in process, one-line endings."""

from __future__ import annotations

import errno
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from dispute_evidence.cli._app import echo
from dispute_evidence.errors import DISK_FULL, DisputeEvidenceError
from dispute_evidence.exits import (
    EXIT_AUTH,
    EXIT_DISK_FULL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
)
from dispute_evidence.settings.environment import environment

if TYPE_CHECKING:
    from dispute_evidence.settings import RunRequest, Settings


def _settings_or_exit(config: Path | None, inbox: Path | None = None, **overrides: Any) -> Settings:
    """The whole configuration, checked before anything starts: each problem one line, exit 2.
    The first line says which config file is used (see settings.find_config for the order)."""
    from dispute_evidence.settings import ConfigError, load_settings

    try:
        settings = load_settings(config, inbox=inbox, **overrides)
    except ConfigError as exc:
        exit_on(exc)
    echo(f"Config: {settings.config_label}", err=True)
    return settings


def _inbox_or_exit(settings: Settings, given: Path | None) -> Path:
    """--inbox, else the config's `[paths] inbox`; one line and exit 2 when neither is usable."""
    inbox = settings.inbox(given)
    if inbox is None:
        echo("Give --inbox, or set `inbox` under [paths] in the config.", err=True)
        raise typer.Exit(EXIT_USAGE)
    if not inbox.is_dir():
        echo(f"Inbox not found: {inbox} (create the folder or pass the right --inbox).", err=True)
        raise typer.Exit(EXIT_USAGE)
    return inbox


def _wait_for_files_being_written(inbox: Path, settle: float) -> None:
    """An explicit run reads what was just copied in: it waits for those files to settle."""
    from dispute_evidence.watch import wait_until_settled

    left = wait_until_settled(inbox, settle, lambda line: echo(line, err=True))
    if left:
        echo(
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
        exit_on(exc)


def _prefect_api(inbox: Path, settings: Settings) -> str | None:
    """The Prefect server to record this run in: PREFECT_API_URL, `[prefect] api_url`, or the
    one this inbox's own `serve` uses. Never whatever else answers on this host: another
    user's server must not receive this inbox's runs. None: the run stays in-process."""
    from dispute_evidence.served import served_prefect_api

    return environment().prefect_api_url or settings.prefect.api_url or served_prefect_api(inbox)


def _utf8_path_or_exit(inbox: Path) -> None:
    """The inbox's own path is kept in the state and in every stored copy's path: it must be
    UTF-8 (names inside it need not be)."""
    from dispute_evidence.names import readable

    shown = readable(str(inbox))
    if shown != str(inbox):
        echo(
            f"The inbox path {shown} is not UTF-8 (each <0x..> is a byte that is not): rename "
            "that folder, or pass a path to it that is.",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)


def _stop_on_interrupt() -> None:
    """SIGINT stops `serve` and `run` as Ctrl-C does, however they were started. A shell starts
    a script's background job (`run &`, `serve &`) with SIGINT ignored, and Python keeps it
    ignored: `kill -INT` did nothing. What they start after this (a Prefect server, runs) gets
    the default."""
    if threading.current_thread() is threading.main_thread():  # (only there can it be set)
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _stopped_before_the_run(exc: KeyboardInterrupt) -> NoReturn:
    from dispute_evidence.engine.run_steps import interrupt_exit_code

    echo("Interrupted: 0 sent so far; run again to finish.", err=True)
    raise typer.Exit(interrupt_exit_code(exc)) from None


def exit_on(
    exc: BaseException, *, code: int | None = None, lines: list[str] | None = None
) -> NoReturn:
    """The one place an error ends a command: a few plain lines and an exit code, never a
    traceback. One of ours (errors.py) says its `lines()` and exits its `exit_code` (`code`: a
    command's own code for it, `lines`: its own words; not for a condition every command says
    alike, `same_everywhere`: a full disk, exit 74, a lost state database, exit 1). Of the
    others, a full disk is one line, exit 74 (every write is transactional: nothing was lost);
    an API address that redirects (before anything was sent), exit 2; one that led to ours is
    said as ours. Anything else is a bug: raised as it is."""
    from dispute_evidence.api.errors import UnexpectedResponse

    if isinstance(exc, DisputeEvidenceError):
        own = exc.same_everywhere
        _say(
            exc.lines() if own or lines is None else lines,
            exc.exit_code if own or code is None else code,
        )
    if isinstance(exc, UnexpectedResponse) and 300 <= (exc.status or 0) < 400:
        _say([f"Configuration error: {exc.message}"], EXIT_USAGE)
    if (where := disk_full(exc)) is not None:
        _say([DISK_FULL.format(where=where)], EXIT_DISK_FULL)
    if (cause := _said_alike(exc)) is not None:  # e.g. the database lost while closing the run
        _say(cause.lines(), cause.exit_code)
    raise exc


def _say(lines: list[str], code: int) -> NoReturn:
    for line in lines:
        echo(line, err=True)
    raise typer.Exit(code) from None


def disk_full(exc: BaseException) -> str | None:
    """Where the disk was full first, if that is what `exc` or what led to it says; else None:
    a write failed with ENOSPC (errno 28), or the state store said StateFull."""
    from dispute_evidence.state.errors import StateFull

    seen: BaseException | None = exc
    where = None
    while seen is not None:  # the first cause is last in the chain
        if isinstance(seen, StateFull):
            where = f"cannot write {seen.where}"
        elif isinstance(seen, OSError) and seen.errno == errno.ENOSPC:
            named = f"cannot write {seen.filename}" if seen.filename else None
            where = named or where or "cannot write a file"  # a re-raise naming the file says more
        seen = seen.__cause__ or seen.__context__
    return where


def _said_alike(exc: BaseException) -> DisputeEvidenceError | None:
    """What led to `exc`, when it is one of ours every command says alike (a state database
    that stopped answering: what was sent is recorded, nothing is sent twice); else None."""
    seen = exc.__cause__ or exc.__context__
    while seen is not None:
        if isinstance(seen, DisputeEvidenceError) and seen.same_everywhere:
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _print_result(result: dict[str, Any]) -> None:
    summary = Path(result["report"])
    if result["exit_code"] in (EXIT_AUTH, EXIT_UNREACHABLE):  # one line says it all
        echo(result.get("stopped") or "The API refused the key.", err=True)
        echo(f"Report: {summary.parent}", err=True)
        return
    echo(summary.with_name("summary.txt").read_text(encoding="utf-8"))
    echo(f"Report: {summary.parent}  (summary.html, disputes.xlsx, problems.xlsx)")
    if result["exit_code"] in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # the last line says so
        echo(result["outcome"], err=True)


def _run(settings: Settings, request: RunRequest) -> dict[str, Any]:
    """One run: as a Prefect flow run when a Prefect server is there to show it, otherwise the
    same steps in this process (no temporary server: seconds instead of 13-23 s)."""
    if api_url := _prefect_api(request.inbox, settings):
        from prefect.settings import PREFECT_API_URL, temporary_settings

        from flows.pipeline import evidence_run

        with temporary_settings(updates={PREFECT_API_URL: api_url}):
            return evidence_run(request)  # type: ignore[return-value]  # a State's data when called
    from dispute_evidence.engine.run_steps import run_inbox
    from dispute_evidence.local_api import run_api
    from flows.alerting import PrefectAlerts  # alerts as a flow run sends them (no Prefect yet)

    with run_api(settings, request) as (api, identity):
        sink = PrefectAlerts()
        if not sys.stderr.isatty():
            return run_inbox(
                settings, request, api=api, api_identity=identity, alert_sink=sink
            ).as_dict()
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
            result = run_inbox(
                settings,
                request,
                api=api,
                api_identity=identity,
                progress=progress,
                alert_sink=sink,
            )
            return result.as_dict()
