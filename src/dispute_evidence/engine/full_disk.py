"""A full disk, said in one line with its path ("Disk full: cannot write <path>", exit 74).

The state store names its own file when its disk is full (state/errors.py: StateFull). A file
write that fails part way names none (ENOSPC from write() or close(), not open(): pandas,
openpyxl and reportlab writing a report file): `named_when_full` re-raises it naming the folder
being written, and `disk_full` finds where, in whatever the run ended with."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dispute_evidence.state.errors import StateFull

FULL = (errno.ENOSPC, errno.EDQUOT)
DISK_FULL = (
    "Disk full: {where}. Nothing was lost: what was sent is recorded, and files not yet "
    "read stay in the inbox. Free some space on that disk and run again: the same state goes on."
)


@contextmanager
def named_when_full(folder: Path) -> Iterator[None]:
    """Inside: a full disk that names no file is re-raised naming `folder` (what was being
    written)."""
    try:
        yield
    except Exception as exc:
        if not _unnamed_full(exc):
            raise
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder)) from exc


def _unnamed_full(exc: BaseException) -> bool:
    """`exc` (or what led to it) is a write that failed on a full disk naming no path."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in FULL:
            return not seen.filename
        seen = seen.__cause__ or seen.__context__
    return False


def disk_full(exc: BaseException) -> str | None:
    """Where the disk was full first, if that is what `exc` or what led to it says; else None:
    a write failed with ENOSPC (errno 28), or the state store said StateFull."""
    seen: BaseException | None = exc
    where = None
    while seen is not None:  # the first cause is last in the chain
        if isinstance(seen, StateFull):
            where = f"cannot write {seen.where}"
        elif isinstance(seen, OSError) and seen.errno == errno.ENOSPC:
            named = f"cannot write {seen.filename}" if seen.filename else None
            where = named or where or "cannot write a file"  # a re-raise naming the file says more
        seen = seen.__cause__ or seen.__context__
    return where
