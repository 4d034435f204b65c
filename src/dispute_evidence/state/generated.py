"""The generated PDFs' rows (engine/prepare/pdf_versions.py): versions, what each states, the
limit hold, and which documents go inside a packet rather than on their own."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, delete, or_, select

from dispute_evidence.state.base import Part, now_iso
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F
from dispute_evidence.state.schema import disputes, evidence_files, generated_docs
from dispute_evidence.state.scoped import chunks
from dispute_evidence.state.transitions import move_disputes, move_files, new_files

GENERATED_KINDS = ("summary", "packet")
# a dispute held by the limit check may be released by it; other holds are not its to lift
LIMIT_HOLDS_FROM = (D.PENDING, D.AWAITING_APPROVAL, D.REJECTED, D.NOT_FOUND)


class Generated(Part):
    """Rows of generated PDFs and the documents they carry."""

    def generated_work(self) -> list[dict[str, Any]]:
        """Disputes whose generated PDF may be due: to be sent, sent, waiting for approval,
        or held by the limit check, before their deadline."""
        c_ = disputes.c
        q = select(
            c_.provider_dispute_id,
            c_.payload,
            c_.payload_hash,
            c_.summary_input,
            c_.material_hash,
            c_.status,
            c_.generated_held,
        ).where(
            or_(
                c_.status.in_((D.PENDING, D.SUBMITTED, D.AWAITING_APPROVAL)),
                and_(c_.status == D.INCOMPLETE, c_.generated_held.is_not(None)),
            ),
            c_.payload.is_not(None),
            or_(c_.response_due_by.is_(None), c_.response_due_by > now_iso()),
        )
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def generated_state(
        self, within: Iterable[str] | None = None
    ) -> dict[str, tuple[str | None, str | None]]:
        """{dispute: (what its generated PDF would be made from now, its material hash)};
        `within`: only these disputes' (a report's open ones)."""
        d = disputes.c
        q = select(d.provider_dispute_id, d.summary_input, d.material_hash)
        parts = (
            [q]
            if within is None
            else [q.where(d.provider_dispute_id.in_(part)) for part in chunks(set(within))]
        )
        with self.engine.connect() as c:
            return {pid: (made, mat) for part in parts for pid, made, mat in c.execute(part)}

    def files_by_dispute(
        self, pids: Iterable[str] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """{dispute: its evidence file rows}; of the disputes `pids` only when given."""
        f = evidence_files.c
        q = select(evidence_files).order_by(f.provider_dispute_id, f.file_name)
        return _by_dispute(self, q, f.provider_dispute_id, pids)

    def generated_versions(
        self, pids: Iterable[str] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """{dispute: its generated PDFs, oldest first, with their file's status and name}; of
        the disputes `pids` only when given (a report's open ones, not the year's)."""
        g, f = generated_docs.c, evidence_files.c
        q = (
            select(generated_docs, f.status, f.file_name, f.path)
            .join(
                evidence_files,
                and_(f.provider_dispute_id == g.provider_dispute_id, f.sha256 == g.sha256),
                isouter=True,
            )
            .order_by(g.provider_dispute_id, g.version, g.created_at)
        )
        return _by_dispute(self, q, g.provider_dispute_id, pids)

    def register_generated(self, file_row: dict[str, Any], doc_row: dict[str, Any]) -> bool:
        """Register a new generated PDF in place of any of its dispute's not yet sent (still
        'pending'): those never left, so they are replaced, not piled up. One transaction.
        Returns whether a new file row was added (the same bytes are never added twice)."""
        pid, stamp = file_row["provider_dispute_id"], now_iso()
        with self.engine.begin() as c:
            unsent = select(evidence_files.c.sha256).where(
                evidence_files.c.provider_dispute_id == pid,
                evidence_files.c.kind.in_(GENERATED_KINDS),
                evidence_files.c.status == F.PENDING,
                evidence_files.c.sha256 != file_row["sha256"],
            )
            gone = [r[0] for r in c.execute(unsent)]
            if gone:
                for table in (generated_docs, evidence_files):
                    c.execute(
                        delete(table).where(
                            table.c.provider_dispute_id == pid, table.c.sha256.in_(gone)
                        )
                    )
            known = c.execute(
                select(evidence_files.c.status).where(
                    evidence_files.c.provider_dispute_id == pid,
                    evidence_files.c.sha256 == file_row["sha256"],
                )
            ).first()
            if known is None:
                new_files(c, [{**file_row, "updated_at": stamp}], F.PENDING)
            c.execute(
                delete(generated_docs).where(
                    generated_docs.c.provider_dispute_id == pid,
                    generated_docs.c.sha256 == file_row["sha256"],
                )
            )
            c.execute(generated_docs.insert().values(**doc_row, created_at=stamp))
        return known is None

    def set_generated_inputs(self, made: dict[str, tuple[str, str | None, str | None]]) -> None:
        """{dispute: (made from, material hash, the limit line that holds it or None)}."""
        if not made:
            return
        stmt = (
            disputes.update()
            .where(disputes.c.provider_dispute_id == bindparam("pid"))
            .values(
                summary_input=bindparam("made_from"),
                material_hash=bindparam("material"),
                generated_held=bindparam("held"),
            )
        )
        rows = [
            {"pid": k, "made_from": m, "material": h, "held": x} for k, (m, h, x) in made.items()
        ]
        with self.engine.begin() as c:
            c.execute(stmt, rows)

    def hold_over_limit(self, pid: str, line: str) -> None:
        """Not sent: what would go is over its network's limit (`line` says how)."""
        with self.engine.begin() as c:
            move_disputes(
                c,
                D.INCOMPLETE,
                disputes.c.provider_dispute_id == pid,
                frm=LIMIT_HOLDS_FROM,
                detail=line,
                generated_held=line,
            )

    def release_limit_hold(self, pid: str) -> None:
        """It fits now: back to pending (only a hold the limit check made)."""
        with self.engine.begin() as c:
            move_disputes(
                c,
                D.PENDING,
                disputes.c.provider_dispute_id == pid,
                disputes.c.generated_held.is_not(None),
                frm={D.INCOMPLETE},
                detail=None,
                generated_held=None,
            )

    def pack_documents(self, packet: bool, alone: Collection[tuple[str, str]] = ()) -> int:
        """Documents not yet sent go inside the packet (`packet`) or on their own again;
        `alone`: (dispute, sha256) of documents no packet may carry any more, which go on their
        own in either mode. One transaction."""
        frm, to = (F.PENDING, F.IN_PACKET) if packet else (F.IN_PACKET, F.PENDING)
        f, stamp = evidence_files.c, now_iso()
        mine = or_(f.kind.is_(None), f.kind.not_in(GENERATED_KINDS))  # not our own PDFs
        with self.engine.begin() as c:
            moved = move_files(c, to, mine, frm={frm}, updated_at=stamp)
            if alone:
                move_files(
                    c,
                    F.PENDING,
                    f.provider_dispute_id == bindparam("pid"),
                    f.sha256 == bindparam("sha"),
                    frm={F.IN_PACKET},
                    params=[{"pid": pid, "sha": sha} for pid, sha in alone],
                    updated_at=stamp,
                )
            return moved


def _by_dispute(
    store: Part, q: Select[Any], key: ColumnElement[str], pids: Iterable[str] | None
) -> dict[str, list[dict[str, Any]]]:
    """The rows of `q` grouped by dispute, in its order; of the disputes `pids` when given (a
    bounded IN list at a time)."""
    out: dict[str, list[dict[str, Any]]] = {}
    with store.engine.connect() as c:
        for part in [None] if pids is None else chunks(set(pids)):
            where = q if part is None else q.where(key.in_(part))
            for r in c.execute(where).mappings():
                out.setdefault(r["provider_dispute_id"], []).append(dict(r))
    return out
