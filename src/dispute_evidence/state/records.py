"""Ingest: which files were read, and the records they gave (one table per kind)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd
from sqlalchemy import Float, Table, func, select

from dispute_evidence.state.base import (
    Part,
    now_iso,
)
from dispute_evidence.state.schema import (
    RECORD_TABLES,
    ingested_files,
    meta,
)


class Records(Part):
    """Ingested files and their records."""

    def is_ingested(self, sha256: str, inputs: str | None = None) -> bool:
        """This content was read before (with the same mappings and locale, when `inputs`
        names them: a file dropped again after they changed is read again)."""
        with self.engine.connect() as c:
            row = c.execute(
                select(ingested_files.c.inputs).where(ingested_files.c.sha256 == sha256)
            ).first()
        return row is not None and (inputs is None or row.inputs in (None, inputs))

    def files_read_otherwise(self, inputs: str) -> int:
        """How many files were read with other mappings or another locale than `inputs`."""
        with self.engine.connect() as c:
            return int(
                c.execute(
                    select(func.count()).where(
                        ingested_files.c.inputs.is_not(None), ingested_files.c.inputs != inputs
                    )
                ).scalar()
                or 0
            )

    def record_ingest(
        self,
        sha256: str,
        name: str,
        run_id: str,
        records: dict[str, pd.DataFrame],
        summary: list[dict[str, Any]],
        inputs: str | None = None,
    ) -> None:
        """One file's records and its ingest row, in one transaction: all or nothing. A file
        read again (its mappings or locale changed) becomes the latest version of itself."""
        with self.engine.begin() as c:
            seq = (c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0) + 1
            c.execute(ingested_files.delete().where(ingested_files.c.sha256 == sha256))
            c.execute(
                ingested_files.insert().values(
                    sha256=sha256,
                    name=name,
                    seq=seq,
                    run_id=run_id,
                    ingested_at=now_iso(),
                    summary=json.dumps(summary),
                    inputs=inputs,
                )
            )
            for kind, frame in records.items():
                table = RECORD_TABLES[kind]
                if unknown := sorted(set(frame.columns) - set(table.c.keys())):
                    raise ValueError(
                        f"{table.name} has no column {unknown}: declare it in "
                        "state/schema.py, with a migration that adds it"
                    )
                for chunk in _record_rows(frame, seq, _numbers(table)):
                    c.execute(table.insert(), chunk)

    def load_records(
        self, kinds: Iterable[str] = RECORD_TABLES, columns: Iterable[str] | None = None
    ) -> dict[str, pd.DataFrame]:
        """Every record known so far, in ingest order (file by file, row by row); only
        `columns` of them (those the table has) when given: a report needs a few of many.
        Each keeps `_seq`: which ingest (file version) the row came from."""
        out = {}
        with self.engine.connect() as c:
            for kind in kinds:
                table = RECORD_TABLES[kind]
                wanted = (
                    table.columns
                    if columns is None
                    else [table.c[n] for n in columns if n in table.c]
                )
                query = select(*wanted).order_by(table.c._seq, table.c._row)
                out[kind] = pd.read_sql(query, c).fillna("")
        return out

    def kinds_read(self) -> set[str]:
        """The table kinds of every file read so far, a sheet of no rows included (an empty
        fraud-warnings sheet says "none", where no sheet says nothing)."""
        with self.engine.connect() as c:
            texts = c.execute(select(ingested_files.c.summary)).scalars().all()
        return {str(s["kind"]) for t in texts if t for s in json.loads(t) if s.get("kind")}

    def needs_rebuild(self, inputs: str | None = None) -> bool:
        """Records arrived since the last build (also true after a run died between the two),
        or what else shapes a payload (`inputs`: the merchant profile, settings) changed."""
        with self.engine.connect() as c:
            latest = c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0
            built = c.execute(select(meta.c.value).where(meta.c.key == "built_seq")).scalar()
            used = c.execute(select(meta.c.value).where(meta.c.key == "built_inputs")).scalar()
        changed = inputs is not None and used != inputs
        return built is None or latest > int(built) or changed


_CHUNK = 50_000  # rows per insert: a million-row export is not held as dicts at once


def _numbers(table: Table) -> list[str]:
    return [c.name for c in table.columns if isinstance(c.type, Float)]


def _record_rows(
    frame: pd.DataFrame, seq: int, numbers: list[str]
) -> Iterator[list[dict[str, Any]]]:
    """`frame`'s rows as the record table takes them: Python values, None for a blank number
    (NaN, or '' where the sheet had no such column), and the ingest they came from (`_seq`)."""
    for start in range(0, len(frame), _CHUNK):
        part = frame.iloc[start : start + _CHUNK].astype(object)
        part = part.where(part.notna(), None)
        for name in numbers:
            if name in part:
                part[name] = part[name].where(part[name] != "", None)
        part["_seq"] = seq
        yield part.to_dict("records")
