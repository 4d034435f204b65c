"""Read CSV and Excel files into raw grids of text, safely.

Untrusted input: sizes are checked before reading, workbooks are checked for zip bombs,
formulas are read as their stored values (never evaluated), links are never followed.
"""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path

import pandas as pd

SPREADSHEET_SUFFIXES = frozenset({".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".xls"})
HEADER_SCAN_ROWS = 10
MAX_UNZIPPED_FACTOR = 100  # a workbook that inflates more than this is refused


class UnreadableFile(Exception):
    """The file cannot be read at all; the message says why and what to do."""


@dataclass
class Grid:
    """One sheet (or the CSV) as text cells; `first_row` is the Excel row number of row 0."""

    sheet: str | None
    frame: pd.DataFrame  # columns 0..n-1, all values str ("" for empty)
    first_row: int = 1


def is_ignored(path: Path) -> bool:
    """Lock, temp and hidden files that office programs and sync tools leave behind."""
    name = path.name
    return name.startswith(("~$", ".~lock", ".")) or name.endswith(
        (".tmp", ".part", ".crdownload", "~")
    )


def check_size(path: Path, max_bytes: int) -> int:
    size = path.stat().st_size
    if size > max_bytes:
        raise UnreadableFile(
            f"{size / 1e6:,.1f} MB is over the {max_bytes / 1e6:,.0f} MB limit for one file; "
            "split the export or raise ingest.max_file_mb in the config."
        )
    if size == 0:
        raise UnreadableFile("the file is empty; export it again.")
    return size


def read_grids(path: Path, max_bytes: int) -> Iterator[Grid]:
    """Every sheet of a workbook, or the one table of a CSV, as text grids."""
    check_size(path, max_bytes)
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm", ".xls"):
        yield from _read_excel(path, max_bytes)
    else:
        yield _read_csv(path)


# -- CSV -------------------------------------------------------------------------
def _decode_sample(raw: bytes) -> tuple[str, str]:
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            return raw.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes anything")  # pragma: no cover


def _sniff_delimiter(sample: str) -> str:
    """The delimiter that splits the first lines into the most, and most consistent, fields."""
    lines = [ln for ln in sample.splitlines()[:HEADER_SCAN_ROWS] if ln.strip()]
    best, best_score = ",", -1
    for delim in (",", ";", "\t", "|"):
        counts = [len(row) for row in csv.reader(lines, delimiter=delim)]
        if not counts:
            continue
        score = max(counts) * 10 + sum(c == counts[0] for c in counts)
        if max(counts) > 1 and score > best_score:
            best, best_score = delim, score
    return best


def _read_csv(path: Path) -> Grid:
    with path.open("rb") as fh:
        head = fh.read(65536)
    if b"\x00" in head:
        raise UnreadableFile("this is a binary file, not a CSV; export the sheet as CSV or XLSX.")
    # The whole file decides the encoding: a cp1252 byte may first appear on row 900,000.
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            sample = head.decode(encoding, errors="ignore")
            frame = pd.read_csv(
                path, sep=_sniff_delimiter(sample), header=None, dtype=str, keep_default_na=False,
                encoding=encoding, quotechar='"', skip_blank_lines=False, engine="c",
                on_bad_lines="error",
            )  # fmt: skip
            return Grid(None, frame)
        except UnicodeDecodeError:
            continue
        except (pd.errors.ParserError, csv.Error) as exc:
            raise UnreadableFile(
                f"not a well-formed CSV ({str(exc).strip()}); re-export it."
            ) from None
        except pd.errors.EmptyDataError:
            raise UnreadableFile("the file has no rows.") from None
    raise UnreadableFile("cannot decode the text; save it as UTF-8.")


# -- Excel -----------------------------------------------------------------------
def _check_zip(path: Path, size: int) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            inflated = sum(i.file_size for i in zf.infolist())
    except zipfile.BadZipFile:
        raise UnreadableFile(
            "not a valid .xlsx workbook (damaged or renamed); open and re-save it."
        ) from None
    if inflated > size * MAX_UNZIPPED_FACTOR:
        raise UnreadableFile(
            "the workbook inflates to an unreasonable size (possible zip bomb); refused."
        )


def _read_excel(path: Path, max_bytes: int) -> Iterator[Grid]:
    if path.suffix.lower() != ".xls":
        _check_zip(path, path.stat().st_size)
    try:
        sheets = pd.read_excel(path, sheet_name=None, header=None, dtype=object, engine="calamine")
    except Exception as calamine_error:  # noqa: BLE001 - any reader failure: try the fallback
        if path.suffix.lower() == ".xls":
            raise UnreadableFile(
                f"cannot read this .xls ({calamine_error}); save it as .xlsx."
            ) from None
        try:  # openpyxl reads stored values only (data_only): formulas are never evaluated
            sheets = pd.read_excel(path, sheet_name=None, header=None, dtype=object, engine="openpyxl",
                                   engine_kwargs={"data_only": True})  # fmt: skip
        except Exception as exc:  # noqa: BLE001
            raise UnreadableFile(
                f"cannot read the workbook ({type(exc).__name__}); open and re-save it."
            ) from None
    for name, frame in sheets.items():
        if frame.empty:
            continue
        yield Grid(str(name), frame.map(cell_text))


def cell_text(value: object) -> str:
    """A cell as the text a person sees: 1001.0 -> '1001', datetimes ISO, empty -> ''."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value).strip()
