"""When a header looks meant for a column: one edit apart once normalised, or the same words in
another order. Pure text, used by "did you mean" lines and by the layout choice."""

from __future__ import annotations

import re

from dispute_evidence.ingest.layouts import norm_header

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
