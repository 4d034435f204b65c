"""Records by key: the rows of some disputes, orders or tracking numbers, and what arrived after
an ingest. A night's build reads only what it rebuilds (engine/prepare/rebuild.py), so its cost follows
the new work, not the history."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any

import pandas as pd
from sqlalchemy import distinct, func, literal, select

from dispute_evidence.state.base import Part
from dispute_evidence.state.schema import RECORD_TABLES, disputes, ingested_files, open_problems

CHUNK = 500  # values per IN (SQLite's bound-parameter limit is 999 on old builds)


def chunks(values: Collection[str]) -> Iterator[list[str]]:
    ordered = sorted(values)
    for i in range(0, len(ordered), CHUNK):
        yield ordered[i : i + CHUNK]


class ScopedRecords(Part):
    """Record rows picked by key, in ingest order (as load_records gives them all)."""

    def records_where(self, kind: str, key: str, values: Collection[str]) -> pd.DataFrame:
        """Every row of `kind` whose `key` column is one of `values`, ordered by ingest and
        row, as load_records reads them (empty, with the kind's columns, when none)."""
        table = RECORD_TABLES[kind]
        if not values:
            return pd.DataFrame(columns=[c.name for c in table.columns])
        with self.engine.connect() as c:
            frames = [
                pd.read_sql(select(*table.columns).where(table.c[key].in_(chunk)), c)
                for chunk in chunks({str(v) for v in values})
            ]
        frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        return frame.sort_values(["_seq", "_row"], kind="stable").reset_index(drop=True).fillna("")

    def keys_since(self, kind: str, seq: int, key: str) -> set[str]:
        """The `key` values of the rows of `kind` ingested after ingest number `seq`."""
        table = RECORD_TABLES[kind]
        return self._distinct(table, key, table.c._seq > seq)

    def keys_where(self, kind: str, key: str, by: str, values: Collection[str]) -> set[str]:
        """The `key` values of the rows of `kind` whose `by` column is one of `values`."""
        table, out = RECORD_TABLES[kind], set[str]()
        for chunk in chunks(values):
            out |= self._distinct(table, key, table.c[by].in_(chunk))
        return out

    def all_keys(self, kind: str, key: str) -> set[str]:
        """Every `key` value of `kind` (a missing value as "", as load_records reads it)."""
        return self._distinct(RECORD_TABLES[kind], key, None)

    def _distinct(self, table: Any, key: str, where: Any) -> set[str]:
        query = select(distinct(table.c[key]))
        if where is not None:
            query = query.where(where)
        with self.engine.connect() as c:
            return {"" if v is None else str(v) for (v,) in c.execute(query)}

    def any_record(self, kind: str, filled: str | None = None) -> bool:
        """Whether `kind` has any row (with a non-empty `filled` column, when named)."""
        table = RECORD_TABLES[kind]
        query = select(literal(1)).select_from(table)
        if filled is not None:
            query = query.where(table.c[filled].is_not(None), table.c[filled] != "")
        with self.engine.connect() as c:
            return c.execute(query.limit(1)).first() is not None

    def latest_ingest(self) -> int:
        """The number of the last ingest (0 before any)."""
        with self.engine.connect() as c:
            return int(c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0)

    def payloads_of(self, pids: Collection[str]) -> dict[str, bytes]:
        """The payloads of these disputes (those that have one)."""
        out: dict[str, bytes] = {}
        with self.engine.connect() as c:
            for chunk in chunks(pids):
                q = select(disputes.c.provider_dispute_id, disputes.c.payload).where(
                    disputes.c.provider_dispute_id.in_(chunk), disputes.c.payload.is_not(None)
                )
                out.update((pid, bytes(body)) for pid, body in c.execute(q))
        return out

    def open_problems_of(self, source: str) -> list[dict[str, Any]]:
        """The open problems one source (a file's name, or the build) left, in order."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(open_problems.c.body)
                .where(open_problems.c.source == source)
                .order_by(open_problems.c.seq)
            ).all()
        return [json.loads(r[0]) for r in rows]
