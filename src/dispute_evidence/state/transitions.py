"""The only writer of a dispute's or an evidence file's status (tests/unit/test_status_writes.py):
the store's named transitions, and the moves other store parts make inside their own
transactions (a build's sync and holds, deadline expiries, packets, the switch to another
API). Each write takes its allowed from-set from state/lifecycle.py's tables, so a move they do
not draw cannot be written: one row that is not in an allowed state is IllegalTransition (a
count check), a bulk UPDATE's WHERE admits only the allowed from-states."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    Table,
    Update,
    bindparam,
    select,
    update,
)

from dispute_evidence.state.base import (
    Part,
    now_iso,
)
from dispute_evidence.state.lifecycle import (
    APPROVAL_RELEASES,
    DISPUTE_MOVES,
    DISPUTE_STARTS,
    FILE_MOVES,
    FILE_STARTS,
    DisputeStatus,
    FileStatus,
    IllegalTransition,
)
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F
from dispute_evidence.state.schema import disputes, evidence_files


class Transitions(Part):
    """Named status moves of disputes and files, checked against state/lifecycle.py."""

    def mark_submitted(
        self, pid: str, *, submitted_hash: str, dispute_id: str, attempts: int
    ) -> None:
        self._move_dispute(
            pid,
            D.SUBMITTED,
            submitted_hash=submitted_hash,
            dispute_id=dispute_id,
            attempts=attempts,
            detail=None,
            last_error=None,
            sent_to=self.api_identity,
        )

    def mark_closed(self, pid: str, detail: str) -> None:
        self._move_dispute(pid, D.CLOSED, detail=detail, sent_to=self.api_identity)

    def mark_awaiting_approval(self, pid: str, why: str | None = None) -> None:
        """Held for a person's approval; `why` when something other than the review policy
        holds it (engine/review/approval.py: "advice: accept (…)")."""
        self._move_dispute(pid, D.AWAITING_APPROVAL, detail=why)

    def release_approval(self, pid: str, to: DisputeStatus) -> None:
        """Approved, or no longer held: back to pending, or to submitted when what was sent
        is its payload (then only its files wait)."""
        if to not in APPROVAL_RELEASES:
            raise IllegalTransition(
                f"disputes ({pid!r},): awaiting_approval -> {to} is not allowed"
            )
        key = {"provider_dispute_id": pid}
        self._write("disputes", key, (frozenset({D.AWAITING_APPROVAL}), to), {"detail": None})

    def mark_rejected(self, pid: str, detail: str, attempts: int) -> None:
        self._move_dispute(
            pid, D.REJECTED, detail=detail, attempts=attempts, sent_to=self.api_identity
        )

    def mark_not_found(self, pid: str, detail: str, attempts: int) -> None:
        self._move_dispute(
            pid, D.NOT_FOUND, detail=detail, attempts=attempts, sent_to=self.api_identity
        )

    def mark_past_due(self, pid: str, detail: str) -> None:
        self._move_dispute(pid, D.PAST_DUE, detail=detail)

    def record_failed_attempt(self, pid: str, attempts: int, error: str) -> None:
        """A transient failure: the dispute keeps its status and the next run retries."""
        self._write(
            "disputes",
            {"provider_dispute_id": pid},
            None,
            {"attempts": attempts, "last_error": error},
        )

    def mark_file_sending(self, pid: str, sha256: str) -> None:
        """Durable before the request leaves: after a crash it means 'may have landed'."""
        self._move_file(pid, sha256, F.SENDING, sent_to=self.api_identity)

    def mark_file_uploaded(self, pid: str, sha256: str, remote_file_id: str) -> None:
        self._move_file(
            pid,
            sha256,
            F.UPLOADED,
            remote_file_id=remote_file_id,
            last_error=None,
            sent_to=self.api_identity,
        )

    def mark_file_rejected(self, pid: str, sha256: str, error: str) -> None:
        self._move_file(pid, sha256, F.REJECTED, last_error=error, sent_to=self.api_identity)

    def mark_file_pending(self, pid: str, sha256: str, error: str) -> None:
        """It did not land (a transient failure before the API took it): send it next run."""
        self._move_file(pid, sha256, F.PENDING, last_error=error)

    def note_dispute(self, pid: str, detail: str | None) -> None:
        """Why a dispute waits (or None: it no longer does), without moving it."""
        self._write("disputes", {"provider_dispute_id": pid}, None, {"detail": detail})

    def note_file_error(self, pid: str, sha256: str, error: str) -> None:
        """Why a file is still where it is, without moving it."""
        self._write(
            "evidence_files",
            {"provider_dispute_id": pid, "sha256": sha256},
            None,
            {"last_error": error},
        )

    def _move_dispute(self, pid: str, to: DisputeStatus, **values: Any) -> None:
        self._write("disputes", {"provider_dispute_id": pid}, (DISPUTE_MOVES[to], to), values)

    def _move_file(self, pid: str, sha256: str, to: FileStatus, **values: Any) -> None:
        key = {"provider_dispute_id": pid, "sha256": sha256}
        self._write("evidence_files", key, (FILE_MOVES[to], to), values)

    def _write(
        self,
        table: str,
        key: dict[str, Any],
        move: tuple[frozenset[str], str] | None,
        values: dict[str, Any],
    ) -> None:
        """One UPDATE of one row; with a move, only from an allowed state (else IllegalTransition)."""
        values = {**values, "updated_at": now_iso()}
        if move is not None:
            values["status"] = str(move[1])
        allowed = tuple(sorted(move[0])) if move is not None else ()
        stmt = _update(TABLES[table], tuple(key), tuple(values), allowed)
        params = {
            **{f"v_{k}": v for k, v in values.items()},
            **{f"k_{k}": v for k, v in key.items()},
        }
        if self._run(stmt, params) != 1:
            found = self._run(
                _status_of(TABLES[table], tuple(key)),
                {f"k_{k}": v for k, v in key.items()},
                fetch=True,
            )
            was = found[0]["status"] if found else "no such row"
            raise IllegalTransition(
                f"{table} {tuple(key.values())}: {was} -> {move[1] if move else 'same'} is not allowed"
            )


TABLES = {"disputes": disputes, "evidence_files": evidence_files}
Moves = Mapping[Any, frozenset[Any]]


# -- moves inside a caller's transaction (`c`) -------------------------------------------------
def new_disputes(c: Connection, rows: Sequence[tuple[dict[str, Any], DisputeStatus]]) -> None:
    """Insert new disputes, each (row, its first status): pending or incomplete only."""
    for row, status in rows:
        if status not in DISPUTE_STARTS:
            pid = row.get("provider_dispute_id")
            raise IllegalTransition(f"disputes ({pid!r},): (new) -> {status} is not allowed")
    if rows:
        c.execute(disputes.insert(), [{**row, "status": str(to)} for row, to in rows])


def new_files(c: Connection, rows: Sequence[dict[str, Any]], status: FileStatus) -> None:
    """Insert new evidence files, all starting in `status`: pending, or sending (reconciled)."""
    if status not in FILE_STARTS:
        raise IllegalTransition(f"evidence_files: (new) -> {status} is not allowed")
    if rows:
        c.execute(evidence_files.insert(), [{**row, "status": str(status)} for row in rows])


def move_disputes(
    c: Connection,
    to: DisputeStatus,
    *where: ColumnElement[bool],
    frm: Collection[DisputeStatus] | None = None,
    moves: Moves = DISPUTE_MOVES,
    params: list[dict[str, Any]] | None = None,
    **values: Any,
) -> int:
    """Disputes matching `where` and in one of `frm` go to `to` (and take `values`); returns
    how many moved. `frm` defaults to every state the table `moves` allows `to` from; one
    outside it is IllegalTransition before anything is written."""
    return _move(c, disputes, to, where, _from_set(moves, to, frm), params, values)


def move_files(
    c: Connection,
    to: FileStatus,
    *where: ColumnElement[bool],
    frm: Collection[FileStatus] | None = None,
    moves: Moves = FILE_MOVES,
    params: list[dict[str, Any]] | None = None,
    **values: Any,
) -> int:
    """Evidence files matching `where` and in one of `frm` go to `to`: as move_disputes."""
    return _move(c, evidence_files, to, where, _from_set(moves, to, frm), params, values)


def move_dispute(c: Connection, pid: str, to: DisputeStatus, **values: Any) -> None:
    """One dispute to `to`: IllegalTransition unless it was in a state the table allows."""
    key = disputes.c.provider_dispute_id == pid
    if move_disputes(c, to, key, **values) != 1:
        was = c.execute(select(disputes.c.status).where(key)).scalar()
        raise IllegalTransition(
            f"disputes ({pid!r},): {was or 'no such row'} -> {to} is not allowed"
        )


def _from_set(moves: Moves, to: str, frm: Collection[str] | None) -> tuple[str, ...]:
    allowed = moves.get(to, frozenset())
    chosen = frozenset(allowed if frm is None else frm)
    if not chosen or not chosen <= allowed:
        wrong = ", ".join(sorted(chosen - allowed)) or "nothing"
        raise IllegalTransition(f"{wrong} -> {to} is not allowed")
    return tuple(sorted(str(s) for s in chosen))


def _move(
    c: Connection,
    table: Table,
    to: str,
    where: tuple[ColumnElement[bool], ...],
    frm: tuple[str, ...],
    params: list[dict[str, Any]] | None,
    values: dict[str, Any],
) -> int:
    values = {"updated_at": now_iso(), **values, "status": str(to)}
    stmt = update(table).where(*where, table.c.status.in_(frm)).values(values)
    result = c.execute(stmt, params) if params is not None else c.execute(stmt)
    return int(result.rowcount)


@functools.cache
def _update(
    table: Table, keys: tuple[str, ...], names: tuple[str, ...], allowed: tuple[str, ...]
) -> Update:
    """UPDATE `table` SET names WHERE keys (AND status IN allowed): built once per shape, its
    values bound at each call (v_<name>, k_<key>)."""
    stmt = update(table).where(*(table.c[k] == bindparam(f"k_{k}") for k in keys))
    if allowed:
        stmt = stmt.where(table.c.status.in_(allowed))
    return stmt.values({table.c[n]: bindparam(f"v_{n}") for n in names})


@functools.cache
def _status_of(table: Table, keys: tuple[str, ...]) -> Select[Any]:
    return select(table.c.status).where(*(table.c[k] == bindparam(f"k_{k}") for k in keys))
