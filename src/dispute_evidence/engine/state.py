"""The state store: SQLite by default (WAL, one transaction per unit of work), or any
SQLAlchemy URL (PostgreSQL for shared use). Every unit of work commits alone, so a run
killed at any moment leaves each dispute and file in a state the next run knows how to finish."""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import and_, bindparam, create_engine, event, func, or_, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError

from dispute_evidence.engine.schema import (
    RECORD_TABLES,
    add_columns,
    disputes,
    evidence_files,
    ingested_files,
    metadata,
    migrate,
    open_problems,
    runs,
    status_history,
)
from dispute_evidence.engine.status import (
    DISPUTE_MOVES,
    FILE_MOVES,
    OPEN_FILE,
    DisputeStatus,
    FileStatus,
    IllegalTransition,
)
from dispute_evidence.engine.status import DisputeStatus as D
from dispute_evidence.engine.status import FileStatus as F
from dispute_evidence.ingest import empty_records

# A run's lock and its dispute leases are renewed every KEEPALIVE_SECONDS while its process
# lives (engine.run.KeepAlive): wherever the process dies, another machine takes over within
# two minutes; on the same machine at once (the holder's pid is gone).
KEEPALIVE_SECONDS = 30.0
LEASE_SECONDS = 120.0
RUN_LOCK_SECONDS = 120.0


class StateError(Exception):
    """The state store cannot be used as it is; the message says which and what to do."""


class StateDamaged(StateError):
    """The state file is not a readable database (truncated, overwritten, corrupt)."""


class StateOfAnotherInbox(StateError):
    """The state store records another inbox than the one this run was given."""


def new_owner(tag: str) -> str:
    """A lease owner id that says where it lives, so a dead holder on this host is recognised."""
    return f"{socket.gethostname()}:{os.getpid()}:{tag}"


def process_owner_prefix() -> str:
    """What every owner id made by this process starts with."""
    return f"{socket.gethostname()}:{os.getpid()}:"


def owner_is_dead(owner: str | None) -> bool:
    """True only when the owner is a process on this host that no longer exists."""
    if not owner or owner.count(":") < 2:
        return False
    host, pid, _ = owner.split(":", 2)
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine: its lease can only expire
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:6]


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def state_url(value: str | Path) -> str:
    """A path becomes a SQLite URL; anything with '://' is taken as an SQLAlchemy URL."""
    text = str(value)
    return text if "://" in text else f"sqlite:///{Path(text).expanduser().resolve()}"


def _hours_apart(a: str | None, b: str | None) -> float:
    """Hours between two ISO times (infinite when one is missing or unreadable)."""
    try:
        ta = datetime.fromisoformat(str(a).replace("Z", "+00:00"))
        tb = datetime.fromisoformat(str(b).replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    return abs((ta - tb).total_seconds()) / 3600


def state_exists(value: str | Path) -> bool:
    """False for a SQLite path with no file yet (nothing has run there); True otherwise."""
    url = state_url(value)
    if not url.startswith("sqlite:///"):
        return True
    return Path(url.removeprefix("sqlite:///")).is_file()


def open_read_only(value: str | Path) -> StateStore:
    """The state as it is, opened without the right to change it (SQLite: mode=ro, so not
    even a checkpoint touches the file). Other databases open normally."""
    url = state_url(value)
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        return StateStore(f"sqlite:///file:{path}?mode=ro&uri=true", read_only=True)
    return StateStore(url)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across process crashes
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


class StateStore:
    """Run state: ingested files and records, one row per dispute and per evidence file, runs."""

    def __init__(
        self, url: str | Path, *, must_exist: bool = False, read_only: bool = False
    ) -> None:
        self.url = state_url(url)
        self.engine: Engine = create_engine(self.url, future=True)
        self._hot: Any = None  # one held connection for the submitter's per-dispute writes
        self._sql: dict[tuple[str, ...], Any] = {}
        if self.engine.dialect.name == "sqlite":
            if not read_only:
                event.listen(self.engine, "connect", _sqlite_pragmas)
            path = self.engine.url.database
            if must_exist and path and not Path(path).is_file():
                self.engine.dispose()
                raise StateError(
                    f"no state file at {path}: check the path (no run has used it yet)"
                )
        try:
            with self.engine.begin() as conn:
                if read_only:  # reading the catalogue is enough to find a damaged file
                    conn.execute(text("SELECT count(*) FROM sqlite_master"))
                else:
                    migrate(conn)
        except DatabaseError as exc:
            self.engine.dispose()
            raise StateDamaged(self._damaged(exc)) from None

    def _damaged(self, exc: DatabaseError) -> str:
        return (
            f"the state store {self._where()} is damaged ({str(exc.orig).splitlines()[0]}). To recover: "
            "restore it from a backup; or move it aside and run again with --reconcile, so the "
            "new state lists each dispute's files at the API before uploading and nothing is "
            "sent twice (evidence is re-sent whole, which is harmless)."
        )

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:  # a URL may carry a database password
        return f"StateStore({self.engine.url.render_as_string(hide_password=True)!r})"

    def close(self) -> None:
        if self._hot is not None:
            self._hot.close()
            self._hot = None
        self.engine.dispose()

    def _run(self, sql: str, params: dict[str, Any], fetch: bool = False) -> Any:
        """One statement in its own committed transaction on the held connection (the hot path:
        ~4x cheaper than a pool checkout per call). Reads commit too, so no snapshot lingers."""
        if self._hot is None:
            self._hot = self.engine.connect()
        stmt = self._sql.get((sql,))
        if stmt is None:
            stmt = self._sql[(sql,)] = text(sql)
        try:
            result = self._hot.execute(stmt, params)
            rows = [dict(r) for r in result.mappings()] if fetch else result.rowcount
            self._hot.commit()
            return rows
        except BaseException:
            self._hot.rollback()
            raise

    # -- runs --------------------------------------------------------------------
    def start_run(self, trigger: str = "manual", run_id: str | None = None) -> str:
        run_id = run_id or new_run_id()
        with self.engine.begin() as c:
            c.execute(
                runs.insert().values(
                    run_id=run_id, started_at=now_iso(), trigger=trigger, outcome="running"
                )
            )
        return run_id

    def finish_run(self, run_id: str, outcome: str, counts: dict[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(
                runs.update()
                .where(runs.c.run_id == run_id)
                .values(
                    finished_at=now_iso(),
                    outcome=outcome,
                    counts=json.dumps(counts, sort_keys=True),
                )
            )

    def mark_crashed_runs(self, except_run: str) -> int:
        """Runs still 'running' when a run takes the lock died without finishing (SIGKILL,
        power loss): only the lock holder ever has a running row."""
        with self.engine.begin() as c:
            result = c.execute(
                runs.update()
                .where(runs.c.outcome == "running", runs.c.run_id != except_run)
                .values(outcome="crashed", finished_at=now_iso())
            )
        return result.rowcount

    # -- the inbox this state belongs to -----------------------------------------------
    def bind_inbox(self, inbox: Path, *, adopt: bool = False) -> None:
        """Record the inbox on first use; refuse another one unless `adopt` (the inbox moved),
        which rebinds and points stored evidence copies at the new place."""
        from dispute_evidence.engine.schema import meta

        here = str(inbox)
        with self.engine.begin() as c:
            bound = c.execute(select(meta.c.value).where(meta.c.key == "inbox")).scalar()
            if bound == here:
                return
            if bound is not None and not adopt:
                raise self._another_inbox(bound, here)
            if bound is not None:
                for path, pid, sha in c.execute(
                    select(
                        evidence_files.c.path,
                        evidence_files.c.provider_dispute_id,
                        evidence_files.c.sha256,
                    )
                ).all():
                    if path.startswith(bound + os.sep):
                        c.execute(
                            evidence_files.update()
                            .where(
                                evidence_files.c.provider_dispute_id == pid,
                                evidence_files.c.sha256 == sha,
                            )
                            .values(path=here + path[len(bound) :])
                        )
            c.execute(meta.delete().where(meta.c.key == "inbox"))
            c.execute(meta.insert().values(key="inbox", value=here))

    def check_inbox(self, inbox: Path, *, adopt: bool = False) -> None:
        """Raise StateOfAnotherInbox if this state serves another inbox (and not `adopt`)."""
        from dispute_evidence.engine.schema import meta

        with self.engine.connect() as c:
            bound = c.execute(select(meta.c.value).where(meta.c.key == "inbox")).scalar()
        if bound not in (None, str(inbox)) and not adopt:
            raise self._another_inbox(bound, str(inbox))

    def _another_inbox(self, bound: str, here: str) -> StateOfAnotherInbox:
        return StateOfAnotherInbox(
            f"the state store {self._where()} belongs to the inbox {bound}, not {here}. Give "
            "each inbox its own state (the default sits beside the inbox), or, if this inbox "
            "was moved there, run once with --adopt."
        )

    def _where(self) -> str:
        database = self.engine.url.database
        return database if self.engine.dialect.name == "sqlite" and database else repr(self)

    # -- recovery: a new state for an inbox whose files may already be at the API --------
    def set_reconcile_uploads(self, on: bool) -> None:
        """While on, newly registered files start as 'sending': the dispute's file listing is
        checked before each is uploaded (a replaced state must not send files twice)."""
        from dispute_evidence.engine.schema import meta

        with self.engine.begin() as c:
            c.execute(meta.delete().where(meta.c.key == "reconcile_uploads"))
            if on:
                c.execute(meta.insert().values(key="reconcile_uploads", value="1"))

    def reconcile_uploads(self) -> bool:
        from dispute_evidence.engine.schema import meta

        with self.engine.connect() as c:
            return (
                c.execute(select(meta.c.value).where(meta.c.key == "reconcile_uploads")).scalar()
                == "1"
            )

    def last_runs(self, n: int = 5) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = (
                c.execute(select(runs).order_by(runs.c.started_at.desc()).limit(n)).mappings().all()
            )
        return [dict(r) for r in rows]

    # -- run lock ------------------------------------------------------------------
    def acquire_run_lock(self, owner: str, ttl: float = RUN_LOCK_SECONDS) -> str | None:
        """Take the one-run-at-a-time lock; returns None, or who holds it and since when.

        A lock whose holder died on this host, or whose time ran out, is taken over."""
        from dispute_evidence.engine.schema import meta

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
        from dispute_evidence.engine.schema import meta

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
        from dispute_evidence.engine.schema import meta

        with self.engine.begin() as c:
            c.execute(
                meta.delete().where(meta.c.key == "run_lock", meta.c.value.like(f"{owner}|%"))
            )

    # -- evidence files seen in the inbox (so the watcher stays quiet) ------------------
    def seen_evidence(self) -> set[str]:
        from dispute_evidence.engine.schema import meta

        with self.engine.connect() as c:
            value = c.execute(select(meta.c.value).where(meta.c.key == "evidence_seen")).scalar()
        return set(json.loads(value)) if value else set()

    def mark_evidence_seen(self, signatures: Iterable[str]) -> None:
        """Remember the evidence files a run considered (matched or not): 'path|size|mtime'."""
        from dispute_evidence.engine.schema import meta

        with self.engine.begin() as c:
            c.execute(meta.delete().where(meta.c.key == "evidence_seen"))
            c.execute(
                meta.insert().values(key="evidence_seen", value=json.dumps(sorted(set(signatures))))
            )

    # -- open problems: carried from run to run until their cause is replaced ---------
    def replace_problems(
        self, source: str, problems: Iterable[dict[str, Any]], run_id: str
    ) -> None:
        """The open problems of one source (an inbox file's name, or "(build)") become these."""
        rows = [
            {"source": source, "seq": i, "kind": p["kind"], "body": json.dumps(p), "run_id": run_id}
            for i, p in enumerate(problems)
        ]
        with self.engine.begin() as c:
            c.execute(open_problems.delete().where(open_problems.c.source == source))
            if rows:
                c.execute(open_problems.insert(), rows)

    def open_problems(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(open_problems.c.body).order_by(open_problems.c.source, open_problems.c.seq)
            ).all()
        return [json.loads(r[0]) for r in rows]

    # -- what the last report showed (for "changed since the last run") ----------------
    def get_meta(self, key: str) -> str | None:
        from dispute_evidence.engine.schema import meta

        with self.engine.connect() as c:
            value = c.execute(select(meta.c.value).where(meta.c.key == key)).scalar()
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        from dispute_evidence.engine.schema import meta

        with self.engine.begin() as c:
            c.execute(meta.delete().where(meta.c.key == key))
            c.execute(meta.insert().values(key=key, value=value))

    # -- a throwaway copy: what a dry run works on, so the real state never changes -------
    def copy_to(self, path: Path) -> StateStore:
        """Copy every table (records included) into a new SQLite file and open it there."""
        target = create_engine(state_url(path), future=True)
        reflected = type(metadata)()
        try:
            with self.engine.connect() as src, target.begin() as dst:
                reflected.reflect(src)
                for table in reflected.sorted_tables:
                    if table.name in metadata.tables:  # ours: as defined (any dialect to SQLite)
                        made = metadata.tables[table.name]
                        made.create(dst)
                    else:  # record tables (pandas made them): the same columns, generic types
                        for column in table.columns:
                            column.type = column.type.as_generic()
                        made = table
                        made.create(dst)
                    rows = [dict(r) for r in src.execute(select(table)).mappings()]
                    if rows:
                        dst.execute(made.insert(), rows)
        except DatabaseError as exc:
            raise StateDamaged(self._damaged(exc)) from None
        finally:
            target.dispose()
        return StateStore(path)  # migrates a copy of an older state to this version

    # -- ingest --------------------------------------------------------------------
    def is_ingested(self, sha256: str) -> bool:
        with self.engine.connect() as c:
            return (
                c.execute(
                    select(ingested_files.c.sha256).where(ingested_files.c.sha256 == sha256)
                ).first()
                is not None
            )

    def record_ingest(
        self,
        sha256: str,
        name: str,
        run_id: str,
        records: dict[str, pd.DataFrame],
        summary: list[dict[str, Any]],
    ) -> None:
        """One file's records and its ingest row, in one transaction: all or nothing."""
        with self.engine.begin() as c:
            seq = (c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0) + 1
            c.execute(
                ingested_files.insert().values(
                    sha256=sha256,
                    name=name,
                    seq=seq,
                    run_id=run_id,
                    ingested_at=now_iso(),
                    summary=json.dumps(summary),
                )
            )
            for kind, frame in records.items():
                if frame.empty:
                    continue
                out = frame.astype({c: "object" for c in frame.columns if c != "_row"}).copy()
                out["_seq"] = seq
                if self.engine.dialect.has_table(c, RECORD_TABLES[kind]):  # newer layouts' columns
                    add_columns(c, RECORD_TABLES[kind], dict.fromkeys(out.columns, "TEXT"))
                out.to_sql(
                    RECORD_TABLES[kind], c, if_exists="append", index=False, chunksize=50_000
                )

    def load_records(self, kinds: Iterable[str] = RECORD_TABLES) -> dict[str, pd.DataFrame]:
        """Every record known so far, in ingest order (file by file, row by row)."""
        out = {}
        with self.engine.connect() as c:
            for kind in kinds:
                table = RECORD_TABLES[kind]
                if not self.engine.dialect.has_table(c, table):
                    out[kind] = empty_records()[
                        kind
                    ]  # nothing of this kind yet: no rows, all columns
                    continue
                frame = pd.read_sql(f"SELECT * FROM {table} ORDER BY _seq, _row", c)  # noqa: S608 - fixed names
                # _seq stays: which ingest (file version) each row came from
                out[kind] = frame.fillna("")
        return out

    # -- disputes and files ----------------------------------------------------------
    def needs_rebuild(self) -> bool:
        """Records arrived since the last build (also true after a run died between the two)."""
        from dispute_evidence.engine.schema import meta

        with self.engine.connect() as c:
            latest = c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0
            built = c.execute(select(meta.c.value).where(meta.c.key == "built_seq")).scalar()
        return built is None or latest > int(built)

    def sync_disputes(self, payloads: Iterable[Any], incomplete: Iterable[Any]) -> dict[str, int]:
        """Upsert built payloads; a changed payload sends a submitted dispute back to pending.

        Records which ingest the build covered, in the same transaction."""
        from dispute_evidence.engine.schema import meta

        with self.engine.begin() as c:
            latest = c.execute(select(func.max(ingested_files.c.seq))).scalar() or 0
            c.execute(meta.delete().where(meta.c.key == "built_seq"))
            c.execute(meta.insert().values(key="built_seq", value=str(latest)))
            known = {
                r.provider_dispute_id: r
                for r in c.execute(
                    select(
                        disputes.c.provider_dispute_id,
                        disputes.c.payload_hash,
                        disputes.c.status,
                        disputes.c.api_due_by,
                    )
                )
            }
            new, changed, stamp = [], 0, now_iso()
            for p in payloads:
                row = {
                    "provider_dispute_id": p.provider_dispute_id,
                    "order_number": p.order_number,
                    "response_due_by": p.response_due_by,
                    "payload": p.body,
                    "payload_hash": p.content_hash,
                }
                old = known.get(p.provider_dispute_id)
                if old is not None and old.api_due_by:  # the API's deadline wins over the sheet's
                    row["response_due_by"] = old.api_due_by
                if old is not None and old.status == D.CLOSED:
                    c.execute(  # ended at the API: the new payload is kept, never sent
                        disputes.update()
                        .where(disputes.c.provider_dispute_id == p.provider_dispute_id)
                        .values(**row)
                    )
                    continue
                if old is None:
                    new.append({**row, "status": D.PENDING, "detail": None, "updated_at": stamp})
                elif old.payload_hash != p.content_hash or old.status == D.INCOMPLETE:
                    changed += 1
                    status = (
                        old.status
                        if old.status in (D.REJECTED, D.NOT_FOUND)
                        and old.payload_hash == p.content_hash
                        else D.PENDING
                    )
                    c.execute(
                        disputes.update()
                        .where(disputes.c.provider_dispute_id == p.provider_dispute_id)
                        .values(**row, status=status, detail=None, updated_at=stamp)
                    )
            for i in incomplete:
                if i.provider_dispute_id not in known:
                    new.append(
                        {
                            "provider_dispute_id": i.provider_dispute_id,
                            "order_number": i.order_number,
                            "response_due_by": i.response_due_by,
                            "payload": None,
                            "payload_hash": None,
                            "status": D.INCOMPLETE,
                            "detail": i.reason,
                            "updated_at": stamp,
                        }
                    )
            if new:
                c.execute(disputes.insert(), new)
        return {"new": len(new), "changed": changed}

    def expire_incomplete(self, now: str) -> int:
        """Disputes still waiting for data when their deadline passed become past_due (a late
        arrival of their data sends them back to pending, and the engine marks them again)."""
        with self.engine.begin() as c:
            result = c.execute(
                disputes.update()
                .where(disputes.c.status == D.INCOMPLETE, disputes.c.response_due_by < now)
                .values(
                    status=D.PAST_DUE,
                    updated_at=now_iso(),
                    detail="response was due by "
                    + disputes.c.response_due_by
                    + "; the data never arrived, so nothing was sent",
                )
            )
        return result.rowcount

    def sync_files(self, rows: list[dict[str, Any]]) -> int:
        """Register matched evidence files; one row per (dispute, content hash), whatever the name."""
        status = F.SENDING if self.reconcile_uploads() else F.PENDING
        with self.engine.begin() as c:
            known = set(
                c.execute(
                    select(evidence_files.c.provider_dispute_id, evidence_files.c.sha256)
                ).tuples()
            )
            fresh = []
            for row in rows:
                key = (row["provider_dispute_id"], row["sha256"])
                if key not in known:
                    known.add(key)
                    fresh.append({**row, "status": status, "updated_at": now_iso()})
            if fresh:
                c.execute(evidence_files.insert(), fresh)
        return len(fresh)

    # -- evidence summaries ---------------------------------------------------------
    def summary_work(self) -> list[dict[str, Any]]:
        """Disputes that are sent or to be sent, with what their summary is made from."""
        q = select(
            disputes.c.provider_dispute_id,
            disputes.c.payload,
            disputes.c.payload_hash,
            disputes.c.summary_input,
        ).where(
            disputes.c.status.in_((D.PENDING, D.SUBMITTED)),
            disputes.c.payload.is_not(None),
            or_(disputes.c.response_due_by.is_(None), disputes.c.response_due_by > now_iso()),
        )
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def file_names(self) -> dict[str, list[str]]:
        """{dispute: its evidence files' names}, in the order they were registered."""
        q = select(evidence_files.c.provider_dispute_id, evidence_files.c.file_name).order_by(
            evidence_files.c.provider_dispute_id, evidence_files.c.updated_at
        )
        out: dict[str, list[str]] = {}
        with self.engine.connect() as c:
            for pid, name in c.execute(q):
                out.setdefault(pid, []).append(name)
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

    def dispute(self, pid: str) -> dict[str, Any]:
        with self.engine.connect() as c:
            return dict(
                c.execute(select(disputes).where(disputes.c.provider_dispute_id == pid))
                .mappings()
                .one()
            )

    def files_of(self, pid: str) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            q = (
                select(evidence_files)
                .where(evidence_files.c.provider_dispute_id == pid)
                .order_by(evidence_files.c.file_name)
            )
            return [dict(r) for r in c.execute(q).mappings()]

    # -- named transitions (engine/status.py lists the moves they allow) ------------------
    def mark_submitted(
        self, pid: str, *, submitted_hash: str, dispute_id: str, attempts: int
    ) -> None:
        self._move_dispute(
            pid,
            D.SUBMITTED,
            submitted_hash=submitted_hash,
            dispute_id=dispute_id,
            attempts=attempts,
            detail=None,
            last_error=None,
        )

    def mark_closed(self, pid: str, detail: str) -> None:
        self._move_dispute(pid, D.CLOSED, detail=detail)

    # -- read back from the API -------------------------------------------------------
    def known_at_api(self) -> list[dict[str, Any]]:
        """Disputes whose API id we know and that have not ended, nearest deadline first."""
        q = (
            select(
                disputes.c.provider_dispute_id,
                disputes.c.dispute_id,
                disputes.c.status,
                disputes.c.api_status,
                disputes.c.api_read_at,
                disputes.c.response_due_by,
            )
            .where(disputes.c.dispute_id.is_not(None), disputes.c.status != D.CLOSED)
            .order_by(disputes.c.response_due_by.is_(None), disputes.c.response_due_by)
        )
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def record_api_read(
        self, pid: str, status: str | None, due_by: str | None, run_id: str
    ) -> str | None:
        """What the API said of one dispute; returns the deadline it replaced when it moved
        by more than an hour (else None). A new status is kept in the history."""
        now = now_iso()
        with self.engine.begin() as c:
            row = c.execute(
                select(disputes.c.api_status, disputes.c.response_due_by).where(
                    disputes.c.provider_dispute_id == pid
                )
            ).first()
            if row is None:
                return None
            values: dict[str, Any] = {"api_read_at": now}
            if status and status != row.api_status:
                values |= {"api_status": status, "api_status_at": now}
                c.execute(
                    status_history.insert().values(
                        provider_dispute_id=pid, status=status, seen_at=now, run_id=run_id
                    )
                )
            moved = None
            if due_by:
                values |= {"api_due_by": due_by, "response_due_by": due_by}
                if row.response_due_by and _hours_apart(row.response_due_by, due_by) > 1:
                    moved = row.response_due_by  # (a deadline the sheet lacked is filled in)
            c.execute(
                disputes.update().where(disputes.c.provider_dispute_id == pid).values(**values)
            )
        return moved

    def status_history(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(select(status_history).order_by(status_history.c.seen_at), c)

    def mark_rejected(self, pid: str, detail: str, attempts: int) -> None:
        self._move_dispute(pid, D.REJECTED, detail=detail, attempts=attempts)

    def mark_not_found(self, pid: str, detail: str, attempts: int) -> None:
        self._move_dispute(pid, D.NOT_FOUND, detail=detail, attempts=attempts)

    def mark_past_due(self, pid: str, detail: str) -> None:
        self._move_dispute(pid, D.PAST_DUE, detail=detail)

    def record_failed_attempt(self, pid: str, attempts: int, error: str) -> None:
        """A transient failure: the dispute keeps its status and the next run retries."""
        self._write(
            "disputes",
            {"provider_dispute_id": pid},
            None,
            {"attempts": attempts, "last_error": error},
        )

    def mark_file_sending(self, pid: str, sha256: str) -> None:
        """Durable before the request leaves: after a crash it means 'may have landed'."""
        self._move_file(pid, sha256, F.SENDING)

    def mark_file_uploaded(self, pid: str, sha256: str, remote_file_id: str) -> None:
        self._move_file(pid, sha256, F.UPLOADED, remote_file_id=remote_file_id, last_error=None)

    def mark_file_rejected(self, pid: str, sha256: str, error: str) -> None:
        self._move_file(pid, sha256, F.REJECTED, last_error=error)

    def mark_file_pending(self, pid: str, sha256: str, error: str) -> None:
        """It did not land (a transient failure before the API took it): send it next run."""
        self._move_file(pid, sha256, F.PENDING, last_error=error)

    def note_file_error(self, pid: str, sha256: str, error: str) -> None:
        """Why a file is still where it is, without moving it."""
        self._write(
            "evidence_files",
            {"provider_dispute_id": pid, "sha256": sha256},
            None,
            {"last_error": error},
        )

    def _move_dispute(self, pid: str, to: DisputeStatus, **values: Any) -> None:
        self._write("disputes", {"provider_dispute_id": pid}, (DISPUTE_MOVES[to], to), values)

    def _move_file(self, pid: str, sha256: str, to: FileStatus, **values: Any) -> None:
        key = {"provider_dispute_id": pid, "sha256": sha256}
        self._write("evidence_files", key, (FILE_MOVES[to], to), values)

    def _write(
        self,
        table: str,
        key: dict[str, Any],
        move: tuple[frozenset[str], str] | None,
        values: dict[str, Any],
    ) -> None:
        """One UPDATE of one row; with a move, only from an allowed state (else IllegalTransition)."""
        values = {**values, "updated_at": now_iso()}
        params = {
            **{f"v_{k}": v for k, v in values.items()},
            **{f"k_{k}": v for k, v in key.items()},
        }
        sets = [f"{k} = :v_{k}" for k in values]
        where = [f"{k} = :k_{k}" for k in key]
        if move is not None:
            allowed, to = move
            sets.append("status = :to")
            params["to"] = str(to)
            where.append(
                "status IN (" + ", ".join(f"'{s}'" for s in sorted(allowed)) + ")"
            )  # our enum values
        if (
            self._run(f"UPDATE {table} SET {', '.join(sets)} WHERE {' AND '.join(where)}", params)
            != 1
        ):  # noqa: S608 - our names
            rows = self._run(
                f"SELECT status FROM {table} WHERE {' AND '.join(where[: len(key)])}",  # noqa: S608
                {f"k_{k}": v for k, v in key.items()},
                fetch=True,
            )
            found = rows[0]["status"] if rows else "no such row"
            raise IllegalTransition(
                f"{table} {tuple(key.values())}: {found} -> {move[1] if move else 'same'} is not allowed"
            )

    # -- reporting ------------------------------------------------------------------
    def dispute_table(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(
                select(
                    disputes.c.provider_dispute_id,
                    disputes.c.order_number,
                    disputes.c.response_due_by,
                    disputes.c.status,
                    disputes.c.detail,
                    disputes.c.dispute_id,
                    disputes.c.attempts,
                    disputes.c.last_error,
                    disputes.c.updated_at,
                    disputes.c.submitted_hash,
                    disputes.c.api_status,
                    disputes.c.api_status_at,
                ),
                c,
            )

    def file_table(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(
                select(
                    evidence_files.c.provider_dispute_id,
                    evidence_files.c.file_name,
                    evidence_files.c.path,
                    evidence_files.c.size,
                    evidence_files.c.status,
                    evidence_files.c.remote_file_id,
                    evidence_files.c.last_error,
                    evidence_files.c.updated_at,
                ),
                c,
            )

    def status_counts(self) -> dict[str, int]:
        with self.engine.connect() as c:
            return {
                s: n
                for s, n in c.execute(
                    select(disputes.c.status, func.count()).group_by(disputes.c.status)
                )
            }
