"""Sandbox state: disputes, their evidence and files, in SQLite (`:memory:` or a file)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from dispute_evidence.sandbox.ids import iso, new_id, utcnow

_SCHEMA = """
CREATE TABLE IF NOT EXISTS disputes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    provider_dispute_id TEXT UNIQUE NOT NULL,
    initiated_at TEXT NOT NULL,
    response_due_by TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL,
    provider TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '{}',
    evidence_updates INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS files (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    dispute_id TEXT NOT NULL REFERENCES disputes(id),
    file_name TEXT NOT NULL,
    file_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    content BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS files_by_dispute ON files(dispute_id, seq);
"""

DISPUTE_FIELDS = (
    "id",
    "initiated_at",
    "response_due_by",
    "amount",
    "currency",
    "reason",
    "status",
    "provider",
    "evidence",
)


@dataclass(frozen=True)
class StoredFile:
    id: str
    dispute_id: str
    file_name: str
    file_type: str
    created_at: str
    size: int
    sha256: str


class SandboxStore:
    """All sandbox state behind one SQLite connection, used from the event loop thread."""

    def __init__(self, path: str = ":memory:") -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- disputes -------------------------------------------------------------
    def add_dispute(self, row: dict[str, Any]) -> str:
        """Insert a seeded dispute unless its provider_dispute_id exists; return its id."""
        found = self.dispute_by_provider_id(row["provider_dispute_id"])
        if found:
            return str(found["id"])
        dispute_id = row.get("id") or new_id("dis")
        self._db.execute(
            "INSERT INTO disputes (id, provider_dispute_id, initiated_at, response_due_by,"
            " amount, currency, reason, status, provider) VALUES (?,?,?,?,?,?,?,?,?)",
            (
                dispute_id,
                row["provider_dispute_id"],
                row["initiated_at"],
                row["response_due_by"],
                int(row["amount"]),
                row["currency"],
                row["reason"],
                row["status"],
                row["provider"],
            ),
        )
        return dispute_id

    def move_dispute(
        self, provider_dispute_id: str, status: str | None, response_due_by: str | None
    ) -> bool:
        """The provider's side of a dispute changing (tests and demos): a new status, a moved
        deadline. False if no such dispute."""
        row = self.dispute_by_provider_id(provider_dispute_id)
        if row is None:
            return False
        self._db.execute(
            "UPDATE disputes SET status = ?, response_due_by = ? WHERE id = ?",
            (status or row["status"], response_due_by or row["response_due_by"], row["id"]),
        )
        self._db.commit()
        return True

    def count_disputes(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM disputes").fetchone()[0])

    def list_disputes(self, limit: int, offset: int) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT * FROM disputes ORDER BY seq LIMIT ? OFFSET ?", (limit, offset)
        ).fetchall()
        return [_dispute_json(r) for r in rows]

    def get_dispute(self, dispute_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT * FROM disputes WHERE id = ?", (dispute_id,)).fetchone()
        return _dispute_json(row) if row else None

    def dispute_by_provider_id(self, provider_dispute_id: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._db.execute(
            "SELECT * FROM disputes WHERE provider_dispute_id = ?", (provider_dispute_id,)
        ).fetchone()
        return row

    def set_evidence(self, dispute_id: str, evidence: dict[str, Any], merge: bool) -> None:
        """Store evidence: replace the object, or merge its top-level sections."""
        with self._db:
            if merge:
                row = self._db.execute(
                    "SELECT evidence FROM disputes WHERE id = ?", (dispute_id,)
                ).fetchone()
                evidence = {**json.loads(row["evidence"]), **evidence}
            self._db.execute(
                "UPDATE disputes SET evidence = ?, evidence_updates = evidence_updates + 1"
                " WHERE id = ?",
                (json.dumps(evidence, sort_keys=True), dispute_id),
            )

    # -- files ----------------------------------------------------------------
    def add_file(
        self, dispute_id: str, file_name: str, file_type: str, content: bytes
    ) -> StoredFile:
        stored = StoredFile(
            id=new_id("file"),
            dispute_id=dispute_id,
            file_name=file_name,
            file_type=file_type,
            created_at=iso(utcnow()),
            size=len(content),
            sha256=hashlib.sha256(content).hexdigest(),
        )
        self._db.execute(
            "INSERT INTO files (id, dispute_id, file_name, file_type, size, sha256, created_at,"
            " content) VALUES (?,?,?,?,?,?,?,?)",
            (
                stored.id,
                dispute_id,
                file_name,
                file_type,
                stored.size,
                stored.sha256,
                stored.created_at,
                content,
            ),
        )
        return stored

    def list_files(self, dispute_id: str, limit: int, offset: int) -> list[StoredFile]:
        rows = self._db.execute(
            "SELECT id, dispute_id, file_name, file_type, created_at, size, sha256 FROM files"
            " WHERE dispute_id = ? ORDER BY seq LIMIT ? OFFSET ?",
            (dispute_id, limit, offset),
        ).fetchall()
        return [StoredFile(**dict(r)) for r in rows]

    def file_content(self, file_id: str) -> tuple[StoredFile, bytes] | None:
        row = self._db.execute("SELECT * FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is None:
            return None
        meta = {k: row[k] for k in StoredFile.__dataclass_fields__}
        return StoredFile(**meta), bytes(row["content"])

    # -- inspection (tests, benchmarks, /_sandbox/state) ----------------------
    def snapshot(self) -> dict[str, Any]:
        """Per provider_dispute_id: evidence, number of evidence updates, and file hashes."""
        out: dict[str, Any] = {}
        for r in self._db.execute("SELECT * FROM disputes ORDER BY seq"):
            out[r["provider_dispute_id"]] = {
                "dispute_id": r["id"],
                "evidence": json.loads(r["evidence"]),
                "evidence_updates": r["evidence_updates"],
                "files": [],
            }
        by_id = {v["dispute_id"]: v for v in out.values()}
        for f in self._db.execute(
            "SELECT dispute_id, file_name, sha256, size FROM files ORDER BY seq"
        ):
            by_id[f["dispute_id"]]["files"].append(
                {"file_name": f["file_name"], "sha256": f["sha256"], "size": f["size"]}
            )
        return out


def _dispute_json(row: sqlite3.Row) -> dict[str, Any]:
    out = {k: row[k] for k in DISPUTE_FIELDS}
    out["object"] = "dispute"
    out["evidence"] = json.loads(row["evidence"])
    return {"id": out.pop("id"), "object": "dispute", **out}
