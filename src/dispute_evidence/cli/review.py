"""`review`: the review policy a state keeps, shown or changed on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from dispute_evidence.cli._app import CONFIG_HELP, app, echo
from dispute_evidence.cli._common import _settings_or_exit, exit_on
from dispute_evidence.exits import EXIT_USAGE

if TYPE_CHECKING:
    from dispute_evidence.settings import Settings
    from dispute_evidence.state.store import StateStore

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
    from dispute_evidence.policies import Hold

    if hold is not None and hold not in ("none", "incomplete", "all"):
        raise typer.BadParameter('must be "none", "incomplete" or "all"', param_hint="--hold")
    store = _open_state(_settings_or_exit(config), inbox, state)
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


def _open_state(settings: Settings, inbox: Path | None, state: str | None) -> StateStore:
    """The state named (or the inbox's), opened; one line and exit 2 when there is none."""
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateError, StateStore

    where = state or settings.paths.state or (default_state(inbox) if inbox else None)
    if where is None:
        echo("Give --inbox (or --state).", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        return StateStore(where, must_exist=True)
    except StateError as exc:  # a state that cannot be opened: named wrong (exit 2)
        exit_on(exc, code=EXIT_USAGE)


_STANCE_HELP = '"supports", "concedes" or "leave-out".'


@app.command()
def stance(
    dispute: Annotated[str, typer.Argument(help="The dispute id (dp_…).")],
    message: Annotated[str, typer.Argument(help="The message's key, as the report names it (m…).")],
    choice: Annotated[str, typer.Argument(help=_STANCE_HELP)],
    inbox: Annotated[
        Path | None, typer.Option(help="The inbox (its state sits beside it).")
    ] = None,
    state: Annotated[str | None, typer.Option(help="State store, if not the inbox's.")] = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
) -> None:
    """Confirm the stance of a customer's message the product could not read with certainty.

    The report's Contradictions column names each such message ("message to confirm") with its key and the product's reading. The choice is kept in the state, for that message wherever it is dropped again: the next run rebuilds the dispute's letter with it (supports: argued; concedes: stated under what our records show; leave-out: neither) and releases the dispute when nothing else holds it.

    Exit status: 0 kept, 2 no such state, dispute or message, or a bad choice.
    """
    from dispute_evidence.engine.prepare.case import case_reader
    from dispute_evidence.engine.prepare.stances import choice_word, message_keys, record_choice
    from dispute_evidence.engine.review.approval import candidates

    word = choice_word(choice)
    if word is None:
        raise typer.BadParameter(f"must be {_STANCE_HELP}", param_hint="CHOICE")
    settings = _settings_or_exit(config, inbox)
    inbox = settings.inbox(inbox)
    store = _open_state(settings, inbox, state)
    try:
        found = candidates(store, [dispute]).get(dispute)
        keys = message_keys(found.case(case_reader(store, inbox, [dispute]))) if found else {}
        if message not in keys:
            known = ", ".join(f"{k} (“{t[:40]}”)" for k, t in keys.items()) or "none"
            echo(
                f"{dispute}: no message {message} with evidence to send; its messages: {known}",
                err=True,
            )
            raise typer.Exit(EXIT_USAGE)
        record_choice(store, dispute, message, word)
    finally:
        store.close()
    echo(
        f"{dispute}: message {message} (“{keys[message][:60]}”) kept as {word}; the next run "
        "rebuilds its letter."
    )
