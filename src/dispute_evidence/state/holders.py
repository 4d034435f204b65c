"""What holds a part of the store: one Protocol per part (`HasDisputes`: has `.disputes`).

A module that works on the state names the parts its functions use in one Protocol built from
these (engine/prepare/case.py: `class CaseParts(HasDisputes, HasKept, ..., Protocol)`), so a
reader sees what of the state it touches, the type checker refuses a reach into another part,
and a test can hand in anything with just those parts. `StateStore` holds them all (PARTS)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dispute_evidence.state.alerts import AlertsSent
    from dispute_evidence.state.apis import ApiLedger
    from dispute_evidence.state.approvals import Approvals
    from dispute_evidence.state.disputes import Disputes
    from dispute_evidence.state.generated import Generated
    from dispute_evidence.state.kept import Kept
    from dispute_evidence.state.locks import Locks
    from dispute_evidence.state.readback import Readback
    from dispute_evidence.state.records import Records
    from dispute_evidence.state.reports import Reports
    from dispute_evidence.state.retention import Retention
    from dispute_evidence.state.runs import Runs
    from dispute_evidence.state.scoped import ScopedRecords
    from dispute_evidence.state.standing_counts import StandingKept
    from dispute_evidence.state.storedocs import StoreDocuments
    from dispute_evidence.state.transitions import Transitions


class HasRuns(Protocol):
    @property
    def runs(self) -> Runs: ...


class HasLocks(Protocol):
    @property
    def locks(self) -> Locks: ...


class HasRecords(Protocol):
    @property
    def records(self) -> Records: ...


class HasScoped(Protocol):
    @property
    def scoped(self) -> ScopedRecords: ...


class HasDisputes(Protocol):
    @property
    def disputes(self) -> Disputes: ...


class HasGenerated(Protocol):
    @property
    def generated(self) -> Generated: ...


class HasTransitions(Protocol):
    @property
    def transitions(self) -> Transitions: ...


class HasReadback(Protocol):
    @property
    def readback(self) -> Readback: ...


class HasReports(Protocol):
    @property
    def reports(self) -> Reports: ...


class HasKept(Protocol):
    @property
    def kept(self) -> Kept: ...


class HasApis(Protocol):
    @property
    def apis(self) -> ApiLedger: ...


class HasStoredocs(Protocol):
    @property
    def storedocs(self) -> StoreDocuments: ...


class HasAlerts(Protocol):
    @property
    def alerts(self) -> AlertsSent: ...


class HasApprovals(Protocol):
    @property
    def approvals(self) -> Approvals: ...


class HasRetention(Protocol):
    @property
    def retention(self) -> Retention: ...


class HasStanding(Protocol):
    @property
    def standing(self) -> StandingKept: ...


__all__ = [
    "HasAlerts",
    "HasApis",
    "HasApprovals",
    "HasDisputes",
    "HasGenerated",
    "HasKept",
    "HasLocks",
    "HasReadback",
    "HasRecords",
    "HasReports",
    "HasRetention",
    "HasRuns",
    "HasScoped",
    "HasStanding",
    "HasStoredocs",
    "HasTransitions",
]
