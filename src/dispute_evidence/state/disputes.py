"""Disputes and their evidence files: sync from a build, deadlines, the work queue, summaries,
and the recovery mode of a replaced state (reconcile uploads)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select

from dispute_evidence.state.base import (
    Part,
    now_iso,
)
from dispute_evidence.state.lifecycle import DISPUTE_MOVES, OPEN_FILE
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F
from dispute_evidence.state.schema import (
    disputes,
    evidence_files,
    ingested_files,
    meta,
)
from dispute_evidence.state.scoped import chunks
from dispute_evidence.state.transitions import (
    move_dispute,
    move_disputes,
    move_files,
    new_disputes,
    new_files,
)
from dispute_evidence.states import Hold


class Disputes(Part):
    """Dispute and evidence-file rows: sync, deadlines, summaries, the work queue."""

    def set_reconcile_uploads(self, on: bool) -> None:
        """While on, newly registered files start as 'sending': the dispute's file listing is
        checked before each is uploaded (a replaced state must not send files twice)."""
        with self.engine.begin() as c:
            c.execute(meta.delete().where(meta.c.key == "reconcile_uploads"))
            if on:
                c.execute(meta.insert().values(key="reconcile_uploads", value="1"))

    def has_sent(self) -> bool:
        """True once any dispute's evidence reached the API from this state."""
        with self.engine.connect() as c:
            q = select(disputes.c.provider_dispute_id).where(disputes.c.dispute_id.is_not(None))
            return c.execute(q.limit(1)).first() is not None

    def reconcile_pending_files(self) -> int:
        """Every file not yet sent starts as 'sending': its dispute's file listing is checked
        before it is uploaded (for a new state that finds the API already holding evidence)."""
        with self.engine.begin() as c:
            return move_files(c, F.SENDING, frm={F.PENDING})

    def reconcile_uploads(self) -> bool:
        with self.engine.connect() as c:
            return (
                c.execute(select(meta.c.value).where(meta.c.key == "reconcile_uploads")).scalar()
                == "1"
            )

    def sync_disputes(
        self, payloads: Iterable[Any], incomplete: Iterable[Any], inputs: str | None = None
    ) -> dict[str, int]:
        """Upsert built payloads; a changed payload sends a submitted dispute back to pending.

        Records which ingest (and which `inputs`) the build covered, in the same transaction.
        Reads the rows of the disputes built only (a night's build, not the year's)."""
        payloads, incomplete = list(payloads), list(incomplete)
        d = disputes.c
        q = select(
            d.provider_dispute_id,
            d.payload_hash,
            d.status,
            d.api_due_by,
            d.detail,
            d.facts.is_(None).label("no_facts"),
        )
        built = {p.provider_dispute_id for p in payloads} | {
            i.provider_dispute_id for i in incomplete
        }
        with self.engine.begin() as c:
            self._mark_built(c, inputs)
            known = {
                r.provider_dispute_id: r
                for part in chunks(built)
                for r in c.execute(q.where(d.provider_dispute_id.in_(part)))
            }
            new: list[tuple[dict[str, Any], D]] = []
            changed, stamp = 0, now_iso()
            for p in payloads:
                changed += self._sync_payload(c, p, known.get(p.provider_dispute_id), new, stamp)
            for i in incomplete:
                old = known.get(i.provider_dispute_id)
                if old is not None and getattr(i, "held", False):
                    self._hold(c, i, old.status, stamp)
                elif old is None:
                    new.append((_incomplete_row(i, stamp), D.INCOMPLETE))
            new_disputes(c, new)
        return {"new": len(new), "changed": changed}

    @staticmethod
    def _mark_built(c: Any, inputs: str | None) -> None:
        """Record which ingest (and which `inputs`) this build covered."""
        latest = c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0
        done = {"built_seq": str(latest)} | ({"built_inputs": inputs} if inputs else {})
        c.execute(meta.delete().where(meta.c.key.in_(done)))
        c.execute(meta.insert(), [{"key": k, "value": v} for k, v in done.items()])

    @staticmethod
    def _sync_payload(
        c: Any, p: Any, old: Any, new: list[tuple[dict[str, Any], D]], stamp: str
    ) -> int:
        """One built payload: a new dispute joins `new`; a changed one is updated (1 returned)."""
        row = {
            "provider_dispute_id": p.provider_dispute_id,
            "order_number": p.order_number,
            "response_due_by": p.response_due_by,
            "payload": p.body,
            "payload_hash": p.content_hash,
            "facts": p.facts_json or None,
        }
        where = disputes.c.provider_dispute_id == p.provider_dispute_id
        if old is not None and old.api_due_by:  # the API's deadline wins over the sheet's
            row["response_due_by"] = old.api_due_by
        if old is not None and old.status == D.CLOSED:
            # ended at the API: a new payload is kept, never sent (an unchanged one is not
            # written again: every night's build would rewrite the whole closed history)
            if old.payload_hash != p.content_hash:
                c.execute(disputes.update().where(where).values(**row))
            return 0
        if old is None:
            new.append(({**row, "detail": None, "updated_at": stamp}, D.PENDING))
        elif old.payload_hash != p.content_hash or old.status == D.INCOMPLETE:
            move_dispute(c, p.provider_dispute_id, D.PENDING, **row, detail=None, updated_at=stamp)
            return 1
        elif (hold := Hold.parse(old.detail)) is not None and hold.held:  # sent, no longer held
            c.execute(disputes.update().where(where).values(detail=None))
        if (
            old is not None and old.no_facts and row["facts"]
        ):  # stored before v19: its facts kept from now on
            c.execute(disputes.update().where(where).values(facts=row["facts"]))
        return 0

    @staticmethod
    def _hold(c: Any, i: Any, status: str, stamp: str) -> None:
        """A known dispute whose new data would go out wrong: not sent until it is fixed (one
        already sent keeps what it was sent with; the reason shows on its row)."""
        where = disputes.c.provider_dispute_id == i.provider_dispute_id
        if status in DISPUTE_MOVES[D.INCOMPLETE]:  # the moves state/lifecycle.py allows
            move_dispute(c, i.provider_dispute_id, D.INCOMPLETE, detail=i.reason, updated_at=stamp)
        elif status == D.SUBMITTED:
            c.execute(disputes.update().where(where).values(detail=i.reason))

    def expire_pending(self, now: str) -> int:
        """Disputes not yet sent whose deadline passed become past_due before anything is sent,
        in a real run and in a dry run alike (the submitter checks again as it sends)."""
        return self._expire(D.PENDING, now, "; not sent")

    def expire_incomplete(self, now: str) -> int:
        """Disputes still waiting for data when their deadline passed become past_due (a late
        arrival of their data sends them back to pending, and the engine marks them again)."""
        return self._expire(D.INCOMPLETE, now, "; the data never arrived, so nothing was sent")

    def _expire(self, status: D, now: str, why: str) -> int:
        """Disputes in `status` whose deadline is before `now` become past_due, saying why."""
        with self.engine.begin() as c:
            return move_disputes(
                c,
                D.PAST_DUE,
                disputes.c.response_due_by < now,
                frm={status},
                detail="response was due by " + disputes.c.response_due_by + why,
            )

    def evidence_hashes(self, within: Collection[str] | None = None) -> set[str]:
        """The content hashes of every evidence file registered so far; `within`: of these
        hashes, those registered (a run asks about its own files, not the year's)."""
        sha = evidence_files.c.sha256
        q = select(sha).distinct()
        parts = [q] if within is None else [q.where(sha.in_(part)) for part in chunks(within)]
        with self.engine.connect() as c:
            return {h for part in parts for h in c.execute(part).scalars()}

    def sync_files(self, rows: list[dict[str, Any]]) -> int:
        """Register matched evidence files; one row per (dispute, content hash), whatever the name."""
        status = F.SENDING if self.reconcile_uploads() else F.PENDING
        f = evidence_files.c
        q = select(f.provider_dispute_id, f.sha256)
        pids = {str(row["provider_dispute_id"]) for row in rows}  # theirs, not the year's
        with self.engine.begin() as c:
            known = {
                (pid, sha)
                for part in chunks(pids)
                for pid, sha in c.execute(q.where(f.provider_dispute_id.in_(part))).tuples()
            }
            fresh = []
            for row in rows:
                key = (row["provider_dispute_id"], row["sha256"])
                if key not in known:
                    known.add(key)
                    fresh.append({**row, "updated_at": now_iso()})
            new_files(c, fresh, status)
        return len(fresh)

    def summary_work(self) -> list[dict[str, Any]]:
        """Disputes that are sent or to be sent, with what their summary is made from."""
        q = select(
            disputes.c.provider_dispute_id,
            disputes.c.payload,
            disputes.c.payload_hash,
            disputes.c.summary_input,
        ).where(
            disputes.c.status.in_((D.PENDING, D.SUBMITTED, D.AWAITING_APPROVAL)),
            disputes.c.payload.is_not(None),
            or_(disputes.c.response_due_by.is_(None), disputes.c.response_due_by > now_iso()),
        )
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def file_names(self, within: Collection[str] | None = None) -> dict[str, list[str]]:
        """{dispute: its evidence files' names}, in the order they were registered; `within`:
        only these disputes' (a report's open ones, not the year's)."""
        f = evidence_files.c
        q = select(f.provider_dispute_id, f.file_name).order_by(f.provider_dispute_id, f.updated_at)
        parts = (
            [q]
            if within is None
            else [q.where(f.provider_dispute_id.in_(part)) for part in chunks(set(within))]
        )
        out: dict[str, list[str]] = {}
        with self.engine.connect() as c:
            for part in parts:
                for pid, name in c.execute(part):
                    out.setdefault(pid, []).append(name)
        return out

    def evidence_file_rows(self) -> list[dict[str, Any]]:
        """Every evidence file: dispute, content hash, name, kind, how it was matched."""
        c_ = evidence_files.c
        q = select(c_.provider_dispute_id, c_.sha256, c_.file_name, c_.kind, c_.matched).order_by(
            c_.provider_dispute_id, c_.updated_at, c_.sha256
        )
        with self.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(q)]

    def file_kinds(self, judge: Callable[[str], str]) -> dict[str, list[str]]:
        """{dispute: the kinds of its evidence files} (our own summaries left out; a file
        registered before kinds were kept is judged by its name, by `judge`)."""

        c_ = evidence_files.c
        q = select(c_.provider_dispute_id, c_.kind, c_.file_name).order_by(
            c_.provider_dispute_id, c_.sha256
        )
        out: dict[str, list[str]] = {}
        with self.engine.connect() as c:
            for pid, kind, name in c.execute(q):
                summary = _generated(pid, kind, name)
                if not summary:
                    out.setdefault(pid, []).append(kind or judge(name))
        return out

    def evidence_documents(
        self, within: Iterable[str] | None = None
    ) -> dict[str, list[tuple[str, str, str]]]:
        """{dispute: (file name, sha256, kind or "") of each evidence file}, our own summaries
        left out, by name (engine/prepare/case.py makes them the case's documents); `within`: only
        these disputes' (not the files of every dispute the state ever had)."""
        c_ = evidence_files.c
        q = select(c_.provider_dispute_id, c_.kind, c_.file_name, c_.sha256).order_by(
            c_.provider_dispute_id, c_.file_name, c_.sha256
        )
        pids = None if within is None else sorted(set(within))
        chunks = (
            [q]
            if pids is None
            else [
                q.where(c_.provider_dispute_id.in_(pids[at : at + 500]))  # bounded values
                for at in range(0, len(pids), 500)
            ]
        )
        out: dict[str, list[tuple[str, str, str]]] = {}
        with self.engine.connect() as c:
            for chunk in chunks:
                for pid, kind, name, sha in c.execute(chunk):
                    if not _generated(pid, kind, name):
                        out.setdefault(pid, []).append((name, sha, kind or ""))
        return out

    def set_summary_inputs(self, made: dict[str, str]) -> None:
        """Record what each dispute's current summary was made from, in one transaction."""
        if not made:
            return
        stmt = (
            disputes.update()
            .where(disputes.c.provider_dispute_id == bindparam("pid"))
            .values(summary_input=bindparam("made_from"))
        )
        with self.engine.begin() as c:
            c.execute(stmt, [{"pid": k, "made_from": v} for k, v in made.items()])

    def kept_facts(self, within: Collection[str] | None = None) -> dict[str, bytes]:
        """{dispute: its typed facts as JSON (evidence/dispute_facts.py)}, for those that have them
        (a payload stored before v19 has none); `within`: only these disputes'."""
        d = disputes.c
        q = select(d.provider_dispute_id, d.facts).where(d.facts.is_not(None))
        parts = (
            [q]
            if within is None
            else [q.where(d.provider_dispute_id.in_(part)) for part in chunks(set(within))]
        )
        with self.engine.connect() as c:
            return {pid: bytes(body) for part in parts for pid, body in c.execute(part)}

    def payloads(self) -> dict[str, bytes]:
        q = select(disputes.c.provider_dispute_id, disputes.c.payload).where(
            disputes.c.payload.is_not(None)
        )
        with self.engine.connect() as c:
            return {pid: bytes(body) for pid, body in c.execute(q)}

    def work_queue(self) -> list[str]:
        """Disputes with something to send, earliest response_due_by first, unknown last."""
        open_files = (
            select(evidence_files.c.provider_dispute_id)
            .where(evidence_files.c.status.in_(OPEN_FILE))
            .distinct()
        )
        q = (
            select(disputes.c.provider_dispute_id)
            .where(
                or_(
                    disputes.c.status == D.PENDING,
                    and_(
                        disputes.c.status == D.SUBMITTED,
                        disputes.c.provider_dispute_id.in_(open_files),
                    ),
                )
            )
            .order_by(
                disputes.c.response_due_by.is_(None),
                disputes.c.response_due_by,
                disputes.c.provider_dispute_id,
            )
        )
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(q)]

    def dispute(self, pid: str) -> dict[str, Any]:
        with self.engine.connect() as c:
            return dict(
                c.execute(select(disputes).where(disputes.c.provider_dispute_id == pid))
                .mappings()
                .one()
            )

    def holder_of(self, dispute_id: str, *, besides: str) -> str | None:
        """The dispute other than `besides` this state records under the API's `dispute_id`."""
        q = select(disputes.c.provider_dispute_id).where(
            disputes.c.dispute_id == dispute_id, disputes.c.provider_dispute_id != besides
        )
        with self.engine.connect() as c:
            return c.execute(q.limit(1)).scalar()

    def files_of(self, pid: str) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            q = (
                select(evidence_files)
                .where(evidence_files.c.provider_dispute_id == pid)
                .order_by(evidence_files.c.file_name)
            )
            return [dict(r) for r in c.execute(q).mappings()]


def _incomplete_row(i: Any, stamp: str) -> dict[str, Any]:
    """A dispute first seen without what its payload needs: waits for data."""
    return {
        "provider_dispute_id": i.provider_dispute_id,
        "order_number": i.order_number,
        "response_due_by": i.response_due_by,
        "payload": None,
        "payload_hash": None,
        "facts": None,
        "detail": i.reason,
        "updated_at": stamp,
    }


def _generated(pid: str, kind: str | None, name: object) -> bool:
    """Our own generated PDF (the summary or the packet), not one of the merchant's documents."""
    return kind in ("summary", "packet") or str(name).startswith(
        (f"{pid}-evidence-summary", f"{pid}-evidence-packet")
    )
