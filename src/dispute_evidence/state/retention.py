"""Retention's rows: the closed disputes whose customer data is due to be cleared, the stored
copies that hold it, and the clearing itself in one transaction.
engine/prepare/retention_clearing.py decides what is personal and when; this part finds and
rewrites the rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select, update

from dispute_evidence.state.base import Part
from dispute_evidence.state.lifecycle import DisputeStatus
from dispute_evidence.state.schema import (
    RECORD_TABLES,
    disputes,
    evidence_files,
    generated_docs,
    open_problems,
    store_documents,
)
from dispute_evidence.state.scoped import chunks

ClosedRow = tuple[str, str | None, bytes | None]  # (pid, order number, payload)


@dataclass(frozen=True)
class Clearing:
    """What one clearing rewrites: the disputes' payloads as scrubbed (their typed facts
    dropped), their generated PDFs' facts (`scrub`: JSON bytes without the personal fields),
    the `personal` columns of the `record_kinds` rows of `orders`, and each open problem
    `forget` returns rewritten (None: left as it is)."""

    payloads: dict[str, bytes]
    pids: list[str]
    orders: set[str]
    record_kinds: tuple[str, ...]
    personal: Collection[str]
    scrub: Callable[[bytes], bytes]
    forget: Callable[[dict[str, Any]], dict[str, Any] | None]


def _closed_since() -> Any:
    """When we saw a dispute end: the API's status time, else the row's last change."""
    return func.coalesce(disputes.c.api_status_at, disputes.c.updated_at)


class Retention(Part):
    """What engine/prepare/retention_clearing.py reads and clears."""

    def closed_for_clearing(
        self, cutoff: str, since: str, again: Collection[str]
    ) -> tuple[list[ClosedRow], set[str]]:
        """The disputes closed before `cutoff` and not before `since` (or among `again`), and
        the order numbers of every other dispute (their rows are kept)."""
        closed = and_(
            disputes.c.status == DisputeStatus.CLOSED,
            _closed_since() < cutoff,
            or_(_closed_since() >= since, disputes.c.provider_dispute_id.in_(list(again))),
        )
        with self.engine.connect() as c:
            rows = c.execute(
                select(
                    disputes.c.provider_dispute_id, disputes.c.order_number, disputes.c.payload
                ).where(closed)
            ).all()
            kept = {o for (o,) in c.execute(select(disputes.c.order_number).where(~closed)) if o}
        return [(pid, order, payload) for pid, order, payload in rows], kept

    def closed_before_of_orders(self, before: str, orders: Collection[str]) -> list[str]:
        """The disputes closed before `before` whose order is one of `orders`."""
        cleared = and_(disputes.c.status == DisputeStatus.CLOSED, _closed_since() < before)
        out: list[str] = []
        with self.engine.connect() as c:
            for chunk in chunks(orders):
                out += c.execute(
                    select(disputes.c.provider_dispute_id).where(
                        cleared, disputes.c.order_number.in_(chunk)
                    )
                ).scalars()
        return out

    def stored_copies_of(self, pids: list[str]) -> tuple[set[tuple[str, str]], set[str]]:
        """(content hash, path) of `pids`' evidence files, ("", path) of their packets; and
        the hashes and paths of those contents that another dispute still uses, or that are a
        version of a store document (the store's own, no customer's: an older order still
        argues an old version after store/ holds a newer one)."""
        ef, g = evidence_files.c, generated_docs.c
        mine: set[tuple[str, str]] = set()
        with self.engine.connect() as c:
            for chunk in chunks(pids):
                mine |= {
                    (sha, path)
                    for sha, path in c.execute(
                        select(ef.sha256, ef.path).where(ef.provider_dispute_id.in_(chunk))
                    )
                }
                mine |= {
                    ("", path)
                    for (path,) in c.execute(
                        select(g.packet_path).where(g.provider_dispute_id.in_(chunk))
                    )
                }
            shas, cleared = sorted({sha for sha, _ in mine if sha}), set(pids)
            s_ = store_documents.c
            used = {v for row in c.execute(select(s_.sha256, s_.path)) for v in row if v}
            for chunk in chunks(shas):
                for pid, sha, path in c.execute(
                    select(ef.provider_dispute_id, ef.sha256, ef.path).where(
                        ef.sha256.in_(chunk), ef.path != ""
                    )
                ):
                    if pid not in cleared:
                        used |= {sha, path}
        return mine, used

    def clear_customer_data(self, clearing: Clearing) -> None:
        """Rewrite what `clearing` names, in one transaction."""
        with self.engine.begin() as c:
            for pid, payload in clearing.payloads.items():
                c.execute(
                    update(disputes)
                    .where(disputes.c.provider_dispute_id == pid)
                    # the typed facts hold the same personal fields: dropped, so the case
                    # reads the scrubbed payload (the legacy path, evidence/wire.py)
                    .values(payload=payload, facts=None)
                )
            _clear_generated(c, clearing.pids, clearing.scrub)
            _clear_records(c, clearing.orders, clearing.record_kinds, clearing.personal)
            _clear_problems(c, clearing.forget)


def _clear_generated(c: Any, pids: list[str], scrub: Callable[[bytes], bytes]) -> None:
    """The state no longer points at the deleted copies, and the generated PDFs' `material`
    (the facts each stated, compared on later runs) keeps everything but the personal fields."""
    for chunk in chunks(pids):
        c.execute(
            update(evidence_files)
            .where(evidence_files.c.provider_dispute_id.in_(chunk))
            .values(path="")
        )
        docs = c.execute(
            select(
                generated_docs.c.provider_dispute_id,
                generated_docs.c.sha256,
                generated_docs.c.material,
            ).where(generated_docs.c.provider_dispute_id.in_(chunk))
        ).all()
        for pid, sha, material in docs:
            scrubbed = scrub(material.encode()).decode() if material else material
            c.execute(
                update(generated_docs)
                .where(generated_docs.c.provider_dispute_id == pid, generated_docs.c.sha256 == sha)
                .values(material=scrubbed, packet_path="")
            )


def _clear_records(
    c: Any, orders: set[str], kinds: tuple[str, ...], personal: Collection[str]
) -> None:
    """Blank the personal columns of the `kinds` rows of `orders`."""
    for kind in kinds:
        records = RECORD_TABLES[kind]
        blank = {records.c[name]: None for name in sorted(set(personal) & set(records.c.keys()))}
        for chunk in chunks(orders):
            c.execute(update(records).where(records.c.order_number.in_(chunk)).values(blank))


def _clear_problems(c: Any, forget: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Each open problem `forget` rewrites, stored rewritten."""
    for source, seq, body in c.execute(
        select(open_problems.c.source, open_problems.c.seq, open_problems.c.body)
    ).all():
        problem = forget(json.loads(body))
        if problem is None:
            continue
        c.execute(
            update(open_problems)
            .where(open_problems.c.source == source, open_problems.c.seq == seq)
            .values(body=json.dumps(problem))
        )
