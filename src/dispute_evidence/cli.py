"""`dispute-evidence`: the one entry point."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated

import typer

# Prefect reads these at import; no internet here, and analytics would only log errors.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)


@app.callback()
def _root() -> None:
    """Get merchants' chargeback evidence to the Dispute Evidence API: complete, on time, once."""


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
        tokens=tokens, rate_limit=rate_limit, rate_window=rate_window, evidence_mode=evidence_mode,
        fail_rate=fail_rate, ambiguous_rate=ambiguous_rate, latency_rate=latency_rate,
        latency_ms=latency_ms, hang_rate=hang_rate, hang_seconds=hang_seconds, seed=seed,
    )  # fmt: skip
    serve_forever(config, rows, host, port, db)


def main() -> None:
    app()
