"""The one-run-at-a-time lock and the per-dispute leases (renewed by engine.session.KeepAlive).

Time here is the store's `wall` clock (epoch seconds; the run's clock unless a test injects
another): locks and leases are about live processes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Delete, Select, Update, bindparam, or_, select

from dispute_evidence.state.base import (
    LEASE_SECONDS,
    RUN_LOCK_SECONDS,
    Part,
    now_iso,
    owner_is_dead,
)
from dispute_evidence.state.schema import disputes, evidence_files, run_lock

RUN = "run"  # the lock's one row
_pid = disputes.c.provider_dispute_id == bindparam("pid")
# take the lease unless another live run holds it (works on SQLite and PostgreSQL)
_CLAIM: Update = (
    disputes.update()
    .where(_pid)
    .where(
        or_(
            disputes.c.lease_owner.is_(None),
            disputes.c.lease_owner == bindparam("owner"),
            disputes.c.lease_expires < bindparam("now"),
        )
    )
    .values(lease_owner=bindparam("owner"), lease_expires=bindparam("until"))
)
_TAKE_OVER: Update = (
    disputes.update()
    .where(_pid, disputes.c.lease_owner == bindparam("holder"))
    .values(lease_owner=bindparam("owner"), lease_expires=bindparam("until"))
)
_HOLDER: Select[Any] = select(disputes.c.lease_owner).where(_pid)
_DISPUTE: Select[Any] = select(disputes).where(_pid)
_FILES: Select[Any] = (
    select(evidence_files)
    .where(evidence_files.c.provider_dispute_id == bindparam("pid"))
    .order_by(evidence_files.c.file_name)
)
_RELEASE: Update = (
    disputes.update()
    .where(_pid, disputes.c.lease_owner == bindparam("owner"))
    .values(lease_owner=None, lease_expires=None)
)
_DROP_LOCK: Delete = run_lock.delete().where(run_lock.c.name == RUN)


class Locks(Part):
    """The run lock and the dispute leases."""

    def acquire_run_lock(self, owner: str, ttl: float = RUN_LOCK_SECONDS) -> str | None:
        """Take the one-run-at-a-time lock; returns None, or who holds it and since when.

        A lock whose holder died on this host, or whose time ran out, is taken over."""
        now = self.wall()
        with self.engine.begin() as c:
            held = c.execute(select(run_lock).where(run_lock.c.name == RUN)).first()
            if held is not None:
                mine = held.owner == owner
                if not mine and held.expires > now and not owner_is_dead(held.owner):
                    return f"run {held.owner.rsplit(':', 1)[-1]} (started {held.since})"
                c.execute(_DROP_LOCK)
            c.execute(
                run_lock.insert().values(name=RUN, owner=owner, expires=now + ttl, since=now_iso())
            )
        return None

    def run_lock_holder(self) -> str | None:
        """Who holds the run lock now (a live holder whose time has not run out), else None;
        read only, as acquire_run_lock words it."""
        with self.engine.connect() as c:
            held = c.execute(select(run_lock).where(run_lock.c.name == RUN)).first()
        if held is None or held.expires <= self.wall() or owner_is_dead(held.owner):
            return None
        return f"run {held.owner.rsplit(':', 1)[-1]} (started {held.since})"

    def renew_run_lock(self, owner: str, ttl: float = RUN_LOCK_SECONDS) -> None:
        with self.engine.begin() as c:
            c.execute(
                run_lock.update()
                .where(run_lock.c.name == RUN, run_lock.c.owner == owner)
                .values(expires=self.wall() + ttl)
            )

    def release_run_lock(self, owner: str) -> None:
        with self.engine.begin() as c:
            c.execute(_DROP_LOCK.where(run_lock.c.owner == owner))

    def run_lock_expires(self) -> float | None:
        """When the run lock runs out unless renewed (None: nobody holds it)."""
        with self.engine.connect() as c:
            return c.execute(select(run_lock.c.expires).where(run_lock.c.name == RUN)).scalar()

    def claim(self, pid: str, owner: str, ttl: float = LEASE_SECONDS) -> bool:
        """Take the dispute's lease unless another live run holds it."""
        now = self.wall()
        params = {"pid": pid, "owner": owner, "now": now, "until": now + ttl}
        if self._run(_CLAIM, params) == 1:
            return True
        rows = self._run(_HOLDER, {"pid": pid}, fetch=True)
        holder = rows[0]["lease_owner"] if rows else None
        if not owner_is_dead(holder):
            return False
        return bool(self._run(_TAKE_OVER, {**params, "holder": holder}) == 1)

    def claim_and_load(
        self, pid: str, owner: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """Claim the dispute and read it with its files; None if another run holds it."""
        if not self.claim(pid, owner):
            return None
        d = self._run(_DISPUTE, {"pid": pid}, fetch=True)[0]
        files = self._run(_FILES, {"pid": pid}, fetch=True)
        return d, files

    def renew_leases(self, prefix: str, ttl: float = LEASE_SECONDS) -> int:
        """Extend every dispute lease whose owner starts with `prefix` (this process's). Safe
        from another thread: its own pooled connection, not the submitter's."""
        with self.engine.begin() as c:
            result = c.execute(
                disputes.update()
                .where(disputes.c.lease_owner.startswith(prefix, autoescape=True))
                .values(lease_expires=self.wall() + ttl)
            )
        return int(result.rowcount)

    def release(self, pid: str, owner: str) -> None:
        self._run(_RELEASE, {"pid": pid, "owner": owner})
