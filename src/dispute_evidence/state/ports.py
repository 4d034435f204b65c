"""The narrow parts of the store a stage uses (Dagster's IO managers, the Singer SDK's sinks):
a stage typed with one of these can be given anything that has those methods, and a reader
sees at once what of the state it touches. `StateStore` has them all, each under the part
that holds it (`store.locks` is Leases, `store.disputes` DisputeRows, `store.transitions`
Moves, `store.readback` Deadlines); tests hand in an in-memory ledger that passes the same
contract suite (tests/unit/state/test_ledger_contract.py)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Protocol

from dispute_evidence.state.lifecycle import DisputeStatus
from dispute_evidence.state.retention import Clearing, ClosedRow


class AlertLedger(Protocol):
    """The alerts sent so far, and recording more (engine/reporting/deadline_alerts.py,
    standing_alerts.py)."""

    def alerted_on(self, day: str) -> set[str]: ...

    def alerted_subjects(self, prefix: str) -> set[str]: ...

    def record_alerts(self, sent: Iterable[tuple[str, str]], day: str, run_id: str) -> None: ...


class IngestSeq(Protocol):
    """Where the ingests stand (the scoped records part): what clearing reads again."""

    def keys_since(self, kind: str, seq: int, key: str) -> set[str]: ...

    def latest_ingest(self) -> int: ...


class RetentionStore(Protocol):
    """What clearing customer data reads and rewrites (engine/prepare/retention_clearing.py)."""

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def closed_for_clearing(
        self, cutoff: str, since: str, again: Collection[str]
    ) -> tuple[list[ClosedRow], set[str]]: ...

    def closed_before_of_orders(self, before: str, orders: Collection[str]) -> list[str]: ...

    def stored_copies_of(self, pids: list[str]) -> tuple[set[tuple[str, str]], set[str]]: ...

    def clear_customer_data(self, clearing: Clearing) -> None: ...


class Leases(Protocol):
    """A dispute's lease: one run works on one dispute at a time (state/locks.py)."""

    def claim_and_load(
        self, pid: str, owner: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None: ...

    def release(self, pid: str, owner: str) -> None: ...


class DisputeRows(Protocol):
    """What the ledger holds of a dispute and its files, and what has work to send."""

    def work_queue(self) -> list[str]: ...

    def dispute(self, pid: str) -> dict[str, Any]: ...

    def files_of(self, pid: str) -> list[dict[str, Any]]: ...

    def holder_of(self, dispute_id: str, *, besides: str) -> str | None: ...


class Moves(Protocol):
    """The named status moves of a dispute and its files (state/transitions.py)."""

    def mark_submitted(
        self, pid: str, *, submitted_hash: str, dispute_id: str, attempts: int
    ) -> None: ...

    def mark_rejected(self, pid: str, detail: str, attempts: int) -> None: ...

    def mark_not_found(self, pid: str, detail: str, attempts: int) -> None: ...

    def mark_past_due(self, pid: str, detail: str) -> None: ...

    def record_failed_attempt(self, pid: str, attempts: int, error: str) -> None: ...

    def mark_file_sending(self, pid: str, sha256: str) -> None: ...

    def mark_file_uploaded(self, pid: str, sha256: str, remote_file_id: str) -> None: ...

    def mark_file_rejected(self, pid: str, sha256: str, error: str) -> None: ...

    def mark_file_pending(self, pid: str, sha256: str, error: str) -> None: ...

    def note_dispute(self, pid: str, detail: str | None) -> None: ...

    def note_file_error(self, pid: str, sha256: str, error: str) -> None: ...


class Deadlines(Protocol):
    """The API's deadlines, kept as a run first sees them (state/readback.py)."""

    def record_api_deadlines(self, dues: dict[str, str]) -> dict[str, str]: ...


class ApiReads(Deadlines, Protocol):
    """What the API said of each dispute sent, and where the last listing met ours (meta)."""

    def known_at_api(self) -> list[dict[str, Any]]: ...

    def record_api_reads(
        self, read: dict[str, tuple[str | None, str | None]], run_id: str
    ) -> dict[str, str]: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


class ClosingMoves(Protocol):
    """The moves a read-back makes: a dispute ended at the API, a note on why one waits."""

    def mark_closed(self, pid: str, detail: str) -> None: ...

    def note_dispute(self, pid: str, detail: str | None) -> None: ...


class Payloads(Protocol):
    def payloads_of(self, pids: Collection[str]) -> dict[str, bytes]: ...


class ViewCheck(Protocol):
    """The API's view of a dispute held against the disputes list's (engine/delivery/api_views)."""

    def held(self) -> dict[str, str]: ...

    def record(self, seen: dict[str, tuple[bytes | None, Any]]) -> dict[str, str]: ...


class DeliveryLedger(Protocol):
    """The parts the submitter is handed: leases, the disputes' rows, their moves, deadlines."""

    @property
    def locks(self) -> Leases: ...

    @property
    def disputes(self) -> DisputeRows: ...

    @property
    def transitions(self) -> Moves: ...

    @property
    def readback(self) -> Deadlines: ...


class ReadbackLedger(Protocol):
    """The parts the read-back is handed: the API's reads, the queue, closing moves, payloads."""

    @property
    def readback(self) -> ApiReads: ...

    @property
    def disputes(self) -> DisputeRows: ...

    @property
    def transitions(self) -> ClosingMoves: ...

    @property
    def scoped(self) -> Payloads: ...


class ApprovalRows(Protocol):
    """What the review step reads and writes of approvals (state/approvals.py)."""

    def statuses_of(self, pids: Collection[str]) -> dict[str, str]: ...

    def set_approval(
        self, pid: str, payload_hash: str, evidence_hash: str, by: str, *, held: bool
    ) -> bool: ...

    def log_approval(
        self,
        pid: str,
        evidence_hash: str,
        who: str,
        source: str,
        *,
        applied: bool,
        note: str = "",
    ) -> None: ...


class ApprovalMoves(Protocol):
    """The review step's status moves: held, released, past its deadline (state/transitions.py)."""

    def mark_awaiting_approval(self, pid: str, why: str | None = None) -> None: ...

    def release_approval(self, pid: str, to: DisputeStatus) -> None: ...

    def mark_past_due(self, pid: str, detail: str) -> None: ...


class ReviewLedger(Protocol):
    """What holding and releasing disputes for approval touches (engine/review/approval.py
    hold_and_release): the store, or the in-memory ledger of its unit tests."""

    @property
    def approvals(self) -> ApprovalRows: ...

    @property
    def transitions(self) -> ApprovalMoves: ...
