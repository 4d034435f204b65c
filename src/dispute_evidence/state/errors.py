"""The state store's errors, and the one place a database driver's error becomes one of them
(httpx's `map_httpcore_exceptions`, for the store): nothing above state/ catches `sqlalchemy.*`
or reads a driver's message.

    StateError                  the state store cannot be used as it is (message: what to do);
                                under the root error, DisputeEvidenceError (errors.py), exit 1
    ├── StateDamaged            not a readable database (truncated, overwritten, corrupt)
    ├── StateOfAnotherInbox     it records another inbox than the one given
    ├── StateNewer              a newer version of the program wrote it (its schema is ahead)
    ├── StateUnreachable        its database server does not answer when the store opens
    ├── StateUnavailable        its database stopped answering part way (connection lost), exit 1
    └── StateFull               the disk it is on is full: nothing was lost (exit 74)

Every public method of the store is wrapped by `at_the_edge` (state/store.py), so a driver
error leaves the store translated; one the table above has no name for (an IntegrityError: a
bug of ours) goes on as it is.
"""

from __future__ import annotations

import errno
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, OperationalError

from dispute_evidence.errors import DISK_FULL, DisputeEvidenceError
from dispute_evidence.exits import EXIT_DISK_FULL

SQLITE_FULL = "database or disk is full"  # SQLITE_FULL's message: the only word SQLite gives
PG_DISK_FULL = "53100"  # PostgreSQL's SQLSTATE disk_full
FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


class StateError(DisputeEvidenceError):
    """The state store cannot be used as it is; the message says which and what to do."""

    heading = "State store problem"  # exit 1 (the root's)


class StateDamaged(StateError):
    """The state file is not a readable database (truncated, overwritten, corrupt)."""


class StateNewer(StateError):
    """The state was written by a newer version of the program (its schema version is ahead of
    ours): nothing is changed; the newer version reads it."""

    def __init__(self, found: int, ours: int, where: str = "") -> None:
        self.found, self.ours = found, ours
        super().__init__(
            f"the state store {where or ''}was written by a newer version of dispute-evidence "
            f"(its schema is v{found}; this version reads up to v{ours}), and nothing was "
            "changed. Run the version that wrote it (upgrade this installation to it), or give "
            "--state another state store."
        )


class StateUnreachable(StateError):
    """The state's database server does not answer: down, unreachable, or refusing us."""


class StateOfAnotherInbox(StateError):
    """The state store records another inbox than the one this run was given."""


class StateUnavailable(StateError):
    """The state's database stopped answering part way (stopped, killed, the network to it
    lost). Every unit of work commits alone: nothing is sent twice when the next run meets it."""

    same_everywhere = True  # exit 1 in every command, as a run says it


class StateFull(StateError):
    """The disk where the state is has no space left; `where` names the state (its file, or
    its URL without a password). Every write is transactional: nothing was lost."""

    exit_code = EXIT_DISK_FULL
    same_everywhere = True  # exit 74 in every command (`approve`, `status` too)

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where

    def __str__(self) -> str:
        return f"the disk is full where the state store is: cannot write {self.where}"

    def lines(self) -> list[str]:
        """The one line every full disk is said in, naming the state."""
        return [DISK_FULL.format(where=f"cannot write {self.where}")]


def state_path(url: URL) -> str:
    """The state file of a SQLite URL (without a read-only URI's options); else the URL
    without its password."""
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database.removeprefix("file:").split("?", 1)[0]
    return url.render_as_string(hide_password=True)


def is_full(exc: DBAPIError) -> bool:
    """The database could not write for want of space: SQLite says it in words only (no code
    the driver passes on), PostgreSQL by its SQLSTATE, a driver's own write by errno."""
    orig = exc.orig
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    full_errno = isinstance(orig, OSError) and orig.errno in FULL_ERRNOS
    return SQLITE_FULL in str(orig) or sqlstate == PG_DISK_FULL or full_errno


def first_line(exc: DBAPIError) -> str:
    """The driver's own first line (never the SQL or its parameters)."""
    lines = str(exc.orig).strip().splitlines()
    return lines[0] if lines else type(exc.orig).__name__


def translated(exc: DBAPIError, url: URL) -> StateError | None:
    """What a driver error means for the store; None when the table has no name for it."""
    if is_full(exc):
        return StateFull(state_path(url))
    if isinstance(exc, OperationalError) or exc.connection_invalidated:
        return StateUnavailable(
            f"the state database stopped answering ({first_line(exc)}). What was sent is "
            "recorded; run again once it is back: nothing is sent twice."
        )
    return None


F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)


def at_the_edge(method: F) -> F:
    """`method` of a store (it has `.engine`), its driver errors raised as state errors."""
    if inspect.isgeneratorfunction(method):  # would run its queries after the wrapper returned
        raise TypeError(f"{method.__qualname__}: a store method returns its rows, not a generator")

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except DBAPIError as exc:
            mapped = translated(exc, self.engine.url)
            if mapped is None:
                raise
            raise mapped from exc

    return call  # type: ignore[return-value]  # the same signature, errors translated


def translate_errors(cls: C) -> C:
    """`cls` with each public method (its own and its parts') wrapped by `at_the_edge`."""
    for name in dir(cls):
        method = inspect.getattr_static(cls, name)
        if not name.startswith("_") and inspect.isfunction(method):
            setattr(cls, name, at_the_edge(method))
    return cls
