"""A state's database by its address (a SQLite path, or an SQLAlchemy URL): the address checked
and shown without its password, whether the database answers, a schema made for a fleet
merchant. The settings, `deploy --check` and the fleet ask here, so only state/ reads URLs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.schema import CreateSchema


def url_problem(value: str) -> str | None:
    """Why a state value is neither a path nor a database URL (None when it is one)."""
    if "://" not in value:
        return None  # a SQLite path
    try:
        make_url(value)
    except ArgumentError:
        return "not a path or a database URL (e.g. postgresql+psycopg://user@host/db)"
    return None


def has_password(value: str) -> bool:
    """The database URL carries a password (a path never does)."""
    return "://" in value and bool(make_url(value).password)


def shown(value: str) -> str:
    """The address as it may be shown: a URL's password hidden."""
    if "://" not in value:
        return value
    return make_url(value).render_as_string(hide_password=True)


def database_of(value: str) -> str:
    """The database an address names, without per-merchant options (its query)."""
    if "://" not in value:
        return value  # a SQLite path
    return make_url(value).set(query={}).render_as_string(hide_password=False)


def with_search_path(url: str, schema: str) -> str:
    """The PostgreSQL URL whose sessions work in `schema` (libpq's search_path option)."""
    return (
        make_url(url)
        .update_query_dict({"options": f"-csearch_path={schema}"})
        .render_as_string(hide_password=False)
    )


def answer_problem(database: str, timeout: int) -> str | None:
    """Why the database does not answer `SELECT 1` within `timeout` seconds (None when it
    does; a SQLite path: when its folder is there to make it in)."""
    if "://" not in database:
        folder = Path(database).expanduser().parent
        return None if folder.is_dir() else f"cannot be created: {folder} is not a folder"
    args = {"connect_timeout": timeout} if database.startswith("postgresql") else {}
    engine = create_engine(database, connect_args=args)
    try:
        with engine.connect() as c:
            c.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any failure is the answer; its class says which
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return f"does not answer ({type(exc).__name__}: {first[:200]})".replace(
            make_url(database).password or "\0", "***"
        )
    finally:
        engine.dispose()
    return None


def create_schema(url: str, schema: str) -> None:
    """`schema` in the database at `url`, made if it is not there yet. Through one engine a
    database, kept by the process: a shard makes sure of hundreds of merchants' schemas a
    night, and a new engine each time was a new connection and SQLAlchemy's first-connect
    queries before every merchant's night (51-174 ms of its start-up, measured in one shard
    process beside other work; bench scale)."""
    with _schema_engine(database_of(url)).begin() as c:
        c.execute(CreateSchema(schema, if_not_exists=True))


@lru_cache(maxsize=8)
def _schema_engine(database: str) -> Engine:
    # a connection the server has closed since (restarted, idle timeout) is replaced, not used
    return create_engine(database, pool_pre_ping=True, pool_size=2, max_overflow=30)
