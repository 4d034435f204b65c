"""`status` and `approve`: what the state says, and approving held evidence."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Protocol

import typer

from dispute_evidence.cli._app import (
    CONFIG_HELP,
    _console_logging,
    _flag,
    app,
    echo,
)
from dispute_evidence.cli._common import (
    _settings_or_exit,
    exit_on,
)
from dispute_evidence.exits import APPROVE_EXIT_CODES, EXIT_USAGE, exit_help
from dispute_evidence.state.holders import (
    HasDisputes,
    HasRecords,
    HasReports,
    HasRuns,
    HasScoped,
    HasStanding,
)


class StatusParts(HasDisputes, HasRecords, HasReports, HasRuns, HasScoped, HasStanding, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


if TYPE_CHECKING:
    from dispute_evidence.api import ApiSettings
    from dispute_evidence.api.pacer import RequestGate
    from dispute_evidence.fleet.budget import KeyBudgets
    from dispute_evidence.fleet.merchants import MerchantRun
    from dispute_evidence.settings import Settings
    from dispute_evidence.state.store import StateError

# The options `status` and `approve` share
_Inbox = Annotated[Path | None, typer.Option(help="The inbox (its state store sits beside it).")]
_State = Annotated[
    str | None, typer.Option(help="State store path or URL, if not the inbox's default.")
]
_Merchant = Annotated[
    str | None,
    typer.Option(help="A fleet merchant's id: its inbox, state and key from the merchants file."),
]
MERCHANTS_DEFAULT = "config/merchants.toml"
_Merchants = Annotated[
    Path | None,
    typer.Option(
        help="The merchants file for --merchant. Default: $DISPUTE_EVIDENCE_MERCHANTS, else "
        f"./{MERCHANTS_DEFAULT}."
    ),
]


def _fleet_nights(merchants: Path) -> None:
    """One line per merchant: its last night (done, failing, waiting, running), what it did,
    and its next night (the sweep's ledger, fleet/nights.py: no state is opened)."""
    from datetime import UTC, datetime

    from dispute_evidence.fleet.merchants import load_merchants, plan_runs
    from dispute_evidence.fleet.nights import NightLedger
    from dispute_evidence.fleet.sweep import status_rows
    from dispute_evidence.settings import ConfigError

    try:
        runs = plan_runs(load_merchants(merchants), merchants.resolve().parent)
    except ConfigError as exc:
        exit_on(exc, lines=[str(exc)])
    if not runs:
        echo(f"{merchants}: no merchant.")
        return
    ledger = NightLedger(runs[0].budget_url)
    try:
        rows = status_rows(runs, ledger, datetime.now(UTC))
    finally:
        ledger.close()
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["state"]] = counts.get(r["state"], 0) + 1
    echo(f"{len(rows)} merchant(s): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for r in rows:
        last = f"last night {r['last night']}: {r['state']}" if r["last night"] else r["state"]
        said = f" ({r['last outcome']})" if r["last outcome"] else ""
        echo(f"  {r['merchant']:<16} {last}{said}; next {r['next night']}")


@app.command()
def status(
    inbox: _Inbox = None,
    state: _State = None,
    config: Annotated[Path | None, typer.Option(help=CONFIG_HELP)] = None,
    merchant: _Merchant = None,
    merchants: _Merchants = None,
) -> None:
    """Disputes by status, money at risk, what still needs you, and the last runs."""
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateError, StateStore

    if merchants is not None and not (merchant or inbox or state):
        _fleet_nights(merchants)  # a platform's fleet: each merchant's night, from the sweep
        return
    if merchant:
        picked = _merchant_or_exit(merchant, merchants)
        settings, inbox, state = _merchant_settings(picked), Path(picked.inbox), picked.state
    else:
        settings = _settings_or_exit(config, inbox)
        inbox = settings.inbox(inbox)
        state = state or settings.paths.state
    if not (state or inbox):
        echo("Give --inbox or --state.", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        store = StateStore(state or default_state(inbox), must_exist=True)  # type: ignore[arg-type]
    except StateError as exc:
        _state_problem(exc, None if merchant or state else inbox, merchants)
    try:
        counts = store.reports.status_counts()
        echo(
            "Disputes by status: "
            + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none yet")
        )
        from dispute_evidence.engine.reporting.report import Snapshot, dispute_table
        from dispute_evidence.reports.columns import title
        from dispute_evidence.reports.status_lines import status_lines
        from dispute_evidence.state.lifecycle import DisputeStatus

        # each case as the report builds it: its documents with the facts read from them
        snap = Snapshot.read(store, inbox)
        disputes = dispute_table(store, advice=settings.advice.policy(), snap=snap)
        approval = [s.value for s in DisputeStatus if "approv" in s.value]  # when review exists
        waiting = sum(counts.get(s, 0) for s in approval) if approval else None
        for line in status_lines(disputes, waiting):
            echo(line)
        for line in _ratio_lines(store, settings):
            echo(f"Dispute ratio: {line}")
        advised = disputes.loc[disputes["advice"] != ""].head(10)
        if not advised.empty:
            echo(f"{title('advice')} (advice; nearest deadlines first):")
            for r in advised.itertuples(index=False):
                echo(f"  {r.provider_dispute_id:<28} {r.advice}")
        from dispute_evidence.engine.reporting.outcomes import kinds_now, outcomes_table

        sent = (
            disputes.loc[disputes["dispute_id"].fillna("") != "", "provider_dispute_id"]
            if "dispute_id" in disputes
            else []
        )
        outcomes = outcomes_table(disputes, kinds_now(store, sent, store.disputes.payloads()))
        if not outcomes.empty:
            echo("Outcomes (read back from the API): won / lost / open, win rate")
            shown = outcomes.loc[outcomes["dimension"].isin(["all", "reason"])]
            for r in shown.itertuples(index=False):
                label = "all disputes" if r.dimension == "all" else r.value
                echo(f"  {label:<28} {r.won:>5} {r.lost:>5} {r.open:>5}  {r[5] or '-'}")
        echo("Last runs:")
        for r in store.runs.last_runs(5):
            echo(f"  {r['run_id']}  {r['trigger'] or '':<10} {r['outcome'] or ''}")
    finally:
        store.close()


def _ratio_lines(store: StatusParts, settings: Settings) -> list[str]:
    """This or last month at watch or over on a network (the report's standing section)."""
    from dispute_evidence import clock
    from dispute_evidence.engine.reporting.standing_read import merchant_standing
    from dispute_evidence.standing.counts import attention_lines

    standing = merchant_standing(store, settings.standing.policy(), ce3=False, keep=False)
    return attention_lines(standing.table, clock.now())


APPROVE_HELP = (
    "Approve evidence held for review and send it now (just those disputes, as a run does).\n\n"
    "An approval covers the evidence as it is now, and names you (your user name); if the "
    "evidence changes, it waits again. If a run is working on the inbox, the approval is "
    "recorded and that run (or the next) sends it.\n\n" + exit_help(APPROVE_EXIT_CODES)
)


@app.command(help=APPROVE_HELP)
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
    no_send: Annotated[
        bool, _flag("--no-send", "Record the approval only: the next run sends it.")
    ] = False,
    merchant: _Merchant = None,
    merchants: _Merchants = None,
) -> None:
    """Approve held evidence and send it now (APPROVE_HELP: what it says and returns)."""
    from dispute_evidence.engine.approve import approve_and_send
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateError

    _console_logging()
    picked = _merchant_or_exit(merchant, merchants) if merchant else None
    where: str | Path | None
    if picked is not None:
        settings, inbox, where = _merchant_settings(picked), Path(picked.inbox), picked.state
    else:
        settings = _settings_or_exit(config, inbox)
        inbox = settings.inbox(inbox)
        where = state or settings.paths.state or (default_state(inbox) if inbox else None)
    if where is None or not (dispute or all_complete):
        echo("Give --inbox (or --state) and dispute ids, or --all-complete.", err=True)
        raise typer.Exit(EXIT_USAGE)
    api, budgets, gate, why = None, None, None, ""
    if not no_send and picked is not None:
        api, budgets, gate, why = _merchant_api(picked)
    elif not no_send:
        api, why = _api_for_approve(settings, inbox)
    try:
        done = approve_and_send(
            settings,
            inbox,
            dispute or [],
            by=approver(),
            state=where,
            api=api,
            all_complete=all_complete,
            gate=gate,
        )
    except StateError as exc:
        given = picked is not None or state or settings.paths.state
        _state_problem(exc, None if given else inbox, merchants)
    except Exception as exc:  # a full disk (exit 74) or a lost state database (exit 1)
        exit_on(exc)
    finally:
        if budgets is not None:
            budgets.close()
    for line in done.refused:
        echo(line, err=True)
    if why and done.approved:
        echo(why)
    if done.refused and not (done.approved or done.lines):  # a typo approves nothing: said above
        raise typer.Exit(done.exit_code)
    for line in done.lines or ["No dispute is waiting with complete evidence."]:
        echo(line)
    if done.report:
        echo(f"Report: {Path(done.report).parent}")
    raise typer.Exit(done.exit_code)


def approver() -> str:
    """Who approves from this shell: the OS user name."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid without a passwd entry (a container)
        import os

        return f"uid {os.getuid()}"


def _api_for_approve(settings: Settings, inbox: Path | None) -> tuple[ApiSettings | None, str]:
    """The API to send an approval to now, or None and why (then it is recorded only)."""
    from dispute_evidence.settings import ConfigError

    if inbox is None:
        return None, "No inbox given (--inbox): the approval is recorded; the next run sends it."
    try:
        return settings.api_settings(), ""
    except ConfigError as exc:
        first = str(exc).splitlines()[0]
        return (
            None,
            f"No API to send to now ({first}): the approval is recorded; the next run sends it.",
        )


def _state_problem(exc: StateError, inbox: Path | None, merchants: Path | None) -> NoReturn:
    """One line, exit 2; when the inbox's own state file is missing (`inbox` given: the state
    was not named), a line naming `--merchant`: a fleet merchant's state is in PostgreSQL. A full
    disk (exit 74) and a lost database (exit 1) are said as a run says them (`exit_on`)."""
    from dispute_evidence.inbox import default_state

    lines = exc.lines()
    if inbox is not None and not default_state(inbox).is_file():
        lines.append(_fleet_hint(inbox, merchants))
    exit_on(exc, code=EXIT_USAGE, lines=lines)  # a state that cannot be opened: named wrong


def _fleet_hint(inbox: Path, merchants: Path | None) -> str:
    """`--merchant NAME` for a fleet merchant's inbox: its name when the merchants file lists
    this inbox, the merchants file's places otherwise."""
    from dispute_evidence.fleet.merchants import load_merchants, plan_runs
    from dispute_evidence.settings import ConfigError

    path = _merchants_path(merchants)
    try:
        runs = plan_runs(load_merchants(path), path.resolve().parent)
    except (ConfigError, OSError):  # no merchants file (or a broken one): the general hint
        runs = []
    here = inbox.resolve()
    found = next((r for r in runs if Path(r.inbox).resolve() == here), None)
    if found is not None:
        return (
            f"{inbox} is merchant {found.id}'s inbox in {path}: its state is in the fleet's "
            f"database. Use --merchant {found.id} (with --merchants {path})."
        )
    return (
        "If this is a fleet merchant's inbox, its state is in the fleet's PostgreSQL, not "
        "beside the inbox: use --merchant NAME (its merchants file: --merchants FILE, "
        f"$DISPUTE_EVIDENCE_MERCHANTS or ./{MERCHANTS_DEFAULT})."
    )


def _merchants_path(merchants: Path | None) -> Path:
    """--merchants, else $DISPUTE_EVIDENCE_MERCHANTS, else ./config/merchants.toml."""
    from dispute_evidence.settings.environment import environment

    return merchants or Path(environment().merchants_file or MERCHANTS_DEFAULT)


def _merchant_or_exit(name: str, merchants: Path | None) -> MerchantRun:
    """A fleet merchant by id, from --merchants, $DISPUTE_EVIDENCE_MERCHANTS or
    ./config/merchants.toml; one line and exit 2 when the file or the id is not there."""
    from dispute_evidence.fleet.merchants import load_merchants, plan_runs
    from dispute_evidence.settings import ConfigError

    path = _merchants_path(merchants)
    try:
        runs = plan_runs(load_merchants(path), path.resolve().parent)
    except ConfigError as exc:
        exit_on(
            exc,
            lines=[f"Merchants file: {ln} (give --merchants FILE)" for ln in str(exc).splitlines()],
        )
    found = next((r for r in runs if r.id == name), None)
    if found is None:
        known = ", ".join(r.id for r in runs)
        echo(f"No merchant {name!r} in {path} (its merchants: {known}).", err=True)
        raise typer.Exit(EXIT_USAGE)
    echo(f"Merchant: {found.id} (inbox {found.inbox}; from {path})", err=True)
    return found


def _merchant_settings(run: MerchantRun) -> Settings:
    from dispute_evidence.fleet.run import merchant_settings
    from dispute_evidence.settings import ConfigError

    try:
        return merchant_settings(run)
    except ConfigError as exc:
        exit_on(exc)


def _merchant_api(
    run: MerchantRun,
) -> tuple[ApiSettings | None, KeyBudgets | None, RequestGate | None, str]:
    """The merchant's API and its key's shared budget (as its runs use them; the caller closes
    the budgets); all None, with a line, when this machine has no token for it: the approval
    is recorded only."""
    from dispute_evidence.fleet.budget import KeyBudgets, SharedBudget  # noqa: F811
    from dispute_evidence.fleet.run import resolve_token
    from dispute_evidence.settings import ConfigError

    try:
        api = _merchant_settings(run).api_settings(base_url=run.base_url, token=resolve_token(run))
    except ConfigError as exc:
        first = str(exc).splitlines()[0]
        return None, None, None, f"No API to send to now ({first}): the approval is recorded."
    budgets = KeyBudgets(run.budget_url)
    shape = run.budget_shape()
    budgets.ensure(run.key, shape)
    return api, budgets, SharedBudget(budgets, run.key, shape), ""
