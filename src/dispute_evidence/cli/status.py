"""`status` and `approve`: what the state says, and approving held evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dispute_evidence.cli._app import (
    CONFIG_HELP,
    _flag,
    app,
)
from dispute_evidence.cli._common import (
    _settings_or_exit,
)
from dispute_evidence.exits import EXIT_USAGE

# The options `status` and `approve` share
_Inbox = Annotated[Path | None, typer.Option(help="The inbox (its state store sits beside it).")]
_State = Annotated[
    str | None, typer.Option(help="State store path or URL, if not the inbox's default.")
]


@app.command()
def status(
    inbox: _Inbox = None,
    state: _State = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
) -> None:
    """Disputes by status, money at risk, what still needs you, and the last runs."""
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
def approve(
    dispute: Annotated[
        list[str] | None,
        typer.Argument(metavar="[DISPUTE]...", help="Dispute ids (dp_…) whose evidence to send."),
    ] = None,
    inbox: _Inbox = None,
    state: _State = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    all_complete: Annotated[
        bool,
        _flag("--all-complete", "Also approve every waiting dispute whose evidence is complete."),
    ] = False,
) -> None:
    """Approve evidence held for review: the next run sends it, with its files.

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
