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
from typing import TYPE_CHECKING, Any, Self

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


def _owners() -> dict[str, str]:
    """Each public method's part (a name two parts define would be ambiguous: refused)."""
    owners: dict[str, str] = {}
    for attr, part in PARTS.items():
        for name in dir(part):
            if name.startswith("_") or name in _SHARED or not callable(getattr(part, name)):
                continue
            if name in owners:
                raise TypeError(f"{name} is defined by both {owners[name]} and {attr}")
            owners[name] = attr
    return owners


_SHARED = frozenset({"get_meta", "set_meta"})  # the base's, which every part also offers
_OWNER = _owners()


if TYPE_CHECKING:  # what the facade answers, as the type checker sees it

    class _Facade(
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
    ):
        pass
else:
    _Facade = object


@translate_errors  # the base's public methods; each part translates its own (state/base.py)
class StateStore(StoreBase, _Facade):
    """Run state: ingested files and records, one row per dispute and per evidence file, runs.

    The store holds its parts over one shared connection (`store.runs`, `store.disputes`,
    `store.transitions`, ...: PARTS); a stage is handed the parts it uses. Until every caller
    is, `store.method(...)` still answers, from the part that defines the method (the facade)."""

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

    def copy_to(self, path: Path) -> Self:
        """Copy every table (records included) into a new SQLite file and open it there."""
        target = state_engine(state_url(path))
        reflected = type(metadata)()
        try:
            with self.engine.connect() as src, target.begin() as dst:
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
            raise StateDamaged(self._damaged(exc)) from None
        finally:
            target.dispose()
        return type(self)(path, wall=self.wall)  # migrates a copy of an older state to this version

    def __getattr__(self, name: str) -> Any:
        """The facade: a part's method asked of the whole store (found only when the store
        itself has no such attribute)."""
        owner = _OWNER.get(name)
        if owner is None or owner not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.__dict__[owner], name)


def open_read_only(value: str | Path) -> StateStore:
    """The state as it is, opened without the right to change it (SQLite: mode=ro, so not
    even a checkpoint touches the file). Other databases open normally."""
    url = state_url(value)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        return StateStore(f"sqlite:///file:{path}?mode=ro&uri=true", read_only=True)
    return StateStore(url)
