"""Row validation: every row ends up used, rejected (with its reasons) or a duplicate (a row
equal to an earlier one in every column, in tables that are not line items)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from dispute_evidence.cardnumbers import cover, has_card_number
from dispute_evidence.ingest.currencies import ISO_4217
from dispute_evidence.ingest.layouts import (
    CURRENCY_FIELDS,
    DATE_FIELDS,
    FIELDS,
    LONG_TEXT_FIELDS,
    NUMBER_FIELDS,
    Mapping,
)
from dispute_evidence.ingest.numbers import AMBIGUOUS, MAX_AMOUNT, MAX_QUANTITY, parse_number
from dispute_evidence.ingest.tables import (
    DATE_RANGE,
    Reject,
    Table,
    iso_text,
    normalise_order_number,
    parse_dates,
)

MAX_CELL_CHARS = 2000
MAX_PROSE_CHARS = 32_767  # a statement or a description: as long as a spreadsheet cell holds
NUL_CELL = "contains a NUL byte (a damaged export); fix or retype the cell and drop the file again"
IMPLAUSIBLE_DATE = (
    f"date outside {DATE_RANGE[0]:%Y-%m-%d} to {DATE_RANGE[1]:%Y-%m-%d}: not a plausible "
    "order, shipping, payment or deadline date; check the cell"
)
MONEY_FIELDS = frozenset(NUMBER_FIELDS - {"quantity"})
# Tables of one row per line item: two equal rows are two lines (Shopify lists the same variant
# twice on one order, and its subtotal counts both), never one row written twice. A file
# dropped twice is told by its name and version, not here.
LINE_KINDS = frozenset({"orders"})


NO_PRODUCT_KEY = (
    "names no product: a description needs the product's SKU (as the orders export's "
    "`Lineitem sku`) or its title"
)
DEADLINE_FIELDS = frozenset({"response_due_by", "dispute_evidence_due"})
# a date alone: 2026-11-30, 30/11/2026, 30.11.26, or a spreadsheet's date at midnight
_DATE_ONLY = r"^\s*(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4})(\s+00:00(:00)?)?\s*$"


def end_of_day(raw: pd.Series, parsed: pd.Series, zone: str) -> pd.Series:
    """A deadline given as a date alone means the end of that day in `zone` (23:59:59 there),
    not midnight UTC at its start; one with a time of day is left as it was read."""
    serial = pd.to_numeric(raw, errors="coerce")
    date_only = raw.str.match(_DATE_ONLY) | (serial.notna() & (serial % 1 == 0))
    date_only &= parsed.notna()
    if not date_only.any():
        return parsed
    day = parsed[date_only].dt.tz_localize(None).dt.normalize()
    local = (day + pd.Timedelta(days=1) - pd.Timedelta(seconds=1)).dt.tz_localize(
        zone, ambiguous="NaT", nonexistent="shift_forward"
    )
    out = parsed.copy()
    out.loc[date_only] = local.dt.tz_convert("UTC")
    return out


def _forward_fill(frame: pd.DataFrame, fields: tuple[str, ...], by: str) -> None:
    """Shopify fills an order's (a product's) own fields only on its first row: carry them
    down, within each order (product handle)."""
    present = [f for f in fields if f in frame]
    if not present:
        return
    filled = frame[present].where(frame[present] != "")
    frame[present] = filled.groupby(frame[by], sort=False).ffill().fillna("")


def _blank_rows(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Rows empty in every one of `columns`; column by column, stopping at the first column
    empty nowhere (a table-wide comparison builds a million-by-30 frame of booleans)."""
    blank = np.ones(len(frame), dtype=bool)
    for col in columns:
        blank &= (frame[col] == "").to_numpy(dtype=bool)
        if not blank.any():
            break
    return pd.Series(blank, index=frame.index)


def _may_be_longer(text: pd.Series, limit: int) -> bool:
    """Whether a cell may be over `limit` characters: never when none is over `limit` bytes
    (UTF-8 spends at least a byte a character), as Arrow tells from its offsets alone."""
    if not isinstance(text.array, pd.arrays.ArrowStringArray):
        return True
    lengths = pc.binary_length(text.array.__arrow_array__())
    return bool((pc.max(lengths).as_py() or 0) > limit)


def validate_table(
    frame: pd.DataFrame,
    mapping: Mapping,
    shown: dict[str, str],
    file: str,
    sheet: str | None,
    dayfirst: bool | None = None,
    zone: str = "UTC",
    *,
    nul_free: bool = False,
) -> Table:
    """Validate a canonical frame; rejects name file, sheet, Excel row, column and value.
    `dayfirst`: how to read numeric dates a column leaves ambiguous (the mapping's own wins);
    `nul_free`: the reader knows no cell holds a NUL byte."""
    kind = mapping.kind
    canonical = list(FIELDS[kind])
    rows_read = len(frame)
    blank = _blank_rows(frame, canonical)
    # rows are taken out only when there are any: a take copies every column (1M rows x 30)
    frame = frame.loc[~blank].copy() if blank.any() else frame  # (ours: to_canonical made it)
    if "order_number" in frame:
        frame["order_number"] = normalise_order_number(frame["order_number"])
    if mapping.forward_fill:
        _forward_fill(frame, mapping.forward_fill, mapping.fill_by)

    card_cells = _card_numbers(frame, canonical, file, sheet, shown)
    problems = _text_problems(frame, mapping, canonical, nul_free)
    parsed: dict[str, pd.Series] = {}
    for fld in NUMBER_FIELDS & set(canonical):
        numbers = parse_number(frame[fld])
        parsed[fld] = numbers.values
        problems += _number_problems(frame[fld], numbers.values, numbers.ambiguous, fld)
    for fld in CURRENCY_FIELDS & set(canonical):
        frame[fld] = frame[fld].str.upper()
        problems.append(
            (
                (frame[fld] != "") & ~frame[fld].isin(ISO_4217),
                fld,
                "unknown currency code (use ISO 4217, e.g. USD, EUR)",
            )
        )
    order = mapping.dayfirst if mapping.dayfirst is not None else dayfirst
    problems += _date_problems(frame, canonical, order, zone, parsed)
    bad, rejects = _rejects(frame, problems, file, sheet, shown)
    rejects += _statements_lost(frame, bad, file, sheet, shown) if kind == "disputes" else []
    rejects = sorted([*card_cells, *rejects], key=lambda r: (r.row or 0, r.column or ""))

    # rows are taken out only when there are any: a take copies every column (1M rows x 30)
    some_bad = bool(bad.any())
    good = frame.loc[~bad].copy() if some_bad else frame
    for fld, values in parsed.items():
        kept = values.loc[good.index] if some_bad else values
        good[fld] = iso_text(kept) if fld in DATE_FIELDS else kept
    dup = (
        pd.Series(False, index=good.index)
        if kind in LINE_KINDS
        else _duplicates(good, canonical, sorted(mapping.required() & set(canonical)))
    )
    return Table(
        kind,
        mapping.name,
        (good.loc[~dup] if dup.any() else good).reset_index(drop=True),
        rejects,
        rows_read=rows_read,
        rows_rejected=int(bad.sum()),
        rows_duplicate=int(dup.sum()),
        rows_blank=int(blank.sum()),
    )


CARD_CELL = (
    "a full card number: never read, sent or kept (PCI DSS); the rest of the row is used. "
    "Remove the number from the cell (the last 4 digits may stay) in the source system"
)
CARD_IN_TEXT = (
    "a full card number: covered (its last 4 digits kept), the rest of the text is used "
    "(PCI DSS). Remove the number in the source system"
)
# 13 digits anywhere in the cell, whatever stands between them: the cells worth a look
_MAYBE_CARD = r"(?:[^0-9]*[0-9]){13}"
# a column that names what kind of number its cells hold: a bare number there is that
# number (an order's own 16-digit number, a tracking number passing Luhn), never a card
_OWN_NUMBER_FIELDS = frozenset(
    ("order_number", "tracking_number", "payment_id", "payment_intent", "provider_dispute_id")
    + ("refund_reference", "sku", "device_id", "customer_account_id", "device_fingerprint")
)


def _text_problems(
    frame: pd.DataFrame, mapping: Mapping, canonical: list[str], nul_free: bool
) -> list[tuple[pd.Series, str, str]]:
    """What the cells break as text: a required field empty, a product with neither SKU nor
    title, a cell too long, a NUL byte. (bad-row mask, field, reason), in that order."""
    problems: list[tuple[pd.Series, str, str]] = []
    for fld in mapping.required():
        problems.append((frame[fld] == "", fld, f"missing {fld.replace('_', ' ')} (required)"))
    if mapping.kind == "products":
        unnamed = (frame["sku"] == "") & (frame["product_title"] == "")
        problems.append((unnamed, "description", NO_PRODUCT_KEY))
    for fld in canonical:
        limit = MAX_PROSE_CHARS if fld in LONG_TEXT_FIELDS else MAX_CELL_CHARS
        if _may_be_longer(frame[fld], limit):
            too_long = frame[fld].str.len() > limit
            problems.append((too_long, fld, f"longer than {limit} characters"))
        if not nul_free:
            problems.append((frame[fld].str.contains("\x00", regex=False), fld, NUL_CELL))
    return problems


def _own_numbers(frame: pd.DataFrame, columns: list[str]) -> set[str]:
    """The bare numbers of 13 to 19 digits the table's identifier columns hold: the same
    digits in another of its cells are that order's or parcel's number."""
    out: set[str] = set()
    for fld in (f for f in columns if f in _OWN_NUMBER_FIELDS):
        col = frame[fld]
        if _may_be_longer(col, 12):
            values = col.astype(str).str.strip()
            out.update(values[values.str.fullmatch(r"[0-9]{13,19}")].tolist())
    return out


def _candidates(col: pd.Series) -> np.ndarray:
    if isinstance(col.array, pd.arrays.ArrowStringArray):
        maybe = pc.match_substring_regex(col.array.__arrow_array__(), _MAYBE_CARD)
        return np.asarray(maybe.to_numpy(zero_copy_only=False), dtype=bool)
    return np.asarray(col.astype(str).str.contains(_MAYBE_CARD, regex=True), dtype=bool)


def _card_numbers(
    frame: pd.DataFrame, columns: list[str], file: str, sheet: str | None, shown: dict[str, str]
) -> list[Reject]:
    """Cells holding a full card number are emptied, in place, before anything reads them
    (prose, a statement or a description, is covered instead: its last 4 digits kept); one
    Reject each, naming the cell by its last 4 digits. The row itself is not refused (a
    required cell emptied refuses it as missing). Arrow's regex engine picks the candidates,
    so a million-row export costs one vectorised pass per column. Number and date cells are
    parsed, and a card number there refuses the row (its value covered on the line): only the
    text cells, which would be kept, are looked at."""
    out: list[Reject] = []
    own = _own_numbers(frame, columns)
    for fld in (f for f in columns if f not in NUMBER_FIELDS and f not in DATE_FIELDS):
        col = frame[fld]
        if not _may_be_longer(col, 12):  # no cell of 13 bytes or more: nothing to look for
            continue
        candidates = _candidates(col)
        if not candidates.any():
            continue
        picked = col[candidates]
        cards = picked[picked.map(lambda v: has_card_number(str(v), own)).astype(bool)]
        if cards.empty:
            continue
        rows = frame.loc[cards.index, "_row"].tolist()
        prose = fld in LONG_TEXT_FIELDS
        why = CARD_IN_TEXT if prose else CARD_CELL
        name = shown.get(fld, fld)
        out += [
            Reject(file, sheet, int(row), name, cover(str(v), own)[:80], why)
            for row, v in zip(rows, cards.tolist(), strict=True)
        ]
        frame.loc[cards.index, fld] = cards.map(lambda v: cover(str(v), own)) if prose else ""
    return out


def _date_problems(
    frame: pd.DataFrame,
    canonical: list[str],
    dayfirst: bool | None,
    zone: str,
    parsed: dict[str, pd.Series],
) -> list[tuple[pd.Series, str, str]]:
    """Parse the date columns into `parsed`; the cells refused, out of range or unreadable."""
    problems: list[tuple[pd.Series, str, str]] = []
    for fld in DATE_FIELDS & set(canonical):
        dates = parse_dates(frame[fld], dayfirst)
        parsed[fld] = dates.values
        if fld in DEADLINE_FIELDS:
            parsed[fld] = end_of_day(frame[fld], dates.values, zone)
        problems.append((dates.refused, fld, dates.reason))
        problems.append((dates.out_of_range, fld, IMPLAUSIBLE_DATE))
        problems.append(
            (
                (frame[fld] != "") & dates.values.isna() & ~dates.refused & ~dates.out_of_range,
                fld,
                "unparseable date (use YYYY-MM-DD or YYYY-MM-DD HH:MM)",
            )
        )
    return problems


def _ids(frame: pd.DataFrame, mask: pd.Series, column: str) -> list[str]:
    """The marked rows' values of `column` ('' for none, and where the table has no such)."""
    if column not in frame:
        return [""] * int(mask.sum())
    return ["" if v is None or v != v else str(v).strip() for v in frame.loc[mask, column]]


def _rejects(
    frame: pd.DataFrame,
    problems: list[tuple[pd.Series, str, str]],
    file: str,
    sheet: str | None,
    shown: dict[str, str],
) -> tuple[pd.Series, list[Reject]]:
    """The rows any problem marks bad, and one Reject per bad cell (by row, then column)."""
    bad = pd.Series(False, index=frame.index)
    rejects: list[Reject] = []
    for mask, fld, reason in problems:
        mask = mask.fillna(False)
        if not mask.any():
            continue
        bad |= mask
        orders = (
            frame.loc[mask, "order_number"].tolist()
            if "order_number" in frame
            else [""] * int(mask.sum())
        )
        disputes = _ids(frame, mask, "provider_dispute_id")
        for row, value, order, dispute in zip(
            frame.loc[mask, "_row"].tolist(),
            frame.loc[mask, fld].tolist(),
            orders,
            disputes,
            strict=True,
        ):
            rejects.append(
                Reject(
                    file,
                    sheet,
                    int(row),
                    shown.get(fld, fld),
                    cover(str(value))[:80],
                    reason,
                    order,
                    dispute,
                )
            )
    rejects.sort(key=lambda r: (r.row or 0, r.column or ""))
    return bad, rejects


STATEMENT_LOST = (
    "the row was refused (see its other line), so the merchant's statement in it was not used "
    "either: correct the row and drop the file again, or put the statement in a file named "
    "'<order number> statement.txt'"
)


def _statements_lost(
    frame: pd.DataFrame, bad: pd.Series, file: str, sheet: str | None, shown: dict[str, str]
) -> list[Reject]:
    """A refused disputes row's statement, said: it goes nowhere with its row (issue 45 item
    11), where before nothing said it was lost."""
    if "statement" not in frame or not bad.any():
        return []
    lost = bad & (frame["statement"].str.strip() != "")
    return _rejects(frame, [(lost, "statement", STATEMENT_LOST)], file, sheet, shown)[1]


def _number_problems(
    text: pd.Series, values: pd.Series, ambiguous: pd.Series, fld: str
) -> list[tuple[pd.Series, str, str]]:
    """Cells that are no number, or no plausible one (bounds: see numbers.py and README)."""
    name = fld.replace("_", " ")
    finite = np.isfinite(values)
    out = [
        ((text != "") & values.isna() & ~ambiguous, fld, "not a number"),
        (ambiguous, fld, AMBIGUOUS),
        # "inf", "1e309", "NaN" parse as floats but no evidence can carry them (JSON has none)
        (values.abs() == np.inf, fld, "not a finite number"),
    ]
    if fld in ("quantity", "price", "order_total", "refunded_amount"):
        out.append((values < 0, fld, f"negative {name}"))
    if fld == "quantity":
        out += [
            (values == 0, fld, "quantity is 0"),
            (finite & (values % 1 != 0), fld, "quantity must be a whole number of items"),
            (
                finite & (values > MAX_QUANTITY),
                fld,
                f"quantity over {MAX_QUANTITY:,}: not a plausible order line; check the cell",
            ),
        ]
    if fld in MONEY_FIELDS:
        out.append(
            (
                finite & (values.abs() >= MAX_AMOUNT),
                fld,
                f"{name} of {MAX_AMOUNT:,.0f} or more: not a plausible amount; check the cell",
            )
        )
    return out


def _duplicates(frame: pd.DataFrame, columns: list[str], keys: list[str]) -> pd.Series:
    """Rows equal to an earlier row in every column. Only rows that repeat on the required
    columns can be such copies, so the full comparison runs on those alone (3x faster)."""
    if not keys:
        return frame.duplicated(subset=columns, keep="first")
    dup = pd.Series(False, index=frame.index)
    maybe = frame.duplicated(subset=keys, keep=False)
    if maybe.any():
        dup.loc[maybe] = frame.loc[maybe].duplicated(subset=columns, keep="first")
    return dup
