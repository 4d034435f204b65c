"""The one-run-at-a-time lock and the per-dispute leases (renewed by engine.run.KeepAlive)."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import select

from dispute_evidence.engine.schema import (
    disputes,
    meta,
)
from dispute_evidence.engine.store.base import (
    LEASE_SECONDS,
    RUN_LOCK_SECONDS,
    StoreBase,
    now_iso,
    owner_is_dead,
)


class Locks(StoreBase):
    """The run lock and the dispute leases."""

    def acquire_run_lock(self, owner: str, ttl: float = RUN_LOCK_SECONDS) -> str | None:
        """Take the one-run-at-a-time lock; returns None, or who holds it and since when.

        A lock whose holder died on this host, or whose time ran out, is taken over."""
        now = time.time()
        with self.engine.begin() as c:
            row = c.execute(select(meta.c.value).where(meta.c.key == "run_lock")).first()
            if row:
                holder, expires, since = row[0].rsplit("|", 2)
                if holder != owner and float(expires) > now and not owner_is_dead(holder):
                    return f"run {holder.rsplit(':', 1)[-1]} (started {since})"
                c.execute(meta.delete().where(meta.c.key == "run_lock"))
            c.execute(
                meta.insert().values(key="run_lock", value=f"{owner}|{now + ttl}|{now_iso()}")
            )
        return None

    def renew_run_lock(self, owner: str, ttl: float = RUN_LOCK_SECONDS) -> None:
        with self.engine.begin() as c:
            row = c.execute(select(meta.c.value).where(meta.c.key == "run_lock")).first()
            if row and row[0].startswith(owner + "|"):
                since = row[0].rsplit("|", 1)[1]
                c.execute(
                    meta.update()
                    .where(meta.c.key == "run_lock")
                    .values(value=f"{owner}|{time.time() + ttl}|{since}")
                )

    def release_run_lock(self, owner: str) -> None:
        with self.engine.begin() as c:
            c.execute(
                meta.delete().where(meta.c.key == "run_lock", meta.c.value.like(f"{owner}|%"))
            )

    def claim(self, pid: str, owner: str, ttl: float = LEASE_SECONDS) -> bool:
        """Take the dispute's lease unless another live run holds it (works on SQLite and PostgreSQL)."""
        now = time.time()
        params = {"pid": pid, "owner": owner, "now": now, "until": now + ttl}
        taken = self._run(
            "UPDATE disputes SET lease_owner = :owner, lease_expires = :until WHERE provider_dispute_id = :pid"
            " AND (lease_owner IS NULL OR lease_owner = :owner OR lease_expires < :now)",
            params,
        )
        if taken == 1:
            return True
        rows = self._run(
            "SELECT lease_owner FROM disputes WHERE provider_dispute_id = :pid",
            {"pid": pid},
            fetch=True,
        )
        holder = rows[0]["lease_owner"] if rows else None
        if not owner_is_dead(holder):
            return False
        taken = self._run(
            "UPDATE disputes SET lease_owner = :owner, lease_expires = :until"
            " WHERE provider_dispute_id = :pid AND lease_owner = :holder",
            {**params, "holder": holder},
        )
        return bool(taken == 1)

    def claim_and_load(
        self, pid: str, owner: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """Claim the dispute and read it with its files; None if another run holds it."""
        if not self.claim(pid, owner):
            return None
        d = self._run(
            "SELECT * FROM disputes WHERE provider_dispute_id = :pid", {"pid": pid}, fetch=True
        )[0]
        files = self._run(
            "SELECT * FROM evidence_files WHERE provider_dispute_id = :pid ORDER BY file_name",
            {"pid": pid},
            fetch=True,
        )
        return d, files

    def renew_leases(self, prefix: str, ttl: float = LEASE_SECONDS) -> int:
        """Extend every dispute lease whose owner starts with `prefix` (this process's). Safe
        from another thread: its own pooled connection, not the submitter's."""
        with self.engine.begin() as c:
            result = c.execute(
                disputes.update()
                .where(disputes.c.lease_owner.startswith(prefix, autoescape=True))
                .values(lease_expires=time.time() + ttl)
            )
        return int(result.rowcount)

    def release(self, pid: str, owner: str) -> None:
        self._run(
            "UPDATE disputes SET lease_owner = NULL, lease_expires = NULL"
            " WHERE provider_dispute_id = :pid AND lease_owner = :owner",
            {"pid": pid, "owner": owner},
        )
