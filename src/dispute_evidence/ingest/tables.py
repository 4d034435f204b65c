"""Recognise a grid's table kind from its headers, map it to canonical columns, and validate
every row: good rows go through, bad ones become reject lines an analyst can act on."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from dispute_evidence.ingest.choice import Recognised, recognise
from dispute_evidence.ingest.layouts import FIELDS, Mapping, norm_header
from dispute_evidence.ingest.readers import HEADER_SCAN_ROWS, Grid

SOURCE_COLUMNS = ["_file", "_sheet", "_row"]


@dataclass(frozen=True)
class Reject:
    """One problem with one cell (or a whole row), as the analyst sees it in Excel."""

    file: str
    sheet: str | None
    row: int | None
    column: str | None
    value: str | None
    reason: str
    order: str = ""  # the row's order number, when it could be read: a dispute on it is held
    dispute: str = ""  # the row's dispute id, when it could be read: files named for it say why

    def line(self) -> str:
        where = self.file + (f" [{self.sheet}]" if self.sheet else "")
        if self.row is not None:
            where += f" row {self.row}"
        if self.column:
            where += f", column '{self.column}'"
        value = f" = {self.value!r}" if self.value not in (None, "") else ""
        return f"{where}{value}: {self.reason}"


@dataclass
class Table:
    """A recognised, validated table: canonical columns + _file/_sheet/_row."""

    kind: str
    layout: str
    records: pd.DataFrame
    rejects: list[Reject] = field(default_factory=list)
    rows_read: int = 0
    rows_rejected: int = 0
    rows_duplicate: int = 0
    rows_blank: int = 0


def find_header(grid: Grid, custom: tuple[Mapping, ...]) -> tuple[int, Recognised] | None:
    """The first of the top rows that reads as a recognised header (title rows above are
    skipped), and how it is read."""
    for i in range(min(HEADER_SCAN_ROWS, len(grid.preview))):
        cells = grid.preview.iloc[i].tolist()
        headers: dict[str, int] = {}
        for pos, text in enumerate(cells):
            key = norm_header(text)
            if key and key not in headers:
                headers[key] = pos
        if (hit := recognise(headers, custom, cells)) is not None:
            return i, hit
    return None


def column_letter(position: int) -> str:
    """Excel's name for a column position counted from 0: 0 -> A, 26 -> AA."""
    letters, n = "", position + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return letters


def repeated_headers(
    grid: Grid, header_at: int, mapping: Mapping, found: dict[str, tuple[int, ...]], file: str
) -> tuple[dict[str, tuple[int, ...]] | None, list[Reject]]:
    """A header the mapping uses that heads two columns is never guessed between: the field is
    left out (the whole table if it is required), with a line naming both columns."""
    cells = grid.preview.iloc[header_at].tolist()
    keys = [norm_header(c) for c in cells]
    kept, rejects, refuse = dict(found), [], False
    for fld, cols in found.items():
        for p in cols:
            same = [i for i, k in enumerate(keys) if k == keys[p]]
            if len(same) < 2:
                continue
            required = fld in mapping.required()
            refuse |= required
            kept.pop(fld, None)
            where = " and ".join(column_letter(i) for i in same)
            rejects.append(
                Reject(
                    file,
                    grid.sheet,
                    None,
                    str(cells[p]),
                    None,
                    f"the header '{cells[p]}' heads columns {where}; rename or delete one and "
                    "drop the file again (until then "
                    + ("this table is not used)" if required else "this column is not used)"),
                )
            )
            break
    return (None if refuse else kept), rejects


def _strip(series: pd.Series) -> pd.Series:
    s = series.astype(str).str.strip()
    if s.str.startswith("'").any():  # spreadsheet "keep as text" apostrophe ('4001)
        s = s.str.removeprefix("'")
    return s


def to_canonical(
    grid: Grid, header_at: int, mapping: Mapping, found: dict[str, tuple[int, ...]], file: str
) -> tuple[pd.DataFrame, dict[str, str]]:
    """Canonical text columns + sources; and, per field, the header the analyst sees."""
    positions = sorted({p for ps in found.values() for p in ps})
    body = grid.load(header_at, positions)
    header_row = grid.preview.iloc[header_at].tolist()
    out: dict[str, pd.Series] = {}
    shown: dict[str, str] = {}
    for fld, cols in found.items():
        if len(cols) == 1:
            out[fld] = _strip(body[cols[0]])
        else:  # composite, e.g. an address from its parts
            parts = [_strip(body[p]) for p in cols]
            joined = parts[0].str.cat(parts[1:], sep="\x1f")
            out[fld] = joined.str.replace(r"\x1f+", ", ", regex=True).str.strip(", ")
        shown[fld] = " + ".join(str(header_row[p]) for p in cols)
    frame = pd.DataFrame(out, index=body.index)
    for fld, value in mapping.defaults.items():
        if fld not in frame or (frame[fld] == "").all():
            frame[fld] = value
            shown[fld] = f"(default {value})"
    for fld in FIELDS[mapping.kind]:
        if fld not in frame:
            frame[fld] = repeated_text("", frame.index)
    frame["_file"] = repeated_text(file, frame.index)
    frame["_sheet"] = grid.sheet
    frame["_row"] = np.arange(len(frame)) + grid.first_row + header_at + 1
    return frame, shown


def repeated_text(value: str, index: pd.Index) -> pd.Series:
    """A text column holding `value` in every row, made by Arrow in one step (pandas repeats a
    scalar through a take: 25 ms a column of a million rows, and an export lacks 17 of them)."""
    text = pa.repeat(pa.scalar(value, pa.large_string()), len(index))
    return pd.Series(pd.array(text, dtype="str"), index=index)


def normalise_order_number(series: pd.Series) -> pd.Series:
    """'#1001', '1001', ' 1001 ' and Excel's 1001.0 all become '1001'."""
    s = series.str.strip().str.lstrip("#").str.strip()
    return s.str.replace(r"^(\d+)\.0+$", r"\1", regex=True)


_NUMERIC_DATE = r"^\s*(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{2,4})(?:$|[\sT])"


# Plausible order, shipping, payment and deadline dates (README). Outside it a date is a typo
# or a placeholder (9999-12-31), refused by its row rather than sent or breaking a run.
DATE_RANGE = (pd.Timestamp("2000-01-01", tz="UTC"), pd.Timestamp("2100-12-31 23:59:59", tz="UTC"))


@dataclass(frozen=True)
class ParsedDates:
    values: pd.Series  # UTC datetimes, NaT where empty or refused
    refused: pd.Series  # cells refused for the column's reason (below), not for being garbage
    out_of_range: pd.Series  # read, but outside DATE_RANGE (NaT in values)
    reason: str = ""


def parse_dates(series: pd.Series, dayfirst: bool | None = None) -> ParsedDates:
    """ISO strings (Shopify's '2025-05-11 09:55:16 -0400' too), Excel serial numbers and other
    common forms, to UTC. Unparseable -> NaT.

    Numeric dates like 01/12/2025 are read one way per column, decided from all its values:
    a value over 12 in the first place means day-first, in the second month-first. A column
    where every value could be either is read as `dayfirst` says (the mapping's or the
    config's locale); with no such setting its ambiguous values are refused, never guessed.
    """
    utc = "datetime64[us, UTC]"  # microseconds: year 9999 fits (nanoseconds stop in 2262)
    text = series.where(series != "")
    parsed = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601").astype(utc)
    refused = pd.Series(False, index=series.index)
    reason = ""
    todo = parsed.isna() & text.notna()
    if todo.any():
        serial = pd.to_numeric(text[todo], errors="coerce")
        serial = serial[serial.between(20000, 80000)]
        if not serial.empty:  # Excel's day count from 1899-12-30, to the second
            days = pd.to_datetime(serial, unit="D", origin="1899-12-30", utc=True).dt.round("s")
            parsed.loc[serial.index] = days.astype(utc)
        rest = todo & parsed.isna()
        if rest.any():
            parts = text[rest].str.extract(_NUMERIC_DATE)
            numeric = parts.notna().all(axis=1)
            first = parts.loc[numeric, 0].astype(int)
            second = parts.loc[numeric, 1].astype(int)
            day_first_seen = ((first > 12) & (second <= 12)).any()  # 13/12: only day-first
            month_first_seen = ((second > 12) & (first <= 12)).any()  # 12/13: only month-first
            order = dayfirst
            if dayfirst is not None:
                impossible = (first > 12) if not dayfirst else (second > 12)
                if impossible.any():
                    reason = (
                        f"not a {'day' if dayfirst else 'month'}-first date, as this column is "
                        "set to be read; check the export or the dayfirst setting"
                    )
            elif day_first_seen and month_first_seen:
                impossible = pd.Series(True, index=first.index)
                reason = (
                    "this column mixes day-first (e.g. 13/12) and month-first (e.g. 12/13) "
                    "dates; export one format (YYYY-MM-DD is safest) and drop the file again"
                )
            elif day_first_seen or month_first_seen:
                order = bool(day_first_seen)
                impossible = pd.Series(False, index=first.index)
            else:  # every value could be either (a value like 05/05 reads the same both ways)
                impossible = first != second
                reason = (
                    "ambiguous date: day-first or month-first? Every date in this column could "
                    "be either; set dayfirst = true or false in the column mapping, or "
                    "ingest.locale (e.g. 'en_GB' or 'en_US') in the config"
                )
                order = True  # only for the values that read the same both ways
            refused.loc[impossible[impossible].index] = True
            readable = rest & ~refused
            if readable.any():
                mixed = pd.to_datetime(
                    text[readable], utc=True, errors="coerce", format="mixed", dayfirst=bool(order)
                )
                parsed.loc[readable] = mixed.astype(utc)
    outside = parsed.notna() & ~parsed.between(*DATE_RANGE)
    return ParsedDates(parsed.where(~outside), refused, outside, reason)


def iso_text(parsed: pd.Series) -> pd.Series:
    """UTC datetimes as 'YYYY-MM-DDTHH:MM:SSZ' ('' for NaT), formatting each distinct value once."""
    codes, uniques = pd.factorize(parsed)
    if len(uniques) == 0:
        return pd.Series("", index=parsed.index, dtype="str")
    naive = uniques.tz_convert("UTC").tz_localize(None).to_numpy().astype("datetime64[s]")
    texts = pd.array([f"{t}Z" for t in np.datetime_as_string(naive, unit="s")] + [""], dtype="str")
    codes[codes < 0] = len(texts) - 1  # NaT -> ""
    return pd.Series(texts.take(codes), index=parsed.index)
