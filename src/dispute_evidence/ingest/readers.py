"""Read CSV and Excel files into raw grids of text, safely.

Untrusted input: sizes are checked before reading, workbooks are checked for zip bombs,
formulas are read as their stored values (never evaluated), links are never followed.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import BinaryIO, cast

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import EXIT_NEEDS_YOU

SPREADSHEET_SUFFIXES = frozenset({".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".xls"})
HEADER_SCAN_ROWS = 10
MAX_UNZIPPED_FACTOR = 100  # a workbook that inflates more than this is refused


class UnreadableFile(DisputeEvidenceError):
    """The file cannot be read at all; the message says why and what to do."""

    exit_code = EXIT_NEEDS_YOU  # that file is left for a person; the run goes on


@dataclass
class Grid:
    """One sheet (or the CSV): a preview of its top rows to find the header in, and a loader
    for the data rows of just the columns a layout needs (columns keyed by position)."""

    sheet: str | None
    preview: pd.DataFrame  # header=None, all str ("" for empty)
    load: Callable[[int, list[int]], pd.DataFrame]  # (header row index, positions) -> data rows
    first_row: int = 1
    problems: list[tuple[int, str]] = field(
        default_factory=list
    )  # (Excel row, reason) found while loading
    nul_free: bool = False  # known to hold no NUL byte (so validation need not look for one)
    hidden: bool = False  # a hidden or very hidden sheet (Excel shows it to nobody)
    # {Excel row: formula} of one column (by position); None: the format cannot say (CSV, .xls)
    formulas: Callable[[int], dict[int, str]] | None = None


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
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def detect_encoding(path: Path) -> str:
    """UTF-8 (BOM or not) if the whole file decodes as such, else cp1252, else latin-1."""
    for encoding in ("utf-8-sig", "cp1252"):
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            with path.open("rb") as fh:
                while chunk := fh.read(1 << 22):
                    decoder.decode(chunk)
                decoder.decode(b"", final=True)
            return encoding
        except UnicodeDecodeError:
            continue
    return "latin-1"


def decode_line(line: bytes) -> tuple[str, bool]:
    """One line as UTF-8 where it is valid, else as Windows-1252 (latin-1 for the five bytes
    cp1252 leaves undefined); and whether it was valid UTF-8."""
    try:
        return line.decode("utf-8"), True
    except UnicodeDecodeError:
        pass
    try:
        return line.decode("cp1252"), False
    except UnicodeDecodeError:
        return line.decode("latin-1"), False


def _mixed_utf8(path: Path) -> bytes | None:
    """A file that is not valid UTF-8 as a whole but has UTF-8 lines beside others (one row
    pasted from a Windows program): the text decoded line by line, as UTF-8 bytes. None when
    no line is non-ASCII UTF-8 (a plain Windows-1252 file: read whole as such)."""
    out: list[str] = []
    utf8_seen = False
    with path.open("rb") as fh:
        for line in fh:
            text, valid = decode_line(line)
            utf8_seen |= valid and not line.isascii()
            out.append(text)
    return "".join(out).removeprefix("\ufeff").encode("utf-8") if utf8_seen else None


def _utf16(path: Path) -> bytes:
    """Excel's "Unicode Text" save (UTF-16 with a BOM, tab-separated), as UTF-8 bytes."""
    try:
        return path.read_bytes().decode("utf-16").encode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableFile(
            "starts as UTF-16 text but is not valid UTF-16; save the sheet again as "
            '"Unicode Text", CSV UTF-8 or XLSX.'
        ) from None


def _looks_binary(head: bytes) -> bool:
    """NUL bytes in the header line, or many of them: a binary file. A stray NUL in a data
    cell is a damaged row, refused on its own (validate)."""
    first_line = head.split(b"\n", 1)[0]
    nuls = head.count(b"\x00")
    return b"\x00" in first_line or (nuls > 2 and nuls * 100 > len(head))


@dataclass(frozen=True)
class CsvText:
    """Where a CSV's text comes from: the file itself in `encoding`, or (UTF-16, or lines in
    mixed encodings) `data`, the whole text re-encoded as UTF-8."""

    path: Path
    encoding: str
    data: bytes | None = None

    def nul_free(self) -> bool:
        """No NUL byte anywhere (memchr over the file: far cheaper than a search per cell)."""
        if self.data is not None:
            return b"\x00" not in self.data
        with self.path.open("rb") as fh:
            return not any(b"\x00" in chunk for chunk in iter(lambda: fh.read(1 << 22), b""))

    def head(self) -> str:
        if self.data is not None:
            return self.data[: 1 << 16].decode("utf-8", errors="ignore")
        with self.path.open("rb") as fh:
            return fh.read(1 << 16).decode(self.encoding, errors="ignore")

    def arrow_source(self) -> Path | pa.BufferReader:
        return self.path if self.data is None else pa.BufferReader(self.data)

    def arrow_encoding(self) -> str:
        return (
            "utf8" if self.data is not None or self.encoding.startswith("utf-8") else self.encoding
        )

    def open(self) -> io.TextIOBase:
        if self.data is not None:
            return io.StringIO(self.data.decode("utf-8"), newline="")
        return cast(io.TextIOBase, self.path.open(encoding=self.encoding, newline=""))


def csv_text(path: Path) -> CsvText:
    """How to read this CSV's text: UTF-16 by its BOM, else UTF-8 if the whole file is, else
    line by line (UTF-8 lines stay UTF-8, the others are Windows-1252)."""
    with path.open("rb") as fh:
        head = fh.read(1 << 16)
    if head.startswith(UTF16_BOMS):
        return CsvText(path, "utf-8", _utf16(path))
    if _looks_binary(head):
        raise UnreadableFile("this is a binary file, not a CSV; export the sheet as CSV or XLSX.")
    encoding = detect_encoding(path)
    if encoding != "utf-8-sig" and (mixed := _mixed_utf8(path)) is not None:
        return CsvText(path, "utf-8", mixed)
    return CsvText(path, encoding)


DELIMITERS = (",", ";", "\t", "|")
SNIFF_RECORDS = 50  # records of the file's head that vote on the delimiter


def _field_counts(sample: str, delimiter: str) -> list[int]:
    """Fields per record of the sample's head, quotes respected (a quoted cell may hold the
    delimiter or a line break); a record the sample cuts off is left out."""
    counts: list[int] = []
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
    with suppress(csv.Error):  # a NUL byte, a field over the limit: the rest votes
        for row in itertools.islice(reader, SNIFF_RECORDS + 1):
            if row:
                counts.append(len(row))
    return counts[:SNIFF_RECORDS] if sample.endswith(("\n", "\r")) else counts[:-1] or counts


def _sniff_delimiter(sample: str) -> str:
    """The delimiter that splits the most records into one same number of fields (more than
    one): a prose cell's nine semicolons split one record, the commas split every one the same.
    A tie goes to the wider split."""
    best, best_score = ",", (0, 0)
    for delim in DELIMITERS:
        counts = Counter(c for c in _field_counts(sample, delim) if c > 1)
        if not counts:
            continue
        width, support = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if (support, width) > best_score:
            best, best_score = delim, (support, width)
    return best


def _read_csv(path: Path) -> Grid:
    source = csv_text(path)
    text = source.head()
    delimiter = _sniff_delimiter(text)
    rows = list(
        itertools.islice(
            csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), HEADER_SCAN_ROWS
        )
    )
    if not rows:
        raise UnreadableFile("the file has no rows.")
    width = max(len(r) for r in rows)
    preview = pd.DataFrame([r + [""] * (width - len(r)) for r in rows], dtype=object)
    grid = Grid(None, preview, lambda header_at, positions: pd.DataFrame())
    grid.nul_free = source.nul_free()
    grid.load = lambda header_at, positions: _load_csv(
        source, delimiter, header_at, positions, grid
    )
    return grid


def header_width(grid: Grid, header_at: int) -> int:
    """Fields in the header row, trailing empty ones aside."""
    cells = grid.preview.iloc[header_at].tolist()
    return max((i + 1 for i, c in enumerate(cells) if str(c).strip()), default=len(cells))


@contextmanager
def _arrow_source(path: Path) -> Iterator[Path | BinaryIO]:
    """Arrow opens paths as UTF-8 text: a name with bytes that are not UTF-8 (a latin-1 name
    from a Windows share) is read through a file Python opened instead (the slower path)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        with path.open("rb") as fh:
            yield fh
        return
    yield path


def _load_csv(
    source: CsvText, delimiter: str, header_at: int, positions: list[int], grid: Grid
) -> pd.DataFrame:
    """Data rows below the header, only `positions`, as Arrow-backed strings (fast, compact).

    Rows with a wrong number of fields are kept out and reported, never silently dropped.
    """
    width = header_width(grid, header_at)
    names = [f"c{i}" for i in range(width)]

    ragged: list[object] = []

    def bad_row(row: object) -> str:
        ragged.append(row)
        return "skip"

    try:
        with _arrow_source(source.path) as raw:
            table = pacsv.read_csv(
                raw if source.data is None else source.arrow_source(),
                read_options=pacsv.ReadOptions(
                    encoding=source.arrow_encoding(),
                    skip_rows=header_at + 1,
                    column_names=names,
                    block_size=1 << 24,
                ),
                parse_options=pacsv.ParseOptions(
                    delimiter=delimiter,
                    newlines_in_values=True,
                    ignore_empty_lines=False,
                    invalid_row_handler=bad_row,
                ),
                convert_options=pacsv.ConvertOptions(
                    include_columns=[names[p] for p in positions],
                    column_types={names[p]: pa.string() for p in positions},
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
    except (pa.ArrowInvalid, pa.ArrowKeyError) as exc:
        raise UnreadableFile(
            f"not a well-formed CSV ({str(exc).splitlines()[0]}); re-export it."
        ) from None
    if ragged:  # skipped rows would shift every later row number: read exactly instead
        return _load_csv_exact(source, delimiter, header_at, positions, grid)
    frame = table.to_pandas()
    frame.columns = positions
    return frame.fillna("") if frame.isna().any().any() else frame


def _load_csv_exact(
    source: CsvText, delimiter: str, header_at: int, positions: list[int], grid: Grid
) -> pd.DataFrame:
    """Slow, exact reader for files with ragged rows: short rows are padded, blank rows kept in
    place, rows with extra fields reported with their Excel row number and left out."""
    width = header_width(grid, header_at)
    out: list[list[str]] = []
    with source.open() as fh:
        for number, record in enumerate(csv.reader(fh, delimiter=delimiter), start=1):
            if number <= header_at + 1:
                continue
            if len(record) > width and any(v.strip() for v in record[width:]):
                grid.problems.append(
                    (
                        number,
                        f"has {len(record)} fields but the header has {width}; fix the quoting",
                    )
                )
                record = [""] * width  # stays in place (so numbering holds) and counts as blank
            record = record + [""] * (width - len(record))
            out.append([record[p] for p in positions])
    return (
        pd.DataFrame(out, columns=positions, dtype="str")
        if out
        else pd.DataFrame(columns=positions, dtype="str")
    )


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
        sheets = _calamine_sheets(path)
    except Exception as calamine_error:  # noqa: BLE001 - any reader failure: try the fallback
        if path.suffix.lower() == ".xls":
            raise UnreadableFile(
                f"cannot read this .xls ({calamine_error}); save it as .xlsx."
            ) from None
        try:  # openpyxl reads stored values only (data_only): formulas are never evaluated
            frames = pd.read_excel(
                path,
                sheet_name=None,
                header=None,
                dtype=object,
                engine="openpyxl",
                engine_kwargs={"data_only": True},
            )
        except Exception as exc:  # noqa: BLE001
            raise UnreadableFile(
                f"cannot read the workbook ({type(exc).__name__}); open and re-save it."
            ) from None
        sheets = [
            (str(n), f.astype(object).where(f.notna(), None).values.tolist(), n in hidden)
            for n, f in frames.items()
            for hidden in [_hidden_sheets(path)]
        ]
    for name, rows, hid in sheets:
        preview = [[cell_text(v) for v in row] for row in rows[:HEADER_SCAN_ROWS]]
        if not any(any(row) for row in preview):
            continue  # an empty sheet
        grid = Grid(name, pd.DataFrame(preview, dtype=object).fillna(""), _slicer(rows))
        grid.hidden = hid
        if path.suffix.lower() != ".xls":
            grid.formulas = _formula_cells(path, name)
        yield grid


def _formula_cells(path: Path, sheet: str) -> Callable[[int], dict[int, str]]:
    """{Excel row: formula text} of a column of `sheet`, read when asked (openpyxl without
    data_only sees the formula where calamine sees only its stored result)."""

    def column(position: int) -> dict[int, str]:
        from openpyxl import load_workbook

        try:
            book = load_workbook(path, read_only=True, data_only=False)
        except Exception:  # noqa: BLE001 - unreadable here: the caller keeps what it read
            return {}
        try:
            cells = book[sheet].iter_rows(min_col=position + 1, max_col=position + 1)
            return {
                c.row: str(c.value)
                for (c,) in cells
                if getattr(c, "data_type", None) == "f" and getattr(c, "row", None)
            }
        finally:
            book.close()

    return column


def _hidden_sheets(path: Path) -> set[str]:
    """The names of a workbook's hidden and very hidden sheets (openpyxl, read only)."""
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True)
    except Exception:  # noqa: BLE001 - unreadable here too: the caller reads no sheet at all
        return set()
    try:
        return {ws.title for ws in book.worksheets if ws.sheet_state != "visible"}
    finally:
        book.close()


def _calamine_sheets(path: Path) -> list[tuple[str, list[list[object]], bool]]:
    """Every sheet's cells as Python values (cached formula results, never evaluated), from A1
    so row numbers stay Excel's. python-calamine directly: a third faster than through pandas."""
    from python_calamine import CalamineWorkbook

    try:
        book = CalamineWorkbook.from_path(str(path))
    except UnicodeEncodeError:  # a name that is not UTF-8: read through a file we opened
        with path.open("rb") as fh:
            book = CalamineWorkbook.from_filelike(fh)
    hidden = {str(m.name) for m in book.sheets_metadata if "hidden" in str(m.visible).lower()}
    return [
        (
            str(n),
            cast(list[list[object]], book.get_sheet_by_name(n).to_python(skip_empty_area=False)),
            str(n) in hidden,
        )
        for n in book.sheet_names
    ]


def _slicer(rows: list[list[object]]) -> Callable[[int, list[int]], pd.DataFrame]:
    """Turns only the columns a layout needs into text (a Shopify sheet has 79, we use ~25)."""

    def load(header_at: int, positions: list[int]) -> pd.DataFrame:
        body = rows[header_at + 1 :]
        text = {p: [cell_text(r[p]) if p < len(r) else "" for r in body] for p in positions}
        return pd.DataFrame(text, columns=positions, dtype="str")

    return load


def cell_text(value: object) -> str:
    """A cell as the text a person sees: 1001.0 -> '1001', datetimes ISO, empty -> ''."""
    if type(value) is str:  # the common case first
        return value.strip()
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, timedelta):  # a duration cell (or a time past 24h)
        return str(value)
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value).strip()
