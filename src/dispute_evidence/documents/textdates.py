"""Dates written in a document's text: ISO, numeric with slashes (day or month first: the text
decides when one of its dates can only be read one way, else the locale, else month first),
with dots (day first), and with the month's name ('Dec 10, 2025', '10 Dec 2025', '10-Dec-2025').
A time or zone after the date ('14:32 IST') is not part of it. Pure, linear-time patterns.
"""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DATES = (
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), "ymd"),
    (_SLASH, "slash"),
    (re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b"), "dmy"),
    (re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I), "Mdy"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?[ -]{_MONTH}(?:,? |-)(\d{{4}})\b", re.I), "dMy"),
)


def slash_order(text: str, dayfirst: bool | None = None) -> bool | None:
    """Whether the text writes numeric dates day first: its own dates decide when one can only
    be read one way (25/12/2025), else `dayfirst` (the locale's; None: not known)."""
    for m in _SLASH.finditer(text):
        first, second = int(m.group(1)), int(m.group(2))
        if first > 12 >= second:
            return True
        if second > 12 >= first:
            return False
    return dayfirst


def first_date(text: str, dayfirst: bool | None = None) -> date | None:
    """The earliest-placed date written in `text` (ISO; 03/05/2026 month first unless
    `dayfirst`, or a part over 12 says otherwise; 05.03.2026 as day.month; 'March 5, 2026',
    '5 March 2026', '5-Mar-2026'); None when none is a real date."""
    found: list[tuple[int, date]] = []
    for pattern, order in _DATES:
        for m in pattern.finditer(text):
            day = _as_date(m.groups(), order, dayfirst)
            if day is not None:
                found.append((m.start(), day))
                break
    return min(found)[1] if found else None


def _as_date(g: tuple[str | None, ...], order: str, dayfirst: bool | None) -> date | None:
    parts = [str(x) for x in g]
    try:
        if order == "ymd":
            y, mo, d = int(parts[0]), int(parts[1]), int(parts[2])
        elif order in ("slash", "dmy"):
            a, b, y = int(parts[0]), int(parts[1]), int(parts[2])
            day_first = order == "dmy" or a > 12 or (bool(dayfirst) and b <= 12)
            d, mo = (a, b) if day_first else (b, a)
        elif order == "Mdy":
            mo, d, y = _MONTHS[parts[0][:3].lower()], int(parts[1]), int(parts[2])
        else:
            d, mo, y = int(parts[0]), _MONTHS[parts[1][:3].lower()], int(parts[2])
        return date(y, mo, d) if 1900 < y < 2200 else None
    except (ValueError, KeyError):
        return None
