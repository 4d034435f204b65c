"""Review's rows: the disputes open to evidence with their files, the approval in force
(`disputes.approved_*`) and every approval ever given (`approvals`). engine/review/approval.py decides;
this part reads and writes. No status is written here (state/transitions.py moves them)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from sqlalchemy import or_, select

from dispute_evidence.state.base import Part, now_iso
from dispute_evidence.state.lifecycle import DisputeStatus
from dispute_evidence.state.schema import approvals, disputes, evidence_files

SECOND_WANTED = "waits for a second approver"  # an approval's note: applied once a second comes

FileRow = tuple[str, str, str, str]  # (sha256, file name, status, kind)


class Approvals(Part):
    """What engine/review/approval.py and engine/review/log.py read and record."""

    def review_rows(
        self, pids: Collection[str] | None, statuses: Iterable[str], *, payloads: bool
    ) -> tuple[list[tuple[Any, ...]], dict[str, list[FileRow]]]:
        """The disputes in `statuses` that have a payload (only `pids`, unless None): (pid,
        status, payload or, without `payloads`, its hash, payload hash, submitted hash,
        approved hash, response due by, API due by); and each one's files."""
        body = disputes.c.payload if payloads else disputes.c.payload_hash
        open_to_evidence = (disputes.c.status.in_(tuple(statuses)), disputes.c.payload.is_not(None))
        q = select(
            disputes.c.provider_dispute_id,
            disputes.c.status,
            body,
            disputes.c.payload_hash,
            disputes.c.submitted_hash,
            disputes.c.approved_hash,
            disputes.c.response_due_by,
            disputes.c.api_due_by,
        ).where(*open_to_evidence)
        wanted = None if pids is None else sorted(set(pids))
        if wanted is not None:
            q = q.where(disputes.c.provider_dispute_id.in_(wanted))
        fq = select(
            evidence_files.c.provider_dispute_id,
            evidence_files.c.sha256,
            evidence_files.c.file_name,
            evidence_files.c.status,
            evidence_files.c.kind,
        )
        if wanted is not None:
            fq = fq.where(evidence_files.c.provider_dispute_id.in_(wanted))
        else:  # the candidates' files, not those of every dispute the state ever had
            open_ones = select(disputes.c.provider_dispute_id).where(*open_to_evidence)
            fq = fq.where(evidence_files.c.provider_dispute_id.in_(open_ones))
        files: dict[str, list[FileRow]] = {}
        with self.engine.connect() as c:
            for pid, sha, name, status, kind in c.execute(fq):
                files.setdefault(pid, []).append((sha, name, status, kind or ""))
            rows = [tuple(r) for r in c.execute(q)]
        return rows, files

    def statuses_of(self, pids: Collection[str]) -> dict[str, str]:
        """Each of `pids`' status (those the state has)."""
        q = select(disputes.c.provider_dispute_id, disputes.c.status).where(
            disputes.c.provider_dispute_id.in_(sorted(set(pids)))
        )
        with self.engine.connect() as c:
            return {pid: status for pid, status in c.execute(q)}

    def set_approval(
        self, pid: str, payload_hash: str, evidence_hash: str, by: str, *, held: bool
    ) -> bool:
        """Approve `evidence_hash` for `pid` while its payload is still `payload_hash` (and, when
        `held`, while it waits for approval and not yet for this version: two approvals at once
        apply one). True when applied."""
        first = (
            (disputes.c.status == DisputeStatus.AWAITING_APPROVAL, _not_yet(evidence_hash))
            if held
            else ()
        )
        with self.engine.begin() as conn:
            done = conn.execute(
                disputes.update()
                .where(
                    disputes.c.provider_dispute_id == pid,
                    disputes.c.payload_hash == payload_hash,
                    *first,
                )
                .values(approved_hash=evidence_hash, approved_by=by, approved_at=now_iso())
            )
        return bool(done.rowcount == 1)

    def approval_of(self, pid: str, payload_hash: str) -> tuple[str | None, str | None] | None:
        """(approved hash, approved by) of `pid` while its payload is `payload_hash`, else None."""
        q = select(disputes.c.approved_hash, disputes.c.approved_by).where(
            disputes.c.provider_dispute_id == pid, disputes.c.payload_hash == payload_hash
        )
        with self.engine.connect() as conn:
            row = conn.execute(q).first()
        return None if row is None else (row.approved_hash, row.approved_by)

    def approvals_in_force(self) -> list[tuple[str, str | None, str | None, str | None]]:
        """(pid, approved by, approved hash, approved at) of each dispute approved."""
        q = select(
            disputes.c.provider_dispute_id,
            disputes.c.approved_by,
            disputes.c.approved_hash,
            disputes.c.approved_at,
        ).where(disputes.c.approved_hash.is_not(None))
        with self.engine.connect() as c:
            return [(pid, by, sha, at) for pid, by, sha, at in c.execute(q)]

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
        """Keep one approval given (or refused by policy: `applied` False and `note` says why)."""
        with self.engine.begin() as c:
            c.execute(
                approvals.insert().values(
                    provider_dispute_id=pid,
                    evidence_hash=evidence_hash,
                    version="v" + evidence_hash[:12],
                    approved_by=who[:200],
                    source=source[:300],
                    at=now_iso(),
                    applied=applied,
                    note=note[:500],
                )
            )

    def approvers_of(self, pid: str, evidence_hash: str) -> list[str]:
        """Who has approved this version of the dispute's evidence so far (applied or waiting
        for a second approver), in order, each once."""
        q = (
            select(approvals.c.approved_by)
            .where(
                approvals.c.provider_dispute_id == pid,
                approvals.c.evidence_hash == evidence_hash,
                approvals.c.note.in_(("", SECOND_WANTED)),
            )
            .order_by(approvals.c.id)
        )
        with self.engine.connect() as c:
            return list(dict.fromkeys(r[0] for r in c.execute(q)))

    def approval_log_rows(self, columns: Iterable[str]) -> list[dict[str, Any]]:
        """Every approval kept, oldest first: `columns` of each."""
        q = select(*(approvals.c[k] for k in columns)).order_by(approvals.c.id)
        with self.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(q)]


def _not_yet(evidence_hash: str) -> Any:
    return or_(disputes.c.approved_hash.is_(None), disputes.c.approved_hash != evidence_hash)
