"""An in-memory ledger with the parts the submitter is handed (state/ports.py DeliveryLedger):
leases, the disputes' and files' rows, their moves and the API's deadlines, held in dicts.

It keeps the store's rules, not only its shape: a move the state machine does not draw
(state/lifecycle.py DISPUTE_MOVES, FILE_MOVES) is IllegalTransition, a lease another live owner
holds is refused until it runs out (on the ledger's own wall clock), and the work queue is
ordered as the store orders it. tests/unit/state/test_ledger_contract.py runs one contract
over this and the real store (SQLite here, PostgreSQL in tests/e2e), so a unit test that
passes on the fake holds on the store."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from dispute_evidence.state.base import LEASE_SECONDS, now_iso, owner_is_dead
from dispute_evidence.state.lifecycle import (
    APPROVAL_RELEASES,
    DISPUTE_MOVES,
    FILE_MOVES,
    OPEN_FILE,
    DisputeStatus,
    FileStatus,
    IllegalTransition,
)
from dispute_evidence.state.readback import hours_apart

D, F = DisputeStatus, FileStatus

DISPUTE_ROW = {
    "order_number": None,
    "response_due_by": None,
    "payload": None,
    "payload_hash": None,
    "submitted_hash": None,
    "dispute_id": None,
    "status": "pending",
    "detail": None,
    "attempts": 0,
    "last_error": None,
    "lease_owner": None,
    "lease_expires": None,
    "api_due_by": None,
    "api_status": None,
    "api_status_at": None,
    "api_read_at": None,
    "sent_to": None,
    "updated_at": None,
    "approved_hash": None,
    "approved_by": None,
}
FILE_ROW = {
    "status": "pending",
    "remote_file_id": None,
    "last_error": None,
    "sent_to": None,
    "kind": None,
    "mime": None,
    "matched": None,
    "updated_at": None,
}


@dataclass
class Rows:
    """What every part of the fake shares, as the store's parts share one database."""

    wall: Callable[[], float]
    disputes: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    api_identity: str | None = None
    writes: list[tuple[str, str, str]] = field(default_factory=list)  # (table, key, to) in order
    meta: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, str, str]] = field(default_factory=list)  # (pid, status, run)

    def dispute(self, pid: str) -> dict[str, Any]:
        if pid not in self.disputes:
            raise KeyError(f"no dispute {pid!r} in the ledger")
        return self.disputes[pid]


class FakeLeases:
    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def claim_and_load(
        self, pid: str, owner: str, ttl: float = LEASE_SECONDS
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        d = self.rows.dispute(pid)
        holder, now = d["lease_owner"], self.rows.wall()
        free = holder is None or holder == owner or (d["lease_expires"] or 0) < now
        if not free and not owner_is_dead(holder):
            return None
        d["lease_owner"], d["lease_expires"] = owner, now + ttl
        return dict(d), FakeDisputeRows(self.rows).files_of(pid)

    def release(self, pid: str, owner: str) -> None:
        d = self.rows.dispute(pid)
        if d["lease_owner"] == owner:
            d["lease_owner"], d["lease_expires"] = None, None


class FakeDisputeRows:
    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def work_queue(self) -> list[str]:
        with_open_files = {
            pid for (pid, _), f in self.rows.files.items() if f["status"] in OPEN_FILE
        }
        due = [
            (d["response_due_by"] is None, d["response_due_by"] or "", pid)
            for pid, d in self.rows.disputes.items()
            if d["status"] == D.PENDING or (d["status"] == D.SUBMITTED and pid in with_open_files)
        ]
        return [pid for *_, pid in sorted(due)]

    def dispute(self, pid: str) -> dict[str, Any]:
        return dict(self.rows.dispute(pid))

    def files_of(self, pid: str) -> list[dict[str, Any]]:
        mine = [dict(f) for (p, _), f in self.rows.files.items() if p == pid]
        return sorted(mine, key=lambda f: f["file_name"])

    def holder_of(self, dispute_id: str, *, besides: str) -> str | None:
        for pid, d in self.rows.disputes.items():
            if d["dispute_id"] == dispute_id and pid != besides:
                return pid
        return None


class FakeMoves:
    """The named transitions, each checked against the state machine's tables."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def _dispute(self, pid: str, to: DisputeStatus | None, **values: Any) -> None:
        d = self.rows.dispute(pid)
        if to is not None:
            if d["status"] not in DISPUTE_MOVES[to]:
                raise IllegalTransition(
                    f"disputes ({pid!r},): {d['status']} -> {to} is not allowed"
                )
            values["status"] = str(to)
            self.rows.writes.append(("disputes", pid, str(to)))
        d.update(values, updated_at=now_iso())

    def _file(self, pid: str, sha: str, to: FileStatus | None, **values: Any) -> None:
        f = self.rows.files.get((pid, sha))
        if f is None or (to is not None and f["status"] not in FILE_MOVES[to]):
            was = f["status"] if f else "no such row"
            raise IllegalTransition(
                f"evidence_files ({pid!r}, {sha!r}): {was} -> {to} is not allowed"
            )
        if to is not None:
            values["status"] = str(to)
            self.rows.writes.append(("evidence_files", f"{pid}/{f['file_name']}", str(to)))
        f.update(values, updated_at=now_iso())

    def mark_submitted(
        self, pid: str, *, submitted_hash: str, dispute_id: str, attempts: int
    ) -> None:
        self._dispute(
            pid,
            D.SUBMITTED,
            submitted_hash=submitted_hash,
            dispute_id=dispute_id,
            attempts=attempts,
            detail=None,
            last_error=None,
            sent_to=self.rows.api_identity,
        )

    def mark_rejected(self, pid: str, detail: str, attempts: int) -> None:
        self._dispute(
            pid, D.REJECTED, detail=detail, attempts=attempts, sent_to=self.rows.api_identity
        )

    def mark_not_found(self, pid: str, detail: str, attempts: int) -> None:
        self._dispute(
            pid, D.NOT_FOUND, detail=detail, attempts=attempts, sent_to=self.rows.api_identity
        )

    def mark_closed(self, pid: str, detail: str) -> None:
        self._dispute(pid, D.CLOSED, detail=detail, sent_to=self.rows.api_identity)

    def mark_past_due(self, pid: str, detail: str) -> None:
        self._dispute(pid, D.PAST_DUE, detail=detail)

    def mark_awaiting_approval(self, pid: str, why: str | None = None) -> None:
        self._dispute(pid, D.AWAITING_APPROVAL, detail=why)

    def release_approval(self, pid: str, to: DisputeStatus) -> None:
        if to not in APPROVAL_RELEASES or self.rows.dispute(pid)["status"] != D.AWAITING_APPROVAL:
            was = self.rows.dispute(pid)["status"]
            raise IllegalTransition(f"disputes ({pid!r},): {was} -> {to} is not allowed")
        self.rows.writes.append(("disputes", pid, str(to)))  # the store's own from-set, as here
        self.rows.dispute(pid).update(status=str(to), detail=None, updated_at=now_iso())

    def record_failed_attempt(self, pid: str, attempts: int, error: str) -> None:
        self._dispute(pid, None, attempts=attempts, last_error=error)

    def mark_file_sending(self, pid: str, sha256: str) -> None:
        self._file(pid, sha256, F.SENDING, sent_to=self.rows.api_identity)

    def mark_file_uploaded(self, pid: str, sha256: str, remote_file_id: str) -> None:
        self._file(
            pid,
            sha256,
            F.UPLOADED,
            remote_file_id=remote_file_id,
            last_error=None,
            sent_to=self.rows.api_identity,
        )

    def mark_file_rejected(self, pid: str, sha256: str, error: str) -> None:
        self._file(pid, sha256, F.REJECTED, last_error=error, sent_to=self.rows.api_identity)

    def mark_file_pending(self, pid: str, sha256: str, error: str) -> None:
        self._file(pid, sha256, F.PENDING, last_error=error)

    def note_dispute(self, pid: str, detail: str | None) -> None:
        self._dispute(pid, None, detail=detail)

    def note_file_error(self, pid: str, sha256: str, error: str) -> None:
        self._file(pid, sha256, None, last_error=error)


class FakeApiReads:
    """The API's deadlines and statuses as read, and the meta a listing keeps its place in."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def record_api_deadlines(self, dues: dict[str, str]) -> dict[str, str]:
        moved: dict[str, str] = {}
        for pid, due_by in dues.items():
            if (d := self.rows.disputes.get(pid)) is None:
                continue
            if d["response_due_by"] and hours_apart(d["response_due_by"], due_by) > 1:
                moved[pid] = d["response_due_by"]
            d["response_due_by"] = d["api_due_by"] = due_by
        return moved

    def known_at_api(self) -> list[dict[str, Any]]:
        keys = (
            "provider_dispute_id",
            "dispute_id",
            "status",
            "api_status",
            "api_read_at",
            "response_due_by",
        )
        known = [
            d
            for d in self.rows.disputes.values()
            if d["dispute_id"] is not None and d["status"] != D.CLOSED
        ]
        known.sort(key=lambda d: (d["response_due_by"] is None, d["response_due_by"] or ""))
        return [{k: d[k] for k in keys} for d in known]

    def record_api_reads(
        self, read: dict[str, tuple[str | None, str | None]], run_id: str
    ) -> dict[str, str]:
        now, moved = now_iso(), {}
        for pid, (status, due_by) in read.items():
            if (d := self.rows.disputes.get(pid)) is None:
                continue
            d["api_read_at"] = now
            if status and status != d["api_status"]:
                d["api_status"], d["api_status_at"] = status, now
                self.rows.history.append((pid, status, run_id))
            if due_by and d["response_due_by"] and hours_apart(d["response_due_by"], due_by) > 1:
                moved[pid] = d["response_due_by"]
            if due_by:
                d["response_due_by"] = d["api_due_by"] = due_by
        return moved

    def get_meta(self, key: str) -> str | None:
        return self.rows.meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self.rows.meta[key] = value


class FakeApprovals:
    """The approval in force per dispute (one version of its evidence) and the log of each
    approval given, as state/approvals.py keeps them (ports.py ApprovalRows)."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows
        self.log: list[dict[str, Any]] = []

    def statuses_of(self, pids: Collection[str]) -> dict[str, str]:
        return {p: self.rows.disputes[p]["status"] for p in pids if p in self.rows.disputes}

    def set_approval(
        self, pid: str, payload_hash: str, evidence_hash: str, by: str, *, held: bool
    ) -> bool:
        d = self.rows.disputes.get(pid)
        if d is None or d["payload_hash"] != payload_hash:
            return False  # its payload changed since it was read
        if held and (d["status"] != D.AWAITING_APPROVAL or d["approved_hash"] == evidence_hash):
            return False  # released meanwhile, or this version approved already
        d["approved_hash"], d["approved_by"] = evidence_hash, by
        return True

    def log_approval(
        self,
        pid: str,
        evidence_hash: str,
        who: str,
        source: str,
        *,
        applied: bool,
        note: str = "",
    ) -> None:
        kept = {"evidence_hash": evidence_hash, "approved_by": who, "source": source}
        self.log.append({"provider_dispute_id": pid, **kept, "applied": applied, "note": note})

    def approval_of(self, pid: str, payload_hash: str) -> tuple[str | None, str | None] | None:
        d = self.rows.disputes.get(pid)
        if d is None or d["payload_hash"] != payload_hash:
            return None
        return d["approved_hash"], d["approved_by"]


class FakePayloads:
    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def payloads_of(self, pids: Collection[str]) -> dict[str, bytes]:
        return {
            p: self.rows.disputes[p]["payload"]
            for p in pids
            if p in self.rows.disputes and self.rows.disputes[p]["payload"] is not None
        }


class FakeLedger:
    """The parts, side by side over shared rows, as StateStore holds them."""

    def __init__(self, wall: Callable[[], float] | None = None) -> None:
        import time

        self.rows = Rows(wall=wall or time.time)
        self.locks = FakeLeases(self.rows)
        self.disputes = FakeDisputeRows(self.rows)
        self.transitions = FakeMoves(self.rows)
        self.readback = FakeApiReads(self.rows)
        self.scoped = FakePayloads(self.rows)
        self.approvals = FakeApprovals(self.rows)

    # seeding, as a build and a file match would (the store's sync_disputes / sync_files)
    def add_dispute(
        self,
        pid: str,
        payload: bytes,
        payload_hash: str,
        due: str | None = None,
        order_number: str | None = None,
    ) -> None:
        self.rows.disputes[pid] = {
            **DISPUTE_ROW,
            "provider_dispute_id": pid,
            "payload": payload,
            "payload_hash": payload_hash,
            "response_due_by": due,
            "order_number": order_number,
        }

    def add_file(
        self,
        pid: str,
        sha256: str,
        file_name: str,
        path: str,
        size: int,
        status: FileStatus = F.PENDING,
    ) -> None:
        self.rows.files[(pid, sha256)] = {
            **FILE_ROW,
            "provider_dispute_id": pid,
            "sha256": sha256,
            "file_name": file_name,
            "path": path,
            "size": size,
            "status": str(status),
        }
