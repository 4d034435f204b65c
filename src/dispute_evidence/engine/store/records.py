"""Ingest: which files were read, and the records they gave (one table per kind)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pandas as pd
from sqlalchemy import Column, Text, column, func, inspect, literal_column, select
from sqlalchemy import table as sql_table
from sqlalchemy.sql.elements import ColumnClause

from dispute_evidence.engine.schema import (
    RECORD_TABLES,
    alter,
    ingested_files,
    meta,
)
from dispute_evidence.engine.store.base import (
    StoreBase,
    now_iso,
)
from dispute_evidence.ingest import empty_records


class Records(StoreBase):
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
                if frame.empty:
                    continue
                out = frame.astype({c: "object" for c in frame.columns if c != "_row"}).copy()
                out["_seq"] = seq
                self._add_record_columns(c, RECORD_TABLES[kind], list(out.columns))
                out.to_sql(
                    RECORD_TABLES[kind], c, if_exists="append", index=False, chunksize=50_000
                )

    def _add_record_columns(self, c: Any, table: str, columns: list[str]) -> None:
        """A record table made by an older version lacks the fields added since: add them."""
        if not self.engine.dialect.has_table(c, table):
            return
        present = {col["name"] for col in inspect(c).get_columns(table)}
        for name in columns:
            if name not in present:
                alter(c).add_column(table, Column(name, Text()))

    def load_records(
        self, kinds: Iterable[str] = RECORD_TABLES, columns: Iterable[str] | None = None
    ) -> dict[str, pd.DataFrame]:
        """Every record known so far, in ingest order (file by file, row by row); only
        `columns` of them (those the table has) when given: a report needs a few of many."""
        out = {}
        with self.engine.connect() as c:
            for kind in kinds:
                table = RECORD_TABLES[kind]
                if not self.engine.dialect.has_table(c, table):
                    out[kind] = empty_records()[
                        kind
                    ]  # nothing of this kind yet: no rows, all columns
                    continue
                names = self._columns(c, table, columns)
                picked: list[ColumnClause[Any]] = (
                    [column(n) for n in names] if names else [literal_column("*")]
                )
                query = select(*picked)
                query = query.select_from(sql_table(table)).order_by(column("_seq"), column("_row"))
                frame = pd.read_sql(query, c)
                # _seq stays: which ingest (file version) each row came from
                out[kind] = frame.fillna("")
        return out

    @staticmethod
    def _columns(c: Any, table: str, wanted: Iterable[str] | None) -> list[str]:
        """The `wanted` columns the table has ([]: all of them)."""
        if wanted is None:
            return []
        present = {col["name"] for col in inspect(c).get_columns(table)}
        return [name for name in wanted if name in present]

    def needs_rebuild(self, inputs: str | None = None) -> bool:
        """Records arrived since the last build (also true after a run died between the two),
        or what else shapes a payload (`inputs`: the merchant profile, settings) changed."""
        with self.engine.connect() as c:
            latest = c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0
            built = c.execute(select(meta.c.value).where(meta.c.key == "built_seq")).scalar()
            used = c.execute(select(meta.c.value).where(meta.c.key == "built_inputs")).scalar()
        changed = inputs is not None and used != inputs
        return built is None or latest > int(built) or changed
