"""Numbers as exports write them, and the bounds a plausible one keeps.

`1,234.56` and `1.234,56` are the same number in two conventions. A cell that shows which
mark is the decimal one (both marks, a repeated mark, or a comma with other than three
digits after it) is read on its own; a cell that could be either (`1,234`, `1.234`) is read
the way the other values of its column show, and refused when they show nothing or both,
never guessed (as numeric dates are, see tables.parse_dates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# Bounds of a plausible cell (README, "What the sheets may look like"): anything outside is a
# typo or a broken export, and would otherwise reach the API (1e20 items) or break the JSON.
MAX_QUANTITY = 1_000_000  # items on one order line, a whole number
MAX_AMOUNT = 1e12  # prices, totals, refunds, dispute amounts (major or minor units)

_SIGN = r"^[+-]?"
DOT_STYLE = (  # the comma groups thousands: 1,234.56 or 1,234,567
    _SIGN + r"\d{1,3}(?:,\d{3})+\.\d+$",
    _SIGN + r"\d{1,3}(?:,\d{3}){2,}$",
)
COMMA_STYLE = (  # the comma is the decimal mark: 1.234,56, 1.234.567, 12,50, 0,5, 1,2345
    _SIGN + r"\d{1,3}(?:\.\d{3})+,\d+$",
    _SIGN + r"\d{1,3}(?:\.\d{3}){2,}$",
    _SIGN + r"\d*,(?:\d{1,2}|\d{4,})$",
)
EITHER_COMMA = _SIGN + r"\d{1,3},\d{3}$"  # 1,234: 1234 or 1.234
EITHER_DOT = _SIGN + r"\d{1,3}\.\d{3}$"  # 1.234: 1.234 or 1234
AMBIGUOUS = (
    "ambiguous number: the comma or point could be a decimal mark or a thousands separator, "
    "and no other value in this column tells which; write the decimals (1,234.00 or "
    "1.234,00) or export plain numbers (1234.00)"
)


# A cell Python's float() and Arrow's cast read alike (Arrow alone also takes "nan(1)")
_PLAIN = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"


@dataclass(frozen=True)
class ParsedNumbers:
    values: pd.Series  # float64, NaN where empty, unparseable or refused
    ambiguous: pd.Series  # cells refused as AMBIGUOUS (not for being garbage)


def _matches(s: pd.Series, patterns: tuple[str, ...]) -> pd.Series:
    hit = pd.Series(False, index=s.index)
    for pattern in patterns:
        hit |= s.str.match(pattern)
    return hit


def _all_plain(series: pd.Series) -> pd.Series | None:
    """The column as floats when every cell is a plain decimal number, read by Arrow's cast in
    C++ (a tenth of the time of float() per cell, same values: both round correctly)."""
    if not isinstance(series.array, pd.arrays.ArrowStringArray):
        return None
    text = series.array.__arrow_array__()  # the same buffers, no copy
    if text.null_count or not pc.all(pc.match_substring_regex(text, _PLAIN)).as_py():
        return None
    values = pc.cast(text, pa.float64()).to_numpy()
    return pd.Series(values.copy(), index=series.index, name=series.name)


def parse_number(series: pd.Series) -> ParsedNumbers:
    """Numbers as exports write them: '49.50', '$49.50', '1,049.50', '1.049,50', '49,50'."""
    none = pd.Series(False, index=series.index)
    if not (series != "").any():  # an optional column the export leaves empty: nothing to parse
        return ParsedNumbers(pd.Series(np.nan, index=series.index, dtype="float64"), none)
    if (plain := _all_plain(series)) is not None:  # fastest path: every cell a plain number
        return ParsedNumbers(plain, none)
    try:  # every cell a number Python reads (pandas' astype: float() per cell)
        return ParsedNumbers(series.astype("float64"), none)
    except (ValueError, TypeError, ArithmeticError):
        pass
    plain = pd.to_numeric(series, errors="coerce").astype("float64")  # most cells plain
    todo = plain.isna() & (series != "")
    if not todo.any():
        return ParsedNumbers(plain, none)
    s = series[todo].str.replace(r"[\s\u00a0\u202f$€£¥]", "", regex=True)
    dot, comma = _matches(s, DOT_STYLE), _matches(s, COMMA_STYLE)
    either = s.str.match(EITHER_COMMA)
    plain_dot = series[~todo & (series != "")].str.strip()
    plain_either = plain_dot.str.match(EITHER_DOT)
    dot_seen = dot.any() or (plain_dot.str.contains(".", regex=False) & ~plain_either).any()
    comma_seen = comma.any()
    values = s.where(~dot, s.str.replace(",", "", regex=False))
    as_comma = values.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
    values = values.where(~comma, as_comma)
    ambiguous = none.copy()
    if comma_seen and not dot_seen:  # 1,234 is 1.234 and 1.234 is 1234 in this column
        values = values.where(~either, as_comma)
        fixed = plain_either[plain_either].index
        plain.loc[fixed] = pd.to_numeric(
            plain_dot[fixed].str.replace(".", "", regex=False), errors="coerce"
        )
    elif dot_seen and not comma_seen:  # 1,234 is 1234
        values = values.where(~either, s.str.replace(",", "", regex=False))
    else:
        ambiguous.loc[either[either].index] = True
        if comma_seen:  # and dot_seen: a plain 1.234 is no longer plain
            ambiguous.loc[plain_either[plain_either].index] = True
    plain.loc[todo] = pd.to_numeric(values, errors="coerce")
    plain[ambiguous] = np.nan
    return ParsedNumbers(plain, ambiguous)
