"""Headers that almost name a column the recognised layout reads ("did you mean"): a column
ignored without a word is data lost silently (a refunds log's `Refund Amount` beside the
payments layout's `Amount Refunded`), so each gets one line until it is renamed or mapped."""

from __future__ import annotations

import re

from dispute_evidence.ingest.layouts import Mapping, norm_header
from dispute_evidence.ingest.tables import Reject

# How the line starts: ingest's callers tell it from a row problem by this (engine/prepare/build.py)
NEAR_HEADER = "not read: did you mean"
MIN_CHARS = 4  # "id" is one edit from many short headers: too short to suggest anything


def one_edit_apart(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance 1: one deletion, insertion, replacement or swap of
    neighbouring characters."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    i = next((k for k, ch in enumerate(short) if ch != long[k]), len(short))
    return short[i:] == long[i + 1 :]


def _words(text: str) -> frozenset[str]:
    """A header's words, a past tense or plural cut ("Refunded" is "refund")."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace("_", " "))
    return frozenset(re.sub(r"(?<=[a-z]{3})(ed|s)$", "", w) for w in words)


def near(header: str, known: str) -> bool:
    """`header` looks meant for `known`: one edit apart once normalised (`Amount Refundd`), or
    the same two or more words in another order (`Refund Amount` for `Amount Refunded`)."""
    a, b = norm_header(header), norm_header(known)
    if min(len(a), len(b)) < MIN_CHARS or a == b:
        return False
    return one_edit_apart(a, b) or (len(_words(known)) > 1 and _words(header) == _words(known))


def near_miss_headers(
    cells: list[object],
    mapping: Mapping,
    found: dict[str, tuple[int, ...]],
    file: str,
    sheet: str | None,
) -> list[Reject]:
    """One line per header the mapping leaves unread that is near a column it reads but did
    not find: the column is ignored until renamed or mapped."""
    used = {p for ps in found.values() for p in ps}
    names = {norm_header(n) for ns in mapping.columns.values() for n in ns}
    missing = [(f, ns) for f, ns in mapping.columns.items() if f not in found]
    out = []
    for pos, cell in enumerate(cells):
        header = str(cell).strip()
        if pos in used or not header or norm_header(header) in names:
            continue
        hits = [(f, n) for f, ns in missing for n in ns if near(header, n)]
        if not hits:
            continue
        fld, name = hits[0]
        shown = f"'{name}'" + (f" ({fld})" if norm_header(name) != norm_header(fld) else "")
        out.append(
            Reject(
                file,
                sheet,
                None,
                header,
                None,
                f"{NEAR_HEADER} {shown}? This column is ignored until its header is renamed "
                f"to that, or it is mapped in the config (README, 'Your own sheets'); then drop "
                "the file again",
            )
        )
    return out
