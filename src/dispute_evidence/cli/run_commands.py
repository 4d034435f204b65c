"""`run`, `demo` and `sandbox`: one run of the pipeline, and the local API."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dispute_evidence.exits import EXIT_FAILED, EXIT_NEEDS_YOU, EXIT_OK, EXIT_USAGE, exit_help
from dispute_evidence.settings import RunRequest
from dispute_evidence.settings.environment import environment

if TYPE_CHECKING:
    from dispute_evidence.settings import Settings

from dispute_evidence.cli._app import (
    CONFIG_HELP,
    INBOX_HELP,
    _console_logging,
    _flag,
    app,
    echo,
    terminal_logging,
)
from dispute_evidence.cli._common import (
    _api_settings_or_exit,
    _inbox_or_exit,
    _print_result,
    _run,
    _settings_or_exit,
    _stop_on_interrupt,
    _stopped_before_the_run,
    _utf8_path_or_exit,
    _wait_for_files_being_written,
    exit_on,
)

# The sandbox's options (aliases keep the command's signature one line per option)
_Host = Annotated[
    str, typer.Option(help="Interface to bind. Loopback by default; anything else exposes it.")
]
_Tokens = Annotated[
    list[str],
    typer.Option(
        "--token",
        help="Accepted bearer token; repeat for several. Env: DISPUTE_SANDBOX_TOKENS (comma-separated).",
    ),
]
_SeedFile = Annotated[
    Path | None,
    typer.Option(
        help="Seed disputes from a JSON list or CSV (provider_dispute_id required per row)."
    ),
]
_Seed = Annotated[
    int | None,
    typer.Option(help="Random seed for --generate and fault injection (reproducible runs)."),
]
_Db = Annotated[
    str, typer.Option(help="State: ':memory:' or a SQLite file path (kept across restarts).")
]
_Mode = Annotated[
    str,
    typer.Option(
        help="'replace' (default): new evidence replaces the old; 'merge': top-level sections are merged."
    ),
]
_Ambiguous = Annotated[
    float,
    typer.Option(
        help="Probability (POSTs) of committing, then answering 502 or dropping the connection."
    ),
]
_Hang = Annotated[
    float, typer.Option(help="Probability of hanging --hang-seconds, then 504 with nothing done.")
]
_LogLevel = Annotated[
    str, typer.Option(help="Logging level; INFO logs one line per request (no bodies, no tokens).")
]


@app.command()
def sandbox(
    host: _Host = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
    token: _Tokens = [],  # noqa: B006
    generate: Annotated[int, typer.Option(help="Generate N realistic disputes at start.")] = 0,
    seed_file: _SeedFile = None,
    seed: _Seed = None,
    db: _Db = ":memory:",
    rate_limit: Annotated[int, typer.Option(help="Requests admitted per token per window.")] = 5000,
    rate_window: Annotated[float, typer.Option(help="Rate-limit window in seconds.")] = 3600.0,
    evidence_mode: _Mode = "replace",
    fail_rate: Annotated[float, typer.Option(help="Probability of a 503 before anything.")] = 0.0,
    ambiguous_rate: _Ambiguous = 0.0,
    latency_rate: Annotated[float, typer.Option(help="Probability of added latency.")] = 0.0,
    latency_ms: Annotated[tuple[int, int], typer.Option(help="Added latency (min max ms).")] = (
        20,
        200,
    ),
    hang_rate: _Hang = 0.0,
    hang_seconds: Annotated[float, typer.Option(help="How long a hang lasts.")] = 35.0,
    log_level: _LogLevel = "INFO",
) -> None:
    """Serve a faithful local Dispute Evidence API (like stripe-mock) under http://HOST:PORT/v1."""
    from dispute_evidence.sandbox.app import SandboxConfig
    from dispute_evidence.sandbox.runner import serve_forever
    from dispute_evidence.sandbox.seed import generate_disputes, load_seed_file

    if evidence_mode not in ("replace", "merge"):
        raise typer.BadParameter("must be 'replace' or 'merge'", param_hint="--evidence-mode")
    tokens = tuple(token) or tuple(
        t.strip() for t in environment().sandbox_tokens.split(",") if t.strip()
    )
    terminal_logging(log_level.upper(), "%(asctime)s %(levelname)s %(name)s %(message)s")
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


def _api_or_exit(settings: Settings) -> None:
    """A real run needs an API (and a usable token): one line, exit 2, when it has none."""
    if not settings.api.base_url:
        echo(
            "No API configured. Set DISPUTE_API_BASE_URL and DISPUTE_API_TOKEN, or try it locally with "
            "--sandbox (or `dispute-evidence demo`).",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    _api_settings_or_exit(settings, None)


def _state_or_exit(state: str | None, inbox: Path, adopt: bool, dry_run: bool = False) -> None:
    """Checked before the flow starts: a state problem is one line, not a flow traceback (read
    only: a dry run must leave the state as it found it). A run already working on this inbox
    (`serve`'s, say) is given way to here, before any flow run could log it as an error."""
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateError, open_read_only, state_exists

    where = state or default_state(inbox)
    holder = None
    try:
        if state_exists(where):
            with open_read_only(where) as store:
                store.runs.check_inbox(inbox.resolve(), adopt=adopt)
                holder = None if dry_run else store.locks.run_lock_holder()
    except (StateError, OSError) as exc:  # a full disk where the state is: one line, exit 74
        exit_on(exc)
    if holder:
        from dispute_evidence.engine.run_steps import RunLocked

        exit_on(RunLocked(f"another run is in progress on this inbox/state: {holder}"))


def _run_to_the_end(settings: Settings, request: RunRequest) -> dict[str, Any]:
    """The run, stopped by SIGTERM like Ctrl-C; each way it can end is one line and an exit code."""
    from dispute_evidence.engine.run_steps import Terminated

    def terminated(_signum: int, _frame: object) -> None:
        raise Terminated  # stopped like Ctrl-C: the run records what it did, then exits 143

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        return _run(settings, request)
    except KeyboardInterrupt as exc:  # before the run started: nothing was sent
        _stopped_before_the_run(exc)
    except Exception as exc:  # another run holds the lock, a state or configuration problem...
        exit_on(exc)
    finally:
        signal.signal(signal.SIGTERM, previous)


RUN_HELP = "One run: ingest the inbox, build payloads, submit, report.\n\n" + exit_help()


@app.command(help=RUN_HELP)
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
    _console_logging()
    _stop_on_interrupt()
    settings = _settings_or_exit(config, inbox)
    inbox = _inbox_or_exit(settings, inbox)
    _utf8_path_or_exit(inbox.resolve())
    _wait_for_files_being_written(inbox, settings.ingest.settle_seconds)
    request = RunRequest(
        inbox=inbox,
        config=settings.config_file,
        state=state,
        dry_run=dry_run,
        adopt=adopt,
        reconcile=reconcile,
        sandbox=sandbox,
    )
    if not (sandbox or dry_run):
        _api_or_exit(settings)
    _state_or_exit(state or settings.paths.state, inbox, adopt, dry_run)
    result = _run_to_the_end(settings, request)
    _print_result(result)
    raise typer.Exit(result["exit_code"])


# src/dispute_evidence/cli/run_commands.py -> the checkout
CHECKOUT = Path(__file__).resolve().parents[3]


def sample_data() -> Path:
    """The demo's inbox to copy: the checkout's sample_data/ wherever the demo is started from,
    else one in the working directory (an installed package has no checkout); none: exit 2."""
    for source in (CHECKOUT / "sample_data", Path("sample_data")):
        if source.is_dir():
            return source
    echo(
        f"Demo: no sample_data/ folder (looked in {CHECKOUT} and {Path.cwd()}); run the demo "
        "from the project's checkout (make demo)",
        err=True,
    )
    raise typer.Exit(EXIT_USAGE)


@app.command()
def demo(
    workdir: Annotated[
        Path, typer.Option(help="Where to put the demo's inbox, state and reports.")
    ] = Path("demo-run"),
) -> None:
    """The README's main command: a local API, the pipeline over a copy of sample_data/, the report."""
    import shutil
    from datetime import datetime

    from dispute_evidence.documents.reading import ReadLimits, missing_ocr_line

    _console_logging()
    source = sample_data()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    inbox = workdir / stamp / "inbox"
    shutil.copytree(source, inbox)
    echo(f"Demo: a local Dispute Evidence API and a copy of {source} in {inbox}\n")
    if missing := missing_ocr_line(ReadLimits()):  # the demo still runs: what it loses, said
        echo(missing + "\n", err=True)
    config = source.parent / "config" / "demo.toml"  # a merchant profile for the evidence
    fresh = {"ingest": {"settle_seconds": 0}}  # a fresh copy is complete
    settings = _settings_or_exit(config if config.is_file() else None, inbox, **fresh)
    request = RunRequest(
        inbox=inbox, config=settings.config_file, trigger="demo", sandbox=True, overrides=fresh
    )
    result = _run(settings, request)
    _print_result(result)
    if result["exit_code"] not in (EXIT_OK, EXIT_FAILED, EXIT_NEEDS_YOU):
        raise typer.Exit(result["exit_code"])
