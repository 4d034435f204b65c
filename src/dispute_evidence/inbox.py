"""Inbox lifecycle: read files only once complete, archive only after their content is durable
in the state store, move unreadable files aside with a reason. Nothing is ever deleted."""

from __future__ import annotations

import hashlib
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

SETTLE_SECONDS = 5.0


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def is_settled(path: Path, settle: float = SETTLE_SECONDS, now: float | None = None) -> bool:
    """A file still being written (modified within `settle` seconds) is left for the next pass."""
    return (now or time.time()) - path.stat().st_mtime >= settle


def signature(inbox: Path, path: Path) -> str:
    """Identifies a file version without reading it: relative path, size and mtime."""
    st = path.stat()
    return f"{path.relative_to(inbox)}|{st.st_size}|{int(st.st_mtime)}"


def _unique(target: Path) -> Path:
    if not target.exists():
        return target
    for i in range(1, 10_000):
        candidate = target.with_name(f"{target.stem} ({i}){target.suffix}")
        if not candidate.exists():
            return candidate
    raise FileExistsError(target)


def archive(inbox: Path, path: Path, run_id: str) -> Path:
    """Move a fully ingested file to archive/<date>/<run-id>/, keeping its sub-folder."""
    rel = path.relative_to(inbox)
    target = _unique(inbox / "archive" / datetime.now(UTC).strftime("%Y-%m-%d") / run_id / rel)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(target))
    return target


def reject(inbox: Path, path: Path, reason: str) -> Path:
    """Move an unreadable file to rejected/ with a .reason.txt beside it saying what to do."""
    target = _unique(inbox / "rejected" / path.relative_to(inbox))
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(target))
    target.with_name(target.name + ".reason.txt").write_text(reason + "\n", encoding="utf-8")
    return target


def store_blob(blob_dir: Path, path: Path, sha256: str) -> Path:
    """A content-addressed copy the engine uploads from, so the inbox can be archived at once."""
    target = blob_dir / sha256[:2] / f"{sha256}{path.suffix.lower()}"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".partial")
        shutil.copyfile(path, tmp)
        tmp.replace(target)
    return target
