"""The inbox: its layout and lifecycle, in one place.

Layout (everything the pipeline writes lives in the inbox's own tree, beside it, or in its
state; nothing is ever written through a link):

    <inbox>/                       analysts' drops (untrusted)
    <inbox>/store/                 the store's documents (policies, terms): kept in place
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
from pathlib import Path

from dispute_evidence import clock
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.names import label

SETTLE_SECONDS = 5.0
# What the pipeline keeps (state, stored copies, reports) holds customers' names, emails and
# addresses: readable by its owner only, whatever the umask.
PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600
ARCHIVE, REJECTED, PRIVATE = "archive", "rejected", ".dispute-evidence"
# Top-level names in the inbox that are ours, never analysts' drops.
OWN_FOLDERS = frozenset({ARCHIVE, REJECTED, PRIVATE, "reports", "state"})
# The store's own documents (policies, terms, a checkout screenshot): analysts' drops, read
# and attached by kind to every dispute that needs them, never matched by name nor moved.
STORE = "store"


class UnsafeFolder(DisputeEvidenceError):
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
        if PRIVATE not in problems:  # its documents cache: skipped, so said (issue 45, item 11)
            try:
                _check_folder(self.root / PRIVATE / "documents", f"{PRIVATE}/documents")
            except UnsafeFolder as exc:
                problems[f"{PRIVATE}/documents"] = (
                    f"{exc} Until then what was read from each document is not kept: every run "
                    "reads the documents again (slower, never wrong)."
                )
        return problems


def default_state(inbox: Path) -> Path:
    return InboxLayout.at(inbox).default_state


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def unreadable_reason(exc: OSError) -> str:
    """Why a file or folder in the inbox could not be read, and what to do, in a line."""
    if exc.errno == errno.ENAMETOOLONG:
        return (
            "not read: its path is longer than the system allows; move it to a folder "
            "nearer the top of the inbox"
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            "not read: permission denied; give the pipeline's user read access "
            "(it is read by the next run)"
        )
    return f"not read ({exc.strerror or exc}); it is tried again by the next run"


def is_settled(path: Path, settle: float = SETTLE_SECONDS, now: float | None = None) -> bool:
    """A file still being written (modified within `settle` seconds) is left for the next pass."""
    return (now or time.time()) - path.stat().st_mtime >= settle


def signature(inbox: Path, path: Path) -> str:
    """Identifies a file version without reading it: relative path, size and mtime."""
    st = path.stat()
    return f"{label(path, inbox)}|{st.st_size}|{int(st.st_mtime)}"


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


def safe_folder(root: Path, *parts: str, mode: int = 0o777) -> Path:
    """root/parts..., created one level at a time (with `mode`, less the umask); any level
    that is a link or a file is refused, so nothing is ever written outside `root`'s tree."""
    path = root
    for i, part in enumerate(parts):
        path = path / part
        if not _check_folder(path, "/".join(parts[: i + 1])):
            path.mkdir(mode=mode)
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
    return _move_into(inbox, path, (ARCHIVE, clock.now().strftime("%Y-%m-%d"), run_id))


def reject(inbox: Path, path: Path, reason: str) -> Path:
    """Move an unreadable file to rejected/ with a .reason.txt beside it saying what to do."""
    target = _move_into(inbox, path, (REJECTED,))
    beside = target.with_name(target.name + REASON)
    if len(os.fsencode(beside.name)) > NAME_MAX:  # too long a name for the file system
        beside = _unique(target.with_name(_short_name(target.name) + REASON))
        reason = (
            f"Reason for {label(target, target.parent)} (its name is too long to add "
            f"{REASON} to it):\n{reason}"
        )
    beside.write_text(reason + "\n", encoding="utf-8")
    return target


REASON, NAME_MAX = ".reason.txt", 255


def _short_name(name: str) -> str:
    """A name that fits with REASON added: its start, then a hash of the whole name."""
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:12]
    start = os.fsencode(name)[:200].decode("utf-8", "ignore")
    return f"{start}~{digest}"


def store_blob(blob_dir: Path, path: Path | bytes, sha256: str, suffix: str = "") -> Path:
    """A content-addressed copy the engine uploads from (of an inbox file, so the inbox can be
    archived at once; or of bytes the pipeline made, such as a summary PDF)."""
    ext = suffix or (path.suffix.lower() if isinstance(path, Path) else "")
    target = safe_folder(blob_dir, sha256[:2], mode=PRIVATE_DIR) / f"{sha256}{ext}"
    if target.is_file() and not target.is_symlink() and file_sha256(target) == sha256:
        return target  # a copy already there is reused only if it is what its name says
    tmp = target.with_suffix(".partial")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_FILE)
    try:
        with os.fdopen(fd, "wb") as out:
            if isinstance(path, Path):
                with path.open("rb") as src:
                    shutil.copyfileobj(src, out)
            else:
                out.write(path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)  # a full disk: give the space back
        if isinstance(exc, OSError) and exc.filename is None:  # say which file (ENOSPC)
            raise OSError(exc.errno, exc.strerror, str(tmp)) from exc
        raise
    tmp.replace(target)  # replaces a planted or damaged copy too
    return target
