"""What the merchant's standing keeps night to night (v20; engine/reporting/standing_kept.py):
settled transactions counted per source, month, network and (v24) statement descriptor up to
an ingest, the charges whose
latest row says disputed, and the last CE 3.0 coverage. With them, the record rows a night
reads are those ingested since, and the other versions of their keys (read by key)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any, NamedTuple

import pandas as pd
from sqlalchemy import ColumnElement, and_, func, or_, select, update

from dispute_evidence.state.base import Part
from dispute_evidence.state.schema import (
    RECORD_TABLES,
    api_views,
    ce3_verdicts,
    disputes,
    ingested_files,
    meta,
    standing_coverage,
    standing_disputed_charges,
    standing_transactions,
)
from dispute_evidence.state.scoped import chunks

SEEN = "standing_seq"  # meta: the last ingest the kept counts include
MERCHANT = "merchant"  # standing_coverage's one row
KEY = ("source", "month", "network", "descriptor")  # what a kept count is counted by


class KeptCounts(NamedTuple):
    """The kept transaction counts (source, month, network, descriptor, transactions), the disputed
    charges, and the ingest they are as of (0: nothing kept)."""

    seen: int
    counts: pd.DataFrame
    disputed: set[str]


class KeptCoverage(NamedTuple):
    as_of: str
    seen: int
    transactions: int
    body: str


class StandingKept(Part):
    """The standing's kept counts and coverage, and the narrow reads it makes."""

    def standing_counts(self) -> KeptCounts:
        with self.engine.connect() as c:
            seen = c.execute(select(meta.c.value).where(meta.c.key == SEEN)).scalar()
            counts = pd.read_sql(select(standing_transactions), c)
            disputed = set(c.execute(select(standing_disputed_charges.c.payment_id)).scalars())
        return KeptCounts(int(seen or 0), counts, disputed)

    def keep_standing_counts(
        self, since: int, seen: int, change: pd.DataFrame, disputed: set[str], undisputed: set[str]
    ) -> bool:
        """Add `change` (source, month, network, descriptor, transactions +/-), worked out from
        the counts as of ingest `since`, and mark them as of ingest `seen`, in one transaction; nothing
        (False) when another process kept its own since (its change must not be added twice)."""
        t = standing_transactions
        with self.engine.begin() as c:
            if not _moved(c, since, seen):
                return False
            for r in change.itertuples(index=False):
                key = dict(zip(KEY, (r.source, r.month, r.network, r.descriptor), strict=True))
                at = and_(*(t.c[name] == value for name, value in key.items()))
                was = c.execute(select(t.c.transactions).where(at)).scalar()
                c.execute(t.delete().where(at))
                if (now := int(was or 0) + int(r.transactions)) != 0:
                    c.execute(t.insert().values(**key, transactions=now))
            _set_charges(c, disputed, undisputed)
        return True

    def rows_by_key(
        self, kind: str, key: str, values: Collection[str], columns: Iterable[str]
    ) -> pd.DataFrame:
        """Every version of the rows of `kind` whose `key` is one of `values` ('' finds an
        empty or missing key too), only `columns` and `_seq`, in ingest order."""
        table = RECORD_TABLES[kind]
        wanted = [table.c[n] for n in dict.fromkeys([*columns, key, "_seq"]) if n in table.c]
        frames = []
        with self.engine.connect() as c:
            for chunk in chunks({str(v) for v in values}):
                where: ColumnElement[bool] = table.c[key].in_(chunk)
                if "" in chunk:  # a key the sheet left empty is stored as NULL
                    where = or_(where, table.c[key].is_(None))
                query = select(*wanted, table.c._row).where(where)
                frames.append(pd.read_sql(query, c))
        if not frames:
            return pd.DataFrame(columns=[c.name for c in wanted])
        rows = pd.concat(frames, ignore_index=True).fillna("")
        rows = rows.sort_values(["_seq", "_row"], kind="stable").reset_index(drop=True)
        return rows.drop(columns="_row")

    def rows_since(self, kinds: Iterable[str], seen: int) -> int:
        """How many record rows of `kinds` were ingested after ingest `seen`."""
        with self.engine.connect() as c:
            return sum(
                int(
                    c.execute(select(func.count()).where(RECORD_TABLES[k].c._seq > seen)).scalar()
                    or 0
                )
                for k in kinds
            )

    def kind_read(self, kind: str) -> bool:
        """Whether a file of `kind` was read (a sheet of no rows too): kinds_read() without
        parsing every file's summary."""
        q = select(ingested_files.c.sha256).where(
            ingested_files.c.summary.contains(json.dumps({"kind": kind})[1:-1], autoescape=True)
        )
        with self.engine.connect() as c:
            return c.execute(q.limit(1)).first() is not None

    def opened_dates(self) -> dict[str, str]:
        """Each dispute's opening date as the API gave it (those read back)."""
        q = select(api_views.c.provider_dispute_id, api_views.c.opened_on).where(
            api_views.c.opened_on.is_not(None), api_views.c.opened_on != ""
        )
        with self.engine.connect() as c:
            return {str(pid): str(opened) for pid, opened in c.execute(q)}

    def ce3_qualified(self) -> frozenset[str]:
        """The fraud disputes the last build found CE 3.0 qualifies."""
        q = select(ce3_verdicts.c.provider_dispute_id).where(ce3_verdicts.c.qualifies != 0)
        with self.engine.connect() as c:
            return frozenset(str(p) for p in c.execute(q).scalars())

    def api_statuses(self) -> dict[str, str]:
        """The API's status of each dispute read back (an inquiry's `warning_*`, ...)."""
        q = select(disputes.c.provider_dispute_id, disputes.c.api_status).where(
            disputes.c.api_status.is_not(None), disputes.c.api_status != ""
        )
        with self.engine.connect() as c:
            return {str(pid): str(status) for pid, status in c.execute(q)}

    def kept_coverage(self) -> KeptCoverage | None:
        with self.engine.connect() as c:
            row = c.execute(
                select(standing_coverage).where(standing_coverage.c.name == MERCHANT)
            ).first()
        return None if row is None else KeptCoverage(row.as_of, row.seq, row.transactions, row.body)

    def keep_coverage(self, kept: KeptCoverage) -> None:
        with self.engine.begin() as c:
            c.execute(standing_coverage.delete().where(standing_coverage.c.name == MERCHANT))
            c.execute(
                standing_coverage.insert().values(
                    name=MERCHANT,
                    as_of=kept.as_of,
                    seq=kept.seen,
                    transactions=kept.transactions,
                    body=kept.body,
                )
            )


def _moved(c: Any, since: int, seen: int) -> bool:
    """The kept counts' ingest moved from `since` to `seen`; False if it was not `since`. The
    update comes first, so the transaction holds the write lock before it reads anything."""
    moved = c.execute(
        update(meta).where(meta.c.key == SEEN, meta.c.value == str(since)).values(value=str(seen))
    )
    if moved.rowcount == 1:
        return True
    if since != 0 or c.execute(select(meta.c.value).where(meta.c.key == SEEN)).first():
        return False
    c.execute(meta.insert().values(key=SEEN, value=str(seen)))
    return True


def _set_charges(c: Any, disputed: set[str], undisputed: set[str]) -> None:
    t = standing_disputed_charges
    for chunk in chunks(disputed | undisputed):
        c.execute(t.delete().where(t.c.payment_id.in_(chunk)))
    if disputed:
        c.execute(t.insert(), [{"payment_id": p} for p in sorted(disputed)])
