"""One merchant's run on any worker: its settings, its token, its key's shared budget."""

from __future__ import annotations

import socket
from pathlib import Path

from dispute_evidence.engine.run_steps import RunResult, run_inbox
from dispute_evidence.engine.session import AlertSink, Progress, StepRunner, plain
from dispute_evidence.fleet.budget import KeyBudgets, SharedBudget
from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.settings import ConfigError, RunRequest, Settings, load_settings
from dispute_evidence.settings.environment import variable
from dispute_evidence.state.database import create_schema

LOCK_POLL_SECONDS = 5.0


def merchant_settings(run: MerchantRun) -> Settings:
    """The shared settings file (if any) with this merchant's profile, state and key on top."""
    base = load_settings(Path(run.config) if run.config else None)
    api = base.api.model_copy(
        update={
            "rate_limit_per_hour": run.rate_limit_per_hour,
            "token_secret_block": run.token_secret_block,
            **({"base_url": run.base_url} if run.base_url else {}),
        }
    )
    paths = base.paths.model_copy(update={"state": run.state})
    return base.model_copy(update={"api": api, "paths": paths, "merchant": run.profile})


def resolve_token(run: MerchantRun) -> str | None:
    """The key's token from the worker's environment; None when a Secret block holds it."""
    if run.token_secret_block:
        return None  # Settings.api_settings loads the block
    value = variable(str(run.token_env)).strip()
    if not value:
        raise ConfigError(
            f"merchant {run.id!r}: key {run.key!r}: environment variable {run.token_env} is not "
            f"set on worker {socket.gethostname()}; set it there (or use token_secret_block)"
        )
    return value


def ensure_schema(run: MerchantRun) -> None:
    """A merchant on the shared PostgreSQL database works in its own schema: create it once."""
    if not run.schema_name:
        return
    create_schema(run.state, run.schema_name)


def merchant_request(run: MerchantRun, trigger: str, dry_run: bool = False) -> RunRequest:
    """The run a merchant of a merchants file asks for (its inbox, state, API, lock wait)."""
    return RunRequest(
        inbox=Path(run.inbox),
        config=Path(run.config) if run.config else None,
        state=run.state,
        dry_run=dry_run,
        trigger=trigger,
        wait_for_lock=run.wait_for_lock,
        base_url=run.base_url,
    )


def run_merchant(
    run: MerchantRun,
    *,
    step: StepRunner = plain,
    progress: Progress | None = None,
    trigger: str = "schedule",
    dry_run: bool = False,
    alert_sink: AlertSink | None = None,
    budgets: KeyBudgets | None = None,
) -> RunResult:
    """Run the merchant's inbox once, every request of its key taking a slot of the key's
    shared budget first. `budgets`: the budgets' database already open (a shard running many
    merchants opens it once); else opened and closed here."""
    request = merchant_request(run, trigger, dry_run)
    settings = merchant_settings(run)
    api = (
        None
        if dry_run
        else settings.api_settings(base_url=request.base_url, token=resolve_token(run))
    )
    ensure_schema(run)
    shared = budgets or KeyBudgets(run.budget_url)
    shape = run.budget_shape()
    try:
        shared.ensure(run.key, shape)
        return run_inbox(
            settings,
            request,
            step=step,
            progress=progress,
            api=api,
            gate=SharedBudget(shared, run.key, shape),
            poll=LOCK_POLL_SECONDS,
            alert_sink=alert_sink,
        )
    finally:
        if budgets is None:
            shared.close()
