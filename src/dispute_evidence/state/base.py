"""The store's foundation: the connection (SQLite pragmas, a damaged file, a full disk), owner
ids, run ids and the `meta` key-value rows the other parts share (its errors: state/errors.py)."""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path
from typing import Any, NoReturn, Self

from sqlalchemy import Executable, create_engine, event, func, select, text
from sqlalchemy import table as sql_table
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError

from dispute_evidence import clock
from dispute_evidence.cardnumbers import covered
from dispute_evidence.clock import Wall
from dispute_evidence.state.errors import (
    StateDamaged,
    StateError,
    StateFull,
    StateNewer,
    StateUnreachable,
    is_full,
    state_path,
    translate_errors,
)
from dispute_evidence.state.migrations import migrate
from dispute_evidence.state.schema import RECORD_TABLES, create_new, meta

# A run's lock and its dispute leases are renewed every KEEPALIVE_SECONDS while its process
# lives (engine/session.py KeepAlive): wherever the process dies, another machine takes over
# within two minutes; on the same machine at once (the holder's pid is gone).
KEEPALIVE_SECONDS = 30.0
LEASE_SECONDS = 120.0
RUN_LOCK_SECONDS = 120.0
CONNECT_TIMEOUT = 10  # seconds: a database server silent this long at the start is unreachable


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
    return clock.now().strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:6]


def now_iso() -> str:
    return clock.now().replace(microsecond=0).isoformat().replace("+00:00", "Z")


def state_url(value: str | Path) -> str:
    """A path becomes a SQLite URL; anything with '://' is taken as an SQLAlchemy URL."""
    text = str(value)
    return text if "://" in text else f"sqlite:///{Path(text).expanduser().resolve()}"


def _connect_args(url: str) -> dict[str, Any]:
    """PostgreSQL gives up on a silent server after CONNECT_TIMEOUT (libpq waits forever),
    unless the URL says otherwise."""
    if url.startswith("postgresql") and "connect_timeout" not in url:
        return {"connect_args": {"connect_timeout": CONNECT_TIMEOUT}}
    return {}


def state_exists(value: str | Path) -> bool:
    """False for a SQLite path with no file yet (nothing has run there); True otherwise."""
    url = state_url(value)
    if not url.startswith("sqlite:///"):
        return True
    return Path(url.removeprefix("sqlite:///")).is_file()


def _create_private(path: Path) -> bool:
    """A new SQLite state file, readable by its owner only (it holds customers' names,
    emails and addresses); SQLite gives its -wal and -shm files the same mode. True if made."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    return True


def _is_empty_file(path: str) -> bool:
    """True for a state file that exists with no bytes in it (truncated, or zeroed)."""
    database = path.removeprefix("file:").split("?", 1)[0]
    try:
        return os.stat(database).st_size == 0
    except OSError:
        return False


FULL_BELOW = 1 << 20  # bytes: less free space than this where the state is, is a full disk


def _space_left(folder: Path) -> int:
    """Bytes an unprivileged process may still write in `folder`'s filesystem (a large number
    when that cannot be told)."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across process crashes
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


# the record tables' bulk inserts: their cells passed ingest's door (ingest/validate.py looks
# at every text cell with the same detector, its column as the label)
_RECORD_TABLES = frozenset(t.name for t in RECORD_TABLES.values())


def cover_parameters(
    _conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool
) -> tuple[str, Any]:
    """The state's one door for text: every text bound to a statement has its card numbers
    covered before the database sees it (cardnumbers.covered; a bare number is an identifier,
    left as it is). The record tables' bulk inserts are not looked at twice."""
    if many:
        words = statement.split(None, 3)  # INSERT INTO <table> (…)
        if words[:2] == ["INSERT", "INTO"] and len(words) > 2 and words[2] in _RECORD_TABLES:
            return statement, parameters
        return statement, [covered(p) for p in parameters]
    return statement, covered(parameters)


def state_engine(url: str, **kw: Any) -> Engine:
    """An engine on a state store: every text bound to its statements has its card numbers
    covered (cover_parameters). The only way the state is opened for writing."""
    engine = create_engine(url, future=True, **kw)
    event.listen(engine, "before_cursor_execute", cover_parameters, retval=True)
    return engine


class StoreBase:
    """The connection, and what every part of the store uses."""

    # the API this store sends to (state/apis.py: use_api), stamped on what is sent
    api_identity: str | None = None

    def __init__(
        self,
        url: str | Path,
        *,
        must_exist: bool = False,
        read_only: bool = False,
        wall: Wall = clock.wall,
    ) -> None:
        """`wall`: what locks and leases time themselves by (epoch seconds), the run's clock
        unless a test gives another."""
        self.url = state_url(url)
        self.wall = wall
        self.engine: Engine = state_engine(self.url, **_connect_args(self.url))
        self._hot: Any = None  # one held connection for the submitter's per-dispute writes
        self._sql: dict[tuple[str, ...], Any] = {}
        created = False
        if self.engine.dialect.name == "sqlite":
            if not read_only:
                event.listen(self.engine, "connect", _sqlite_pragmas)
            path = self.engine.url.database
            if must_exist and path and not Path(path).is_file():
                self.engine.dispose()
                raise StateError(
                    f"no state file at {path}: check the path (no run has used it yet)"
                )
            if path and _is_empty_file(path):  # SQLite would take it for a new, empty state
                self.engine.dispose()
                raise StateDamaged(self._damaged("an empty file: 0 bytes"))
            if path and path != ":memory:" and not read_only:
                created = _create_private(Path(path))
        if self.engine.dialect.name != "sqlite":
            self._reach()
        try:
            with self.engine.begin() as conn:
                if read_only:  # reading the catalogue is enough to find a damaged file
                    conn.execute(select(func.count()).select_from(sql_table("sqlite_master")))
                elif not create_new(conn):  # a new state: in one step
                    migrate(conn)
        except StateNewer as exc:  # said with where the state is; nothing was written
            self.engine.dispose()
            raise StateNewer(exc.found, exc.ours, f"{self._where()} ") from None
        except DatabaseError as exc:
            self.engine.dispose()
            if created:  # ours and never written whole (a full disk): no empty file left behind
                Path(str(self.engine.url.database)).unlink(missing_ok=True)
            if is_full(exc):  # not damage: a full disk, said with its path
                raise StateFull(state_path(self.engine.url)) from exc
            self._full_disk_or_damaged(exc)

    def _reach(self) -> None:
        """One connection to the database server: one that cannot be made (refused, timed out,
        unknown host, a password refused) means the server is down or unreachable, not that
        the state is damaged."""
        try:
            self.engine.connect().close()
        except DatabaseError as exc:
            self.engine.dispose()
            why = " ".join(str(exc.orig).split())[:300]
            raise StateUnreachable(
                f"cannot connect to the state database {self._where()} ({why}). It is not "
                "damaged and nothing was changed: check that PostgreSQL is running and answers "
                "at that host and port from this machine (firewall, VPN), the database name, "
                "and the user's password (PGPASSWORD or ~/.pgpass); then run again."
            ) from None

    def _full_disk_or_damaged(self, exc: DatabaseError) -> NoReturn:
        """SQLite says 'disk I/O error' when it cannot grow its journal on a full disk: with no
        space left where the state is, that is a full disk (exit 74), not damage."""
        database = self._where()
        io_error = self.engine.dialect.name == "sqlite" and "I/O error" in str(exc)
        if io_error and _space_left(Path(database).parent) < FULL_BELOW:
            raise StateFull(database) from exc
        raise StateDamaged(self._damaged(exc)) from None

    def _damaged(self, exc: DatabaseError | str) -> str:
        why = exc if isinstance(exc, str) else str(exc.orig).splitlines()[0]
        return (
            f"the state store {self._where()} is damaged ({why}). To recover: "
            "restore it from a backup; or move it aside and run again with --reconcile, so the "
            "new state lists each dispute's files at the API before uploading and nothing is "
            "sent twice (evidence is re-sent whole, which is harmless)."
        )

    def __enter__(self) -> Self:
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

    def _run(self, sql: str | Executable, params: dict[str, Any], fetch: bool = False) -> Any:
        """One statement in its own committed transaction on the held connection (the hot path:
        ~4x cheaper than a pool checkout per call). Reads commit too, so no snapshot lingers."""
        if self._hot is None:
            self._hot = self.engine.connect()
        if isinstance(sql, str):
            stmt = self._sql.get((sql,))
            if stmt is None:
                stmt = self._sql[(sql,)] = text(sql)
        else:
            stmt = sql
        try:
            result = self._hot.execute(stmt, params)
            rows = [dict(r) for r in result.mappings()] if fetch else result.rowcount
            self._hot.commit()
            return rows
        except BaseException:
            self._hot.rollback()
            raise

    def _where(self) -> str:
        database = self.engine.url.database
        if self.engine.dialect.name == "sqlite" and database:
            return database.removeprefix("file:").split("?", 1)[0]  # a read-only URI too
        return repr(self)

    def _get_meta(self, key: str) -> str | None:
        with self.engine.connect() as c:
            value = c.execute(select(meta.c.value).where(meta.c.key == key)).scalar()
        return None if value is None else str(value)

    def _set_meta(self, key: str, value: str) -> None:
        with self.engine.begin() as c:
            c.execute(meta.delete().where(meta.c.key == key))
            c.execute(meta.insert().values(key=key, value=value))


class Part:
    """One part of the store (its runs, locks, disputes, ...): its methods over the connection
    every part shares (`base`). A part never calls another; the store holds them side by side
    (state/store.py), and a stage is handed the parts it uses."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every part's public methods translate driver errors at the edge (state/errors.py)."""
        super().__init_subclass__(**kwargs)
        translate_errors(cls)

    def __init__(self, base: StoreBase) -> None:
        self._base = base

    @property
    def engine(self) -> Engine:
        return self._base.engine

    @property
    def wall(self) -> Wall:
        return self._base.wall

    @property
    def api_identity(self) -> str | None:
        """The API this store sends to (state/apis.py: use_api), shared by every part."""
        return self._base.api_identity

    @api_identity.setter
    def api_identity(self, value: str | None) -> None:
        self._base.api_identity = value

    def _run(self, sql: str | Executable, params: dict[str, Any], fetch: bool = False) -> Any:
        return self._base._run(sql, params, fetch)

    def _where(self) -> str:
        return self._base._where()

    def _damaged(self, exc: DatabaseError | str) -> str:
        return self._base._damaged(exc)

    def get_meta(self, key: str) -> str | None:
        return self._base._get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._base._set_meta(key, value)

    def __repr__(self) -> str:  # the base's, which hides a database password
        return f"{type(self).__name__} of {self._base!r}"
