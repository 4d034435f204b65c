"""The state store: SQLite by default (WAL, one transaction per unit of work), or any
SQLAlchemy URL (PostgreSQL for shared use). Every unit of work commits alone, so a run
killed at any moment leaves each dispute and file in a state the next run knows how to finish.

`StateStore` is composed of the parts in state/: the connection (base), runs and meta,
locks and leases, records, disputes and files, transitions, read-back and report tables,
what one build or report keeps for the next (kept), and the rows alerts, review and retention
read and write (alerts, approvals, retention). Its edge is state/errors.py: a
database driver's error leaves the store as a StateError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DatabaseError

from dispute_evidence.state.alerts import AlertsSent
from dispute_evidence.state.apis import ApiLedger
from dispute_evidence.state.approvals import Approvals
from dispute_evidence.state.base import (
    KEEPALIVE_SECONDS,
    LEASE_SECONDS,
    RUN_LOCK_SECONDS,
    Part,
    StoreBase,
    new_owner,
    new_run_id,
    now_iso,
    owner_is_dead,
    process_owner_prefix,
    state_engine,
    state_exists,
    state_url,
)
from dispute_evidence.state.disputes import Disputes
from dispute_evidence.state.errors import (
    StateDamaged,
    StateError,
    StateFull,
    StateOfAnotherInbox,
    StateUnavailable,
    StateUnreachable,
    translate_errors,
)
from dispute_evidence.state.generated import Generated
from dispute_evidence.state.kept import Kept
from dispute_evidence.state.locks import Locks
from dispute_evidence.state.readback import Readback
from dispute_evidence.state.records import Records
from dispute_evidence.state.reports import Reports
from dispute_evidence.state.retention import Retention
from dispute_evidence.state.runs import Runs
from dispute_evidence.state.schema import metadata
from dispute_evidence.state.scoped import ScopedRecords
from dispute_evidence.state.standing_counts import StandingKept
from dispute_evidence.state.storedocs import StoreDocuments
from dispute_evidence.state.transitions import Transitions

__all__ = [
    "KEEPALIVE_SECONDS",
    "LEASE_SECONDS",
    "RUN_LOCK_SECONDS",
    "StateDamaged",
    "StateError",
    "StateFull",
    "StateOfAnotherInbox",
    "StateUnavailable",
    "StateUnreachable",
    "StateStore",
    "new_owner",
    "new_run_id",
    "now_iso",
    "copy_state",
    "open_read_only",
    "owner_is_dead",
    "process_owner_prefix",
    "state_exists",
    "state_url",
]


# The parts, by the attribute the store holds each under (`store.disputes`, `store.locks`, ...).
PARTS: dict[str, type[Part]] = {
    "runs": Runs,
    "locks": Locks,
    "records": Records,
    "scoped": ScopedRecords,
    "disputes": Disputes,
    "generated": Generated,
    "transitions": Transitions,
    "readback": Readback,
    "reports": Reports,
    "kept": Kept,
    "apis": ApiLedger,
    "storedocs": StoreDocuments,
    "alerts": AlertsSent,
    "approvals": Approvals,
    "retention": Retention,
    "standing": StandingKept,
}


@translate_errors  # the base's public methods; each part translates its own (state/base.py)
class StateStore(StoreBase):
    """Run state: ingested files and records, one row per dispute and per evidence file, runs.

    The store holds its parts over one shared connection (`store.runs`, `store.disputes`,
    `store.transitions`, ...: PARTS); a stage is handed the parts it uses."""

    runs: Runs
    locks: Locks
    records: Records
    scoped: ScopedRecords
    disputes: Disputes
    generated: Generated
    transitions: Transitions
    readback: Readback
    reports: Reports
    kept: Kept
    apis: ApiLedger
    storedocs: StoreDocuments
    alerts: AlertsSent
    approvals: Approvals
    retention: Retention
    standing: StandingKept

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for attr, part in PARTS.items():
            setattr(self, attr, part(self))


def open_read_only(value: str | Path) -> StateStore:
    """The state as it is, opened without the right to change it (SQLite: mode=ro, so not
    even a checkpoint touches the file). Other databases open normally."""
    url = state_url(value)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        return StateStore(f"sqlite:///file:{path}?mode=ro&uri=true", read_only=True)
    return StateStore(url)


def copy_state(store: StateStore, path: Path) -> StateStore:
    """Copy every table (records included) into a new SQLite file and open it there."""
    target = state_engine(state_url(path))
    reflected = type(metadata)()
    try:
        with store.engine.connect() as src, target.begin() as dst:
            reflected.reflect(src)
            for table in reflected.sorted_tables:
                if table.name in metadata.tables:  # ours: as defined (any dialect to SQLite)
                    made = metadata.tables[table.name]
                    made.create(dst)
                else:  # record tables (pandas made them): the same columns, generic types
                    for column in table.columns:
                        column.type = column.type.as_generic()
                    made = table
                    made.create(dst)
                rows = [dict(r) for r in src.execute(select(table)).mappings()]
                if rows:
                    dst.execute(made.insert(), rows)
    except DatabaseError as exc:
        raise StateDamaged(store._damaged(exc)) from None
    finally:
        target.dispose()
    return type(store)(path, wall=store.wall)  # migrates a copy of an older state to this version
