"""Ingest analysts' exports: read, recognise, validate. Pure data code, no network."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from dispute_evidence.filetypes import EVIDENCE_SUFFIXES
from dispute_evidence.inbox import OWN_FOLDERS, STORE, unreadable_reason
from dispute_evidence.ingest.choice import incomplete_export
from dispute_evidence.ingest.hints import closest_miss
from dispute_evidence.ingest.layouts import FIELDS, Mapping
from dispute_evidence.ingest.near_headers import near_miss_headers
from dispute_evidence.ingest.readers import (
    SPREADSHEET_SUFFIXES,
    Grid,
    UnreadableFile,
    is_ignored,
    read_grids,
)
from dispute_evidence.ingest.statements import (
    NAMING,
    STATEMENT_FILE,
    STATEMENT_SUFFIXES,
    UnreadableStatement,
    is_statement_file,
    statement_table,
)
from dispute_evidence.ingest.tables import (
    SOURCE_COLUMNS,
    Reject,
    Table,
    find_header,
    repeated_headers,
    to_canonical,
)
from dispute_evidence.ingest.validate import validate_table
from dispute_evidence.names import readable, shortened

log = logging.getLogger("dispute_evidence.ingest")
DEFAULT_MAX_FILE_BYTES = 500 * 1024 * 1024


@dataclass
class FileSummary:
    """What became of one input file (one line per recognised table)."""

    file: str
    sheet: str | None
    kind: str | None
    layout: str | None
    rows_read: int = 0
    rows_used: int = 0
    rows_rejected: int = 0
    rows_duplicate: int = 0
    rows_blank: int = 0
    problem: str | None = None


@dataclass
class IngestResult:
    records: dict[str, pd.DataFrame]
    rejects: list[Reject] = field(default_factory=list)
    files: list[FileSummary] = field(default_factory=list)
    evidence_files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    @property
    def unreadable(self) -> list[FileSummary]:
        return [f for f in self.files if f.problem]


def empty_records() -> dict[str, pd.DataFrame]:
    return {kind: pd.DataFrame(columns=[*FIELDS[kind], *SOURCE_COLUMNS]) for kind in FIELDS}


def scan_inbox(inbox: Path) -> tuple[list[Path], list[Path], list[tuple[str, str]]]:
    """(spreadsheets, evidence files, skipped) under `inbox`, sub-folders included; the
    store's documents (`store/`: scan_store) are not among them. A merchant's statement
    (`1036 statement.txt`) is read like a sheet: it is listed with them.

    Symlinks are never followed; lock/temp/hidden files and our own folders are skipped.
    """
    sheets: list[Path] = []
    evidence: list[Path] = []
    skipped: list[tuple[str, str]] = []
    for path in _walk(inbox, skipped, OWN_FOLDERS | {STORE}):
        suffix = _entry(inbox, path, skipped)
        if suffix is None:
            continue
        if suffix in SPREADSHEET_SUFFIXES or is_statement_file(path):
            sheets.append(path)
        elif suffix in EVIDENCE_SUFFIXES:
            evidence.append(path)
        elif suffix in STATEMENT_SUFFIXES:
            shown = readable(str(path.relative_to(inbox)))
            skipped.append((shown, f"a text file not read: for a statement, {NAMING}"))
        else:
            skipped.append(
                (
                    readable(str(path.relative_to(inbox))),
                    f"not a spreadsheet or evidence file ({suffix or 'no extension'}); ignored",
                )
            )
    return sheets, evidence, skipped


def scan_store(inbox: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """(the store's documents, skipped) under `inbox`/store/: PDF, PNG and JPG files, read and
    attached by kind to every dispute that needs them (never by name, never moved)."""
    files: list[Path] = []
    skipped: list[tuple[str, str]] = []
    folder = inbox / STORE
    if folder.is_symlink():
        skipped.append((f"{STORE}/", "symbolic link: not followed (make it a plain folder)"))
        return files, skipped
    if not folder.is_dir():
        return files, skipped
    for path in _walk(folder, skipped, frozenset()):
        suffix = _entry(inbox, path, skipped)
        if suffix in EVIDENCE_SUFFIXES:
            files.append(path)
        elif suffix is not None:
            skipped.append(
                (
                    readable(str(path.relative_to(inbox))),
                    f"{STORE}/ holds the store's documents (PDF, PNG, JPG: policies, terms, a "
                    f"checkout screenshot); {suffix or 'no extension'} is not read there: move "
                    "a sheet to the inbox itself",
                )
            )
    return files, skipped


def _entry(inbox: Path, path: Path, skipped: list[tuple[str, str]]) -> str | None:
    """A plain file's suffix (lower case); None for what is not looked at (a hidden entry, a
    folder, a lock file) or cannot be (a link, a path too long: added to `skipped`)."""
    rel = path.relative_to(inbox)
    if any(p.startswith(".") for p in rel.parts):
        return None
    try:
        mode = path.lstat().st_mode
    except OSError as exc:  # e.g. a path longer than the system allows
        skipped.append((shortened(readable(str(rel))), unreadable_reason(exc)))
        return None
    if stat.S_ISLNK(mode):
        skipped.append(
            (readable(str(rel)), "symbolic link: not followed (copy the real file into the inbox)")
        )
        return None
    if not stat.S_ISREG(mode) or is_ignored(path):
        return None
    return path.suffix.lower()


def _walk(inbox: Path, skipped: list[tuple[str, str]], own: frozenset[str]) -> list[Path]:
    """Every entry under `inbox`, sorted, links listed but never followed, the top-level
    folders `own` not entered; a folder that cannot be read (no permission, a path too long)
    is added to `skipped`, not raised."""

    def cannot_read(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else inbox
        shown = readable(str(where.relative_to(inbox))) if where != inbox else "."
        skipped.append((shortened(shown + "/"), unreadable_reason(exc)))

    found = []
    for top, dirs, files in os.walk(inbox, onerror=cannot_read):
        here = Path(top)
        if here == inbox:  # our own folders and hidden ones are never entered
            dirs[:] = [d for d in dirs if d not in own]
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # os.walk never enters a link
        found += [here / n for n in (*dirs, *files)]
    return sorted(found)


def ingest_file(
    path: Path,
    label: str,
    custom: tuple[Mapping, ...] = (),
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    dayfirst: bool | None = None,
    zone: str = "UTC",
) -> tuple[list[tuple[str, pd.DataFrame]], list[Reject], list[FileSummary]]:
    """Tables found in one file: [(kind, records)], rejects and summaries. `dayfirst`: how
    numeric dates are read where a column leaves it open (the config's locale); `zone`: where
    a deadline without a time of day ends."""
    if is_statement_file(path):
        return _ingest_statement(path, label, max_bytes)
    tables: list[tuple[str, pd.DataFrame]] = []
    rejects: list[Reject] = []
    summaries: list[FileSummary] = []
    try:
        grids = list(read_grids(path, max_bytes))
    except (UnreadableFile, OSError) as exc:
        reason = str(exc) if isinstance(exc, UnreadableFile) else f"cannot open ({exc.strerror})"
        rejects.append(Reject(label, None, None, None, None, reason))
        return tables, rejects, [FileSummary(label, None, None, None, problem=reason)]
    for grid in grids:
        hit = find_header(grid, custom)
        if hit is None:
            if len(grids) > 1 and len(grid.preview) < 2:
                continue  # an empty or notes sheet in a workbook that has tables elsewhere
            reason = closest_miss(grid, custom)
            rejects.append(Reject(label, grid.sheet, None, None, None, reason))
            summaries.append(FileSummary(label, grid.sheet, None, None, 0, problem=reason))
            continue
        header_at, (mapping, found, note) = hit
        if mapping.kind == "approvals" and grid.hidden:
            why = (
                "a hidden sheet approves nothing: approvals are read from the visible sheet "
                "only (write yes under Approve in the sheet Excel shows)"
            )
            rejects.append(Reject(label, grid.sheet, None, "Approve", None, why))
            summaries.append(
                FileSummary(label, grid.sheet, mapping.kind, mapping.name, problem=why)
            )
            continue
        rejects += [Reject(label, grid.sheet, None, None, None, note)] if note else []
        usable, repeated = repeated_headers(grid, header_at, mapping, found, label)
        rejects.extend(repeated)
        if usable is None:
            summaries.append(
                FileSummary(
                    label, grid.sheet, mapping.kind, mapping.name, problem=repeated[0].reason
                )
            )
            continue
        found = usable
        rejects += _column_lines(grid, header_at, mapping, found, label)
        try:
            frame, shown = to_canonical(grid, header_at, mapping, found, label)
        except UnreadableFile as exc:
            rejects.append(Reject(label, grid.sheet, None, None, None, str(exc)))
            summaries.append(
                FileSummary(label, grid.sheet, mapping.kind, mapping.name, problem=str(exc))
            )
            continue
        table = validate_table(
            frame, mapping, shown, label, grid.sheet, dayfirst, zone, nul_free=grid.nul_free
        )
        rejects.extend(
            Reject(label, grid.sheet, row, None, None, why) for row, why in grid.problems
        )
        if (
            mapping.kind == "approvals"
        ):  # who approves: the file's owner (engine/review/approval.py)
            table.records, formulas = _no_formula_approvals(grid, found, table.records, label)
            rejects.extend(formulas)
            table.records["_owner"] = file_owner(path)
        tables.append((mapping.kind, table.records))
        rejects.extend(table.rejects)
        summaries.append(_table_summary(label, grid.sheet, mapping, table, len(grid.problems)))
    return tables, rejects, summaries


def _column_lines(
    grid: Grid, header_at: int, mapping: Mapping, found: dict[str, tuple[int, ...]], label: str
) -> list[Reject]:
    """The lines about a recognised table's columns: the export lacks columns it has when
    whole (what is read until then), a header is one edit from a column it reads."""
    missing = incomplete_export(mapping, found)
    lines = [Reject(label, grid.sheet, None, None, None, missing)] if missing else []
    cells = grid.preview.iloc[header_at].tolist()
    return lines + near_miss_headers(cells, mapping, found, label, grid.sheet)


def _ingest_statement(
    path: Path, label: str, max_bytes: int
) -> tuple[list[tuple[str, pd.DataFrame]], list[Reject], list[FileSummary]]:
    """A merchant's statement file (ingest/statements.py) as one `statements` record."""
    try:
        table = statement_table(path, label, max_bytes)
    except UnreadableStatement as exc:
        reject = Reject(label, None, None, None, None, f"merchant statement: {exc}")
        return [], [reject], [FileSummary(label, None, "statements", None, problem=reject.reason)]
    summary = _table_summary(label, None, STATEMENT_FILE, table, 0)
    if table.records.empty:  # its text refused (a NUL byte, too long): the rejects say why
        return [], table.rejects, [summary]
    return [("statements", table.records)], table.rejects, [summary]


def _table_summary(
    label: str, sheet: str | None, mapping: Mapping, table: Table, grid_problems: int
) -> FileSummary:
    """What one table of a file gave: rows read, kept, rejected, duplicate, blank (a row the
    reader could not take counts as rejected, not blank)."""
    return FileSummary(
        label,
        sheet,
        mapping.kind,
        mapping.name,
        table.rows_read,
        len(table.records),
        table.rows_rejected + grid_problems,
        table.rows_duplicate,
        table.rows_blank - grid_problems,
    )


FORMULA_APPROVES_NOTHING = (
    "a formula approves nothing (formulas are never evaluated): type yes in the cell"
)


def _no_formula_approvals(
    grid: Grid, found: dict[str, tuple[int, ...]], records: pd.DataFrame, label: str
) -> tuple[pd.DataFrame, list[Reject]]:
    """Approve rows whose cell holds a formula, taken out with one line each: its stored
    result may well say yes, but only a person typing yes approves."""
    if grid.formulas is None or "approve" not in found:
        return records, []
    formulas = grid.formulas(found["approve"][0])
    if not formulas:
        return records, []
    hit = records["_row"].astype(int).isin(list(formulas))
    rejects = [
        Reject(label, grid.sheet, int(row), "Approve", formulas[int(row)], FORMULA_APPROVES_NOTHING)
        for row in records.loc[hit, "_row"]
    ]
    return records.loc[~hit], rejects


def file_owner(path: Path) -> str:
    """The user name owning a file (its uid where no name is known)."""
    import pwd

    try:
        uid = path.stat().st_uid
    except OSError:
        return "unknown"
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def ingest_paths(
    paths: Iterable[Path],
    root: Path | None = None,
    custom: tuple[Mapping, ...] = (),
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    dayfirst: bool | None = None,
) -> IngestResult:
    """Ingest spreadsheets; records of each kind are concatenated in file order."""
    parts: dict[str, list[pd.DataFrame]] = {k: [] for k in FIELDS}
    result = IngestResult(records={})
    for path in paths:
        label = readable(str(path.relative_to(root)) if root else path.name)
        tables, rejects, summaries = ingest_file(path, label, custom, max_bytes, dayfirst)
        for kind, frame in tables:
            parts[kind].append(frame)
        result.rejects.extend(rejects)
        result.files.extend(summaries)
    base = empty_records()
    result.records = {
        k: pd.concat(v, ignore_index=True) if v else base[k] for k, v in parts.items()
    }
    return result


def ingest_inbox(
    inbox: Path, custom: tuple[Mapping, ...] = (), max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> IngestResult:
    """Everything in the inbox: spreadsheets ingested, evidence files listed."""
    sheets, evidence, skipped = scan_inbox(inbox)
    result = ingest_paths(sheets, inbox, custom, max_bytes)
    result.evidence_files = evidence
    result.skipped = skipped
    return result
