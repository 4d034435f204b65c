"""`dispute-evidence`: the one entry point."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from dispute_evidence.exits import EXIT_DISK_FULL, EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from dispute_evidence.sandbox import RunningSandbox
    from dispute_evidence.settings import Settings

# Prefect reads these at import; no internet here, and analytics would only log errors.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# Prefect's own INFO lines (task started, finished...) are noise in a terminal; -v shows them.
# Only the console handler is quieted: the run's logs still reach the Prefect UI.
os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")


def _flag(name: str, help: str, *short: str) -> Any:
    """A boolean flag (typer 0.29 with click 8.5 would show it as taking a `<bool>`)."""
    return typer.Option(name, *short, metavar="", help=help)


class _Group(TyperGroup):
    """`--help` without a `<bool>` metavar, on the group and every command (see `_flag`)."""

    def get_help_option(self, ctx: Any) -> Any:  # typer's vendored click types
        return _bare(super().get_help_option(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _bare(command.get_help_option(ctx))  # cached by click: the one --help shows
        return command


def _bare(option: Any) -> Any:
    if option is not None:
        option.metavar = ""
    return option


app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__, cls=_Group)


@app.callback()
def _root(
    verbose: Annotated[
        bool,
        _flag("--verbose", "Show Prefect's and the pipeline's INFO logs.", "-v"),
    ] = False,
) -> None:
    """Get merchants' chargeback evidence to the Dispute Evidence API: complete, on time, once."""
    if verbose:  # read when Prefect is first imported, which the commands do lazily
        os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO"
        os.environ["DISPUTE_EVIDENCE_LOG_LEVEL"] = "INFO"


@app.command()
def sandbox(
    host: Annotated[
        str,
        typer.Option(
            help="Interface to bind. Loopback by default; anything else exposes the sandbox."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
    token: Annotated[
        list[str],
        typer.Option(
            "--token",
            help="Accepted bearer token; repeat for several. Env: DISPUTE_SANDBOX_TOKENS (comma-separated).",
        ),
    ] = [],  # noqa: B006
    generate: Annotated[int, typer.Option(help="Generate N realistic disputes at start.")] = 0,
    seed_file: Annotated[
        Path | None,
        typer.Option(
            help="Seed disputes from a JSON list or CSV (provider_dispute_id required per row)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Random seed for --generate and fault injection (reproducible runs)."),
    ] = None,
    db: Annotated[
        str, typer.Option(help="State: ':memory:' or a SQLite file path (kept across restarts).")
    ] = ":memory:",
    rate_limit: Annotated[int, typer.Option(help="Requests admitted per token per window.")] = 5000,
    rate_window: Annotated[
        float, typer.Option(help="Rate-limit window in seconds (sliding).")
    ] = 3600.0,
    evidence_mode: Annotated[
        str,
        typer.Option(
            help="'replace' (default): new evidence replaces the old; 'merge': top-level sections are merged."
        ),
    ] = "replace",
    fail_rate: Annotated[
        float, typer.Option(help="Probability of a 503 before doing anything.")
    ] = 0.0,
    ambiguous_rate: Annotated[
        float,
        typer.Option(
            help="Probability (POSTs) of committing, then answering 502 or dropping the connection."
        ),
    ] = 0.0,
    latency_rate: Annotated[float, typer.Option(help="Probability of added latency.")] = 0.0,
    latency_ms: Annotated[
        tuple[int, int], typer.Option(help="Added latency range in ms (min max).")
    ] = (20, 200),
    hang_rate: Annotated[
        float,
        typer.Option(help="Probability of hanging --hang-seconds, then 504 with nothing done."),
    ] = 0.0,
    hang_seconds: Annotated[
        float, typer.Option(help="How long a hang lasts (longer than a client timeout).")
    ] = 35.0,
    log_level: Annotated[
        str,
        typer.Option(help="Logging level; INFO logs one line per request (no bodies, no tokens)."),
    ] = "INFO",
) -> None:
    """Serve a faithful local Dispute Evidence API (like stripe-mock) under http://HOST:PORT/v1."""
    from dispute_evidence.sandbox.app import SandboxConfig
    from dispute_evidence.sandbox.runner import serve_forever
    from dispute_evidence.sandbox.seed import generate_disputes, load_seed_file

    if evidence_mode not in ("replace", "merge"):
        raise typer.BadParameter("must be 'replace' or 'merge'", param_hint="--evidence-mode")
    tokens = tuple(token) or tuple(
        t.strip()
        for t in os.environ.get("DISPUTE_SANDBOX_TOKENS", "sk_test_sandbox").split(",")
        if t.strip()
    )
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    rows = generate_disputes(generate, seed=seed) if generate else []
    if seed_file:
        rows += load_seed_file(seed_file)
    config = SandboxConfig(
        tokens=tokens,
        rate_limit=rate_limit,
        rate_window=rate_window,
        evidence_mode=evidence_mode,
        fail_rate=fail_rate,
        ambiguous_rate=ambiguous_rate,
        latency_rate=latency_rate,
        latency_ms=latency_ms,
        hang_rate=hang_rate,
        hang_seconds=hang_seconds,
        seed=seed,
    )
    serve_forever(config, rows, host, port, db)


def main() -> None:
    app()


# -- run / demo / status / serve ----------------------------------------------------
def _console_logging() -> None:
    level = os.environ.get("DISPUTE_EVIDENCE_LOG_LEVEL", "WARNING")
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # records propagated from Prefect's loggers
        handler.setLevel(level)  # skip the root logger's level: the handler's still applies
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Prefect API call


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


def _run(
    inbox: Path,
    settings: Settings,
    state: str | None,
    dry_run: bool,
    base_url: str | None,
    trigger: str,
    adopt: bool = False,
    reconcile: bool = False,
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


CONFIG_HELP = (
    "TOML config. Default, first found: $DISPUTE_EVIDENCE_CONFIG, "
    "<inbox>/../config/dispute-evidence.toml, ./config/dispute-evidence.toml."
)
INBOX_HELP = "The inbox folder (spreadsheets and evidence files); default: [paths] inbox."


@app.command()
def run(
    inbox: Annotated[Path | None, typer.Option(help=INBOX_HELP)] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    state: Annotated[
        str | None,
        typer.Option(
            help="State store: a path (SQLite) or an SQLAlchemy URL. Default: <inbox>.state.sqlite3 beside the inbox."
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        _flag(
            "--dry-run",
            "Preview: read and build everything, send nothing and record nothing (the state "
            "is left as it was); the report shows what a real run would send and upload.",
        ),
    ] = False,
    sandbox: Annotated[
        bool,
        _flag(
            "--sandbox",
            "Start a local API for this run instead of using DISPUTE_API_BASE_URL.",
        ),
    ] = False,
    adopt: Annotated[
        bool,
        _flag(
            "--adopt",
            "The inbox moved: let its state store (which names the old place) take it.",
        ),
    ] = False,
    reconcile: Annotated[
        bool,
        _flag(
            "--reconcile",
            "A new state replacing a lost or damaged one: check each dispute's files at the API before uploading.",
        ),
    ] = False,
) -> None:
    """One run: ingest the inbox, build payloads, submit, report.

    Exit status: 0 all sent or skipped by a rule, 1 something failed, 2 usage/config error,
    3 API key refused, 4 API unreachable.
    """
    from dispute_evidence.engine.run import RunLocked, Terminated
    from dispute_evidence.engine.state import StateError, open_read_only, state_exists
    from dispute_evidence.inbox import default_state
    from dispute_evidence.settings import ConfigError

    _console_logging()
    settings = _settings_or_exit(config, inbox)
    inbox = _inbox_or_exit(settings, inbox)
    _utf8_path_or_exit(inbox.resolve())
    _wait_for_files_being_written(inbox, settings.ingest.settle_seconds)
    base_url = None
    sb = None
    if sandbox:
        sb = _sandbox_for(inbox, settings)
        base_url = sb.base_url
    elif not dry_run and not (os.environ.get("DISPUTE_API_BASE_URL") or settings.api.base_url):
        typer.echo(
            "No API configured. Set DISPUTE_API_BASE_URL and DISPUTE_API_TOKEN, or try it locally with "
            "--sandbox (or `dispute-evidence demo`).",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    if not dry_run:
        _api_settings_or_exit(settings, base_url)
    where = state or settings.paths.state or default_state(inbox)
    try:  # checked before the flow starts: a state problem is one line, not a flow traceback
        if state_exists(where):  # read only: a dry run must leave the state as it found it
            with open_read_only(where) as store:
                store.check_inbox(inbox.resolve(), adopt=adopt)
    except StateError as exc:
        typer.echo(f"State store problem: {exc}", err=True)
        raise typer.Exit(EXIT_FAILED) from None

    def terminated(_signum: int, _frame: object) -> None:
        raise Terminated  # stopped like Ctrl-C: the run records what it did, then exits 143

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        result = _run(inbox, settings, state, dry_run, base_url, "manual", adopt, reconcile)
    except KeyboardInterrupt as exc:  # before the run started: nothing was sent
        _stopped_before_the_run(exc)
    except RunLocked as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_FAILED) from None
    except StateError as exc:  # nothing was read or sent; the message says how to recover
        typer.echo(f"State store problem: {exc}", err=True)
        raise typer.Exit(EXIT_FAILED) from None
    except ConfigError as exc:  # e.g. a mapping file that went missing since the check
        for line in str(exc).splitlines():
            typer.echo(f"Configuration error: {line}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except Exception as exc:
        _one_line_or_raise(exc)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if sb is not None:
            sb.stop()
    _print_result(result)
    raise typer.Exit(result["exit_code"])


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


@app.command()
def demo(
    workdir: Annotated[
        Path, typer.Option(help="Where to put the demo's inbox, state and reports.")
    ] = Path("demo-run"),
) -> None:
    """The README's main command: a local API, the pipeline over a copy of sample_data/, the report."""
    import shutil
    from datetime import datetime

    _console_logging()
    os.environ.setdefault(
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0"
    )  # a fresh copy is complete
    source = Path(__file__).resolve().parents[2] / "sample_data"
    if not source.is_dir():
        source = Path("sample_data")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    inbox = workdir / stamp / "inbox"
    shutil.copytree(source, inbox)
    typer.echo(f"Demo: a local Dispute Evidence API and a copy of {source} in {inbox}\n")
    config = source.parent / "config" / "demo.toml"  # a merchant profile for the evidence
    settings = _settings_or_exit(config if config.is_file() else None, inbox)
    sb = _sandbox_for(inbox, None)
    try:
        result = _run(inbox, settings, None, False, sb.base_url, "demo")
    finally:
        sb.stop()
    _print_result(result)
    if result["exit_code"] not in (EXIT_OK, EXIT_FAILED):
        raise typer.Exit(result["exit_code"])


@app.command()
def status(
    inbox: Annotated[
        Path | None, typer.Option(help="The inbox (its state store sits beside it).")
    ] = None,
    state: Annotated[
        str | None, typer.Option(help="State store path or URL, if not the inbox's default.")
    ] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
) -> None:
    """Disputes by status, the amount at risk, what still needs you, the next deadlines, and
    the last runs."""
    from dispute_evidence.engine.state import StateError, StateStore
    from dispute_evidence.inbox import default_state

    settings = _settings_or_exit(config, inbox)
    inbox = settings.inbox(inbox)
    state = state or settings.paths.state
    if not (state or inbox):
        typer.echo("Give --inbox or --state.", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        store = StateStore(state or default_state(inbox), must_exist=True)  # type: ignore[arg-type]
    except StateError as exc:
        typer.echo(f"State store problem: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    try:
        counts = store.status_counts()
        typer.echo(
            "Disputes by status: "
            + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none yet")
        )
        from dispute_evidence.engine.report import dispute_table
        from dispute_evidence.engine.status import DisputeStatus
        from dispute_evidence.reports.money import status_lines

        disputes = dispute_table(store, advice=settings.advice.policy())
        approval = [s.value for s in DisputeStatus if "approv" in s.value]  # when review exists
        waiting = sum(counts.get(s, 0) for s in approval) if approval else None
        for line in status_lines(disputes, waiting):
            typer.echo(line)
        advised = disputes.loc[disputes["advice"] != ""].head(10)
        if not advised.empty:
            typer.echo("Fight or accept (advice; nearest deadlines first):")
            for r in advised.itertuples(index=False):
                typer.echo(f"  {r.provider_dispute_id:<28} {r.advice}")
        from dispute_evidence.engine.outcomes import outcomes_table

        outcomes = outcomes_table(disputes, store.payloads())
        if not outcomes.empty:
            typer.echo("Outcomes (read back from the API): won / lost / open, win rate")
            shown = outcomes.loc[outcomes["dimension"].isin(["all", "reason"])]
            for r in shown.itertuples(index=False):
                label = "all disputes" if r.dimension == "all" else r.value
                typer.echo(f"  {label:<28} {r.won:>5} {r.lost:>5} {r.open:>5}  {r[5] or '-'}")
        typer.echo("Last runs:")
        for r in store.last_runs(5):
            typer.echo(f"  {r['run_id']}  {r['trigger'] or '':<10} {r['outcome'] or ''}")
    finally:
        store.close()


@app.command()
def serve(
    inbox: Annotated[
        Path | None,
        typer.Option(help="The inbox folder to watch and process nightly; default: [paths] inbox."),
    ] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    state: Annotated[str | None, typer.Option(help="State store path or URL.")] = None,
) -> None:
    """Long-running: a nightly deployment and an inbox deployment, served from this process.

    Starts a local Prefect server unless PREFECT_API_URL points at one.
    """
    settings = _settings_or_exit(config, inbox)  # before any server starts: one line per problem
    inbox = _inbox_or_exit(settings, inbox)
    from flows.serve import serve_deployments

    serve_deployments(inbox.resolve(), settings.config_file, state, settings)


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
    if settings.prefect.api_url and not os.environ.get("PREFECT_API_URL"):
        os.environ["PREFECT_API_URL"] = settings.prefect.api_url
    if not os.environ.get("PREFECT_API_URL"):
        typer.echo(
            "Set PREFECT_API_URL (or [prefect] api_url) to your Prefect server, or use `serve`.",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    if (inbox is None) == (merchants is None):
        typer.echo("Give --inbox (one inbox) or --merchants (every merchant's).", err=True)
        raise typer.Exit(EXIT_USAGE)
    from dispute_evidence.watch import InboxWatcher
    from flows.serve import DeploymentStarter

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if merchants is not None:
        watchers = _merchant_watchers(merchants)
    else:
        assert inbox is not None
        if not inbox.is_dir():
            typer.echo(
                f"Inbox not found: {inbox} (create the folder or pass the right --inbox).",
                err=True,
            )
            raise typer.Exit(EXIT_USAGE)
        watchers = [
            InboxWatcher(
                inbox.resolve(),
                state=state or settings.paths.state,
                settle_seconds=settings.ingest.settle_seconds,
                start_run=DeploymentStarter(deployment),
                mode=settings.schedule.inbox_watch,
                poll_seconds=settings.schedule.inbox_poll_seconds,
            )
        ]
        typer.echo(f"Watching {inbox} ({settings.schedule.inbox_watch}); starts {deployment}.")
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,), daemon=True) for w in watchers]
    for t in threads:
        t.start()
    with contextlib.suppress(KeyboardInterrupt):
        while any(t.is_alive() for t in threads):
            time.sleep(1)
    stop.set()


def _deploy_check(merchants: Path, runs: list[Any], keys: int) -> None:
    """The plan, then what it needs from here: inboxes, databases, Secret blocks; exit 2 on
    any problem, one line each."""
    from dispute_evidence.fleet.check import fleet_problems
    from dispute_evidence.fleet.merchants import plan_lines

    for line in plan_lines(runs):
        typer.echo(line)
    problems, unchecked = fleet_problems(runs)
    for line in unchecked:
        typer.echo(f"  {line}")
    for line in problems:
        typer.echo(f"{merchants}: {line}", err=True)
    if problems:
        raise typer.Exit(EXIT_USAGE)
    caveat = " (Secret blocks not checked)" if unchecked else ""
    typer.echo(f"{merchants}: {len(runs)} merchant(s), {keys} key(s): OK{caveat}")


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
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from None
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
                start_run=DeploymentStarter(name, parameters={"trigger": "inbox"}),
                mode=settings.schedule.inbox_watch,
                poll_seconds=settings.schedule.inbox_poll_seconds,
            )
        )
        typer.echo(f"Watching {run.inbox} for {run.id}; starts {name}.")
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
) -> None:
    """Register one deployment per merchant in a work pool on your Prefect server.

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
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from None
    runs = plan_runs(spec, merchants.resolve().parent)
    if check:
        _deploy_check(merchants, runs, len(spec.keys))
        return
    if pool is None:
        typer.echo("Give --pool NAME (the process work pool the workers serve).", err=True)
        raise typer.Exit(EXIT_USAGE)
    if not os.environ.get("PREFECT_API_URL"):
        typer.echo(
            "Set PREFECT_API_URL to your Prefect server (workers on other machines use it too).",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    from flows.fleet import deploy_merchants

    stale = asyncio.run(
        deploy_merchants(spec, merchants.resolve().parent, pool, heartbeat=heartbeat, prune=prune)
    )
    typer.echo(
        f"Deployed {len(runs)} merchant(s) to work pool '{pool}' (deployments merchant-<id>):"
    )
    for line in plan_lines(runs):
        typer.echo(line)
    for name in stale:
        typer.echo(f"  {'deleted' if prune else 'not in the file (--prune deletes it)'}: {name}")
    typer.echo(f"Start workers on any machine: prefect worker start --pool {pool}")


@app.command()
def approve(
    dispute: Annotated[
        list[str] | None,
        typer.Argument(metavar="[DISPUTE]...", help="Dispute ids (dp_…) whose evidence to send."),
    ] = None,
    inbox: Annotated[
        Path | None, typer.Option(help="The inbox (its state store sits beside it).")
    ] = None,
    state: Annotated[
        str | None, typer.Option(help="State store path or URL, if not the inbox's default.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="TOML config (default: config/dispute-evidence.toml if present)."),
    ] = None,
    all_complete: Annotated[
        bool,
        _flag("--all-complete", "Also approve every waiting dispute whose evidence is complete."),
    ] = False,
) -> None:
    """Approve held evidence ([review] hold): the next run sends it, with its files.

    An approval covers the evidence as it is now; if it changes, it waits again.
    Exit status: 0 approved, 2 an unknown dispute or nothing to approve (then none is approved).
    """
    from dispute_evidence.engine.review import approve as approve_evidence
    from dispute_evidence.engine.state import StateError, StateStore
    from dispute_evidence.inbox import default_state

    settings = _settings_or_exit(config)
    where = state or settings.paths.state or (default_state(inbox) if inbox else None)
    if where is None or not (dispute or all_complete):
        typer.echo("Give --inbox (or --state) and dispute ids, or --all-complete.", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        store = StateStore(where, must_exist=True)
    except StateError as exc:
        typer.echo(f"State store problem: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    try:
        result = approve_evidence(store, dispute or [], all_complete=all_complete)
    finally:
        store.close()
    for line in result.refused:
        typer.echo(line, err=True)
    if result.refused and not result.approved:
        raise typer.Exit(EXIT_USAGE)
    for line in result.lines or ["No dispute is waiting with complete evidence."]:
        typer.echo(line)
