"""The inbox: its layout and lifecycle, in one place.

Layout (everything the pipeline writes lives in the inbox's own tree, beside it, or in its
state; nothing is ever written through a link):

    <inbox>/                       analysts' drops (untrusted)
    <inbox>/archive/<date>/<run>/  files read, moved here after their content is durable
    <inbox>/rejected/              files that could not be read, each with a .reason.txt
    <inbox>/.dispute-evidence/blobs/  content-addressed copies the engine uploads from
    <inbox>.state.sqlite3          default state store (beside the inbox, not in it)
    <inbox>.reports/<run>/         reports

Files are read only once complete (settled), archived only after their content is durable in
the state store, and moved aside with a reason when unreadable. Nothing is ever deleted. A
pipeline-owned folder that is a link or a plain file is refused, never followed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SETTLE_SECONDS = 5.0
ARCHIVE, REJECTED, PRIVATE = "archive", "rejected", ".dispute-evidence"
# Top-level names in the inbox that are ours, never analysts' drops.
OWN_FOLDERS = frozenset({ARCHIVE, REJECTED, PRIVATE, "reports", "state"})


class UnsafeFolder(Exception):
    """A folder the pipeline writes to is a link or not a folder: refused, never followed."""


@dataclass(frozen=True)
class InboxLayout:
    """Where everything of one inbox lives."""

    root: Path

    @classmethod
    def at(cls, inbox: Path) -> InboxLayout:
        return cls(inbox.expanduser().resolve())

    @property
    def default_state(self) -> Path:
        """A SQLite file next to the inbox (not in it: the inbox is untrusted)."""
        return self.root.parent / f"{self.root.name}.state.sqlite3"

    @property
    def default_reports(self) -> Path:
        return self.root.parent / f"{self.root.name}.reports"

    @property
    def blob_dir(self) -> Path:
        return self.root / PRIVATE / "blobs"

    def folder_problems(self) -> dict[str, str]:
        """{folder: why it cannot be used} for each pipeline-owned folder that is unusable."""
        problems = {}
        for name in (ARCHIVE, REJECTED, PRIVATE):
            try:
                _check_folder(self.root / name, name)
            except UnsafeFolder as exc:
                problems[name] = str(exc)
        return problems


def default_state(inbox: Path) -> Path:
    return InboxLayout.at(inbox).default_state


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


def _check_folder(path: Path, shown: str) -> bool:
    """True if `path` is a real folder, False if absent; UnsafeFolder if a link or a file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(mode):
        raise UnsafeFolder(
            f"'{shown}' in the inbox is a link; the pipeline never writes "
            "through links. Replace it with a plain folder."
        )
    if not stat.S_ISDIR(mode):
        raise UnsafeFolder(
            f"'{shown}' in the inbox is a file, not a folder. Rename or move it "
            "so the pipeline can create the folder."
        )
    return True


def safe_folder(root: Path, *parts: str) -> Path:
    """root/parts..., created one level at a time; any level that is a link or a file is
    refused, so nothing is ever written outside `root`'s own tree."""
    path = root
    for i, part in enumerate(parts):
        path = path / part
        if not _check_folder(path, "/".join(parts[: i + 1])):
            path.mkdir()
    return path


def _unique(target: Path) -> Path:
    if not os.path.lexists(target):
        return target
    for i in range(1, 10_000):
        candidate = target.with_name(f"{target.stem} ({i}){target.suffix}")
        if not os.path.lexists(candidate):
            return candidate
    raise FileExistsError(target)


def _move_into(root: Path, path: Path, folder: tuple[str, ...]) -> Path:
    rel = path.relative_to(root)
    target = _unique(safe_folder(root, *folder, *rel.parent.parts) / rel.name)
    try:
        os.rename(path, target)  # inside the inbox: one file system, atomic
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        shutil.move(path, target)  # a sub-folder on another mount
    return target


def archive(inbox: Path, path: Path, run_id: str) -> Path:
    """Move a fully ingested file to archive/<date>/<run-id>/, keeping its sub-folder."""
    return _move_into(inbox, path, (ARCHIVE, datetime.now(UTC).strftime("%Y-%m-%d"), run_id))


def reject(inbox: Path, path: Path, reason: str) -> Path:
    """Move an unreadable file to rejected/ with a .reason.txt beside it saying what to do."""
    target = _move_into(inbox, path, (REJECTED,))
    target.with_name(target.name + ".reason.txt").write_text(reason + "\n", encoding="utf-8")
    return target


def store_blob(blob_dir: Path, path: Path | bytes, sha256: str, suffix: str = "") -> Path:
    """A content-addressed copy the engine uploads from (of an inbox file, so the inbox can be
    archived at once; or of bytes the pipeline made, such as a summary PDF)."""
    ext = suffix or (path.suffix.lower() if isinstance(path, Path) else "")
    target = safe_folder(blob_dir, sha256[:2]) / f"{sha256}{ext}"
    if not target.exists():
        tmp = target.with_suffix(".partial")
        if isinstance(path, Path):
            shutil.copyfile(path, tmp)
        else:
            tmp.write_bytes(path)
        tmp.replace(target)
    return target
