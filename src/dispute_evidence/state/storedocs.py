"""The store documents' versions (engine/prepare/storedocs_intake.py): each name's versions,
kept for good."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from dispute_evidence.state.base import Part
from dispute_evidence.state.schema import store_documents


class StoreDocuments(Part):
    """Every version of each document of the inbox's store/ folder."""

    def store_document_versions(self) -> list[dict[str, Any]]:
        """Every version kept: name, sha256, kind, effective, dropped, path, size, mime,
        signature; by name, then the day each was first seen."""
        c_ = store_documents.c
        q = select(store_documents).order_by(c_.name, c_.dropped, c_.sha256)
        with self.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(q)]

    def keep_store_document(self, row: dict[str, Any]) -> None:
        """A version seen now: added when new, else its kind, date, copy and signature
        refreshed (the day it was first seen stays)."""
        c_ = store_documents.c
        key = (c_.name == row["name"]) & (c_.sha256 == row["sha256"])
        with self.engine.begin() as c:
            if c.execute(select(c_.name).where(key)).first() is None:
                c.execute(store_documents.insert().values(**row))
                return
            kept = {k: v for k, v in row.items() if k not in ("name", "sha256", "dropped")}
            c.execute(store_documents.update().where(key).values(**kept))
