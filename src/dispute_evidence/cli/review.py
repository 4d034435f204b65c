"""`review`: the review policy a state keeps, shown or changed on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, cast

import typer

from dispute_evidence.cli._app import CONFIG_HELP, app, echo
from dispute_evidence.cli._common import _settings_or_exit, exit_on
from dispute_evidence.exits import EXIT_USAGE

_HOLD_HELP = (
    'Record what this state holds for approval: "none" (send without approval), '
    '"incomplete" or "all". Without it, show what the state holds.'
)


@app.command()
def review(
    inbox: Annotated[
        Path | None, typer.Option(help="The inbox (its state sits beside it).")
    ] = None,
    state: Annotated[str | None, typer.Option(help="State store, if not the inbox's.")] = None,
    hold: Annotated[str | None, typer.Option(help=_HOLD_HELP)] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
) -> None:
    """Show or set the review policy this state keeps.

    Once a run held evidence for approval, later runs keep holding it even when their settings say less (a missing setting never sends evidence unapproved); this command is how review is lowered or turned off.

    Exit status: 0 done, 2 no such state or a bad --hold value.
    """
    from dispute_evidence.engine.review.policy import keep_policy, kept_policy
    from dispute_evidence.inbox import default_state
    from dispute_evidence.policies import Hold
    from dispute_evidence.state.store import StateError, StateStore

    if hold is not None and hold not in ("none", "incomplete", "all"):
        raise typer.BadParameter('must be "none", "incomplete" or "all"', param_hint="--hold")
    settings = _settings_or_exit(config)
    where = state or settings.paths.state or (default_state(inbox) if inbox else None)
    if where is None:
        echo("Give --inbox (or --state).", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        store = StateStore(where, must_exist=True)
    except StateError as exc:  # a state that cannot be opened: named wrong (exit 2)
        exit_on(exc, code=EXIT_USAGE)
    try:
        kept = kept_policy(store)
        if hold is None:
            echo(f"Review: {kept.words()}" if kept else 'Review: hold = "none" (never set)')
            return
        sweep = kept.sweep_hours if kept else None
        now = keep_policy(store, cast(Hold, hold), sweep, "the review command")
    finally:
        store.close()
    was = f" (was {kept.words()})" if kept else ""
    echo(f"Review: {now.words()}{was}.")
    if hold != "all":
        echo(
            "The next run sends what this policy no longer holds (held evidence that is "
            "approved stays approved); a run whose settings hold more raises it again."
        )
