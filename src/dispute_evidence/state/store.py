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

from dispute_evidence.state.alerts import AlertsSent
from dispute_evidence.state.apis import ApiLedger
from dispute_evidence.state.approvals import Approvals
from dispute_evidence.state.base import (
    KEEPALIVE_SECONDS,
    LEASE_SECONDS,
    RUN_LOCK_SECONDS,
    StoreBase,
    new_owner,
    new_run_id,
    now_iso,
    owner_is_dead,
    process_owner_prefix,
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
from dispute_evidence.state.scoped import ScopedRecords
from dispute_evidence.state.standing import StandingKept
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
    "open_read_only",
    "owner_is_dead",
    "process_owner_prefix",
    "state_exists",
    "state_url",
]


@translate_errors  # every public method: driver errors leave as state errors (state/errors.py)
class StateStore(
    Runs,
    Locks,
    Records,
    ScopedRecords,
    Disputes,
    Generated,
    Transitions,
    Readback,
    Reports,
    Kept,
    ApiLedger,
    StoreDocuments,
    AlertsSent,
    Approvals,
    Retention,
    StandingKept,
    StoreBase,
):
    """Run state: ingested files and records, one row per dispute and per evidence file, runs."""


def open_read_only(value: str | Path) -> StateStore:
    """The state as it is, opened without the right to change it (SQLite: mode=ro, so not
    even a checkpoint touches the file). Other databases open normally."""
    url = state_url(value)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        return StateStore(f"sqlite:///file:{path}?mode=ro&uri=true", read_only=True)
    return StateStore(url)
