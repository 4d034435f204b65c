"""What a policy or terms document says of itself: the date it took effect ("Last updated:
1 October 2025", "Effective from 2025-10-01"), so the version in force at an order's date is
the one argued (engine/storedocs.py). Pure, linear-time patterns over bounded text.
"""

from __future__ import annotations

import re
from datetime import date

from dispute_evidence.evidence.textdates import first_date

# Words that date the document ("Last updated: 1 October 2025"): never part of a clause, and
# where its effective date is read. At a line's start more words count than within a line.
_STRICT = (r"last\s{1,3}(?:updated|revised|modified)|effective\s{1,3}(?:date|from|as\s{1,3}of)"
           r"|(?:updated|effective|revised)\s{0,3}:")  # fmt: skip
_LENIENT = r"(?:updated|revised)(?:\s{1,3}on)?|effective(?:\s{1,3}on)?|version\s{1,3}(?:date|of)"
DATED = re.compile(rf"(?<!\w)(?:{_STRICT})\b\s{{0,3}}[:\-–]?\s{{0,3}}(.{{0,60}})", re.I)
DATE_LINE = re.compile(
    rf"^\W{{0,3}}(?:{_STRICT}|{_LENIENT})\b\s{{0,3}}[:\-–]?\s{{0,3}}(.{{0,60}})", re.I
)


def effective(lines: list[tuple[int, str]], dayfirst: bool | None = None) -> date | None:
    """The date the document says it took effect (its first dating line's date), or None."""
    for _, line in lines:
        m = DATE_LINE.match(line) or DATED.search(line)
        if m and (when := first_date(m.group(1), dayfirst)) is not None:
            return when
    return None
