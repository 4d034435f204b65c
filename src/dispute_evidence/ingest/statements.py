"""A merchant's statement dropped into the inbox as a text file: `<order number or dispute id>
statement.txt` (or `.md`, or `… merchant statement.txt`). Its text is what the merchant wants
the issuer's reviewer to read for that dispute, in their own words; it becomes one record of
kind `statements`, like a sheet's row, so a file dropped again (or another file for the same
dispute) replaces it as a re-export replaces an export.

The inbox is untrusted: the file is opened without following a link, its size checked on the
open file before a byte is read, and it is read as UTF-8 or refused with one line saying how
to save it. Its cell goes through the same checks as any sheet's (a card number covered, a NUL
byte refused). Pure data code: no network.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pandas as pd

from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import EXIT_NEEDS_YOU
from dispute_evidence.ingest.layouts import Mapping
from dispute_evidence.ingest.tables import Table
from dispute_evidence.ingest.validate import MAX_PROSE_CHARS, validate_table

STATEMENT_SUFFIXES = frozenset({".txt", ".md"})
# UTF-8 takes at most 4 bytes a character: a statement at the cell limit fits, nothing larger
MAX_STATEMENT_BYTES = 4 * MAX_PROSE_CHARS
_NAME = re.compile(r"^\s*#?\s*(?P<key>.+?)[\s_\-]+(?:merchant[\s_\-]+)?statement\s*$", re.I)
NAMING = "name it '<order number or dispute id> statement.txt' (or .md)"
STATEMENT_FILE = Mapping(
    "merchant statement (text file)",
    "statements",
    {
        "provider_dispute_id": ("provider_dispute_id",),
        "order_number": ("order_number",),
        "statement": ("statement",),
    },
)


class UnreadableStatement(DisputeEvidenceError, ValueError):
    """A statement file that cannot be taken; the message says why and what to do."""

    exit_code = EXIT_NEEDS_YOU  # that file is left for a person; the run goes on


def statement_key(name: str) -> str:
    """The order number or dispute id a statement file's name gives ('' when it is not named
    as a statement): `1036 statement.txt`, `#1036 merchant statement.md`, `dp_1 statement.txt`."""
    path = Path(name)
    if path.suffix.lower() not in STATEMENT_SUFFIXES:
        return ""
    match = _NAME.match(path.stem)
    return match["key"].strip() if match else ""


def is_statement_file(path: Path) -> bool:
    return bool(statement_key(path.name))


def read_text(path: Path, max_bytes: int = MAX_STATEMENT_BYTES) -> str:
    """The file's text, read as UTF-8 (a byte-order mark allowed), never through a link."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnreadableStatement(f"cannot open it ({exc.strerror}); leave a plain file") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableStatement("not a plain file; copy the real file into the inbox")
        if info.st_size > max_bytes:
            raise UnreadableStatement(
                f"{info.st_size / 1024:,.0f} KB is over the {max_bytes // 1024:,} KB a "
                "statement may hold; shorten it (a reviewer reads it in a few minutes)"
            )
        body = fh.read(max_bytes + 1)
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableStatement(
            f"not UTF-8 text (byte {exc.start + 1} is not): save it as UTF-8 (Notepad: Save "
            "as, Encoding UTF-8) and drop it again"
        ) from None
    return _plain(text)


def _plain(text: str) -> str:
    """The statement as a reviewer reads it: line endings made one, Markdown's heading marks
    and emphasis stars taken off (the words stay), blank runs made one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"(?m)^\s{0,3}#{1,6}\s+", "", text)
    text = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    return re.sub(r"\n\s*\n\s*", "\n\n", text).strip()


def statement_table(path: Path, label: str, max_bytes: int) -> Table:
    """The one record of a statement file (kind `statements`), its text checked as any sheet's
    cell is; UnreadableStatement when it cannot be taken."""
    key = statement_key(path.name)
    if not key:
        raise UnreadableStatement(f"not named as a statement: {NAMING}")
    text = read_text(path, min(max_bytes, MAX_STATEMENT_BYTES))
    if not text:
        raise UnreadableStatement("holds no text; write the statement in it and drop it again")
    frame = pd.DataFrame(
        {"provider_dispute_id": [key], "order_number": [key], "statement": [text]}, dtype="str"
    )
    frame["_file"], frame["_sheet"], frame["_row"] = label, None, 1
    shown = {"statement": "statement", "order_number": "file name"}
    return validate_table(frame, STATEMENT_FILE, shown, label, None)
