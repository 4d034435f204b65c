"""A full disk, said in one line with its path ("Disk full: cannot write <path>", exit 74).

The state store names its own file when its disk is full (state/errors.py: StateFull). A file
write that fails part way names none (ENOSPC from write() or close(), not open(): pandas,
openpyxl and reportlab writing a report file): `named_when_full` re-raises it as an
OSError(ENOSPC) naming the folder being written, which cli/_common.py's `exit_on` says in the
one line (errors.py: DISK_FULL)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FULL = (errno.ENOSPC, errno.EDQUOT)


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
