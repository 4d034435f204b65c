"""A full disk said with its path. Two failures name no file of their own: SQLite's "database
or disk is full" (its message has no path), and a write that fails part way (ENOSPC from
write() or close(), not open(): pandas, openpyxl and reportlab writing a report file). Each is
re-raised here as an OSError(ENOSPC) naming where it could not write, which cli/_common.py's
`disk_full` turns into the one line "Disk full: cannot write <path>" (exit 74)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL

FULL = (errno.ENOSPC, errno.EDQUOT)
SQLITE_FULL = "database or disk is full"


@contextmanager
def named_when_full(folder: Path | None, state: URL | None = None) -> Iterator[None]:
    """Inside: a full disk that names no file is re-raised naming `folder` (what was being
    written; None: left as it is), or the state file when SQLite says so (`state`: the state
    store's URL)."""
    try:
        yield
    except Exception as exc:
        where = _unnamed_full(exc, folder, state)
        if where is None:
            raise
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), where) from exc


def _unnamed_full(exc: BaseException, folder: Path | None, state: URL | None) -> str | None:
    """Where to say the disk was full, when `exc` (or what led to it) is a full disk that names
    no path; None when it names one already, or is no full disk."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in FULL:
            return None if seen.filename or folder is None else str(folder)
        if SQLITE_FULL in str(seen):
            return state_path(state) if state is not None else None
        seen = seen.__cause__ or seen.__context__
    return None


def state_path(url: URL) -> str:
    """The state file of a SQLite URL (its path, without a read-only URI's options); else the
    URL without its password."""
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database.removeprefix("file:").split("?", 1)[0]
    return url.render_as_string(hide_password=True)
