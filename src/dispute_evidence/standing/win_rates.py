"""What wins for this merchant: per dispute reason, the win rate of the disputes whose letter
used an argument point or exhibit kind, and of those whose letter did not, each with its 95%
Wilson interval; under MIN_OUTCOMES decided disputes a cell says "too few outcomes" instead.

A point is an argument the letter made (evidence/letter.py: which of its arguments said
something); an exhibit is the kind of a document the letter names (documents/kinds.py). Rates
are associations, not causes: a signed proof of delivery goes with parcels that arrived.
Pure: (reason, points, won) in, a table out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from dispute_evidence.documents.kinds import LABELS
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.letter import letter_for

MIN_OUTCOMES = 10  # decided disputes before a rate is shown
Z = 1.959964  # the normal quantile of a two-sided 95% interval
TOO_FEW = "too few outcomes"
EXHIBIT = "exhibit:"  # + a document kind
ALL = "all reasons"
POINTS = {
    "signed_pod": "signed proof of delivery quoted",
    "pod": "proof of delivery quoted (no signature)",
    "carrier_delivery": "carrier's delivery record",
    "avs_delivery": "delivered to the AVS-verified billing address",
    "admission": "customer's own words quoted",
    "ce3": "Visa CE 3.0 (earlier undisputed orders)",
    "policy": "store policy quoted",
    "card_checks": "card checks passed (AVS, CVC)",
    "tracking": "shipment and tracking number",
    "same_address": "billing address is the shipping address",
    "customer": "checkout identity (name, email, IP, device)",
    "refund": "refund stated",
    "charges": "the order's charges set out",
    "descriptions": "the charge's description",
}
# the letter's arguments (evidence/letter.py's _Facts methods) as points; delivery is split
_MADE = {
    "messages": "admission",
    "delivered_to_verified_address": "avs_delivery",
    "ce3": "ce3",
    "policy": "policy",
    "card_checks": "card_checks",
    "shipped": "tracking",
    "same_address": "same_address",
    "customer": "customer",
    "refund": "refund",
    "distinct_charges": "charges",
    "charge_list": "charges",
    "descriptions": "descriptions",
}
COLUMNS = [
    "reason",
    "point or exhibit",
    "with: won",
    "with: lost",
    "with: win rate (95% interval)",
    "without: won",
    "without: lost",
    "without: win rate (95% interval)",
]


def letter_points(case: CaseFacts) -> frozenset[str]:
    """The points the case's letter argues and the kinds of the documents it names."""
    letter = letter_for(case)
    out = {_MADE[m] for m in letter.made if m in _MADE}
    if {"delivery", "proof_of_delivery"} & set(letter.made):
        d = case.delivery
        quoted = "signed_pod" if d.signed_by else "pod"
        out.add(quoted if d.source == "files" else "carrier_delivery")
    named = set(letter.documents)
    out |= {EXHIBIT + doc.kind for doc in case.documents if doc.name in named}
    return frozenset(out)


def label(point: str) -> str:
    if point.startswith(EXHIBIT):
        kind = point.removeprefix(EXHIBIT)
        return f"exhibit: {LABELS.get(kind, kind)}"
    return POINTS.get(point, point)


def wilson(won: int, n: int, z: float = Z) -> tuple[float, float]:
    """The Wilson score interval of won / n (n > 0)."""
    p = won / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_words(won: int, lost: int) -> str:
    """'62% (48-75%)', or 'too few outcomes (6)' under MIN_OUTCOMES decided."""
    n = won + lost
    if n < MIN_OUTCOMES:
        return f"{TOO_FEW} ({n})"
    low, high = wilson(won, n)
    return f"{won / n:.0%} ({low:.0%}-{high:.0%})"


def _order(point: str) -> tuple[int, str]:
    keys = list(POINTS)
    return (keys.index(point), "") if point in keys else (len(keys), point)


def wins_table(decided: Iterable[tuple[str, frozenset[str], bool]]) -> pd.DataFrame:
    """Per reason (and all reasons), per point or exhibit its letters used: won and lost with
    it and without it, and the rates. `decided`: (reason, points, won?) per dispute decided."""
    frame = pd.DataFrame(list(decided), columns=["reason", "points", "won"])
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    frame["reason"] = frame["reason"].fillna("").replace("", "unknown")
    groups = [(ALL, frame), *frame.groupby("reason", sort=True)]
    rows = []
    for reason, group in groups:
        seen = sorted(set().union(*group["points"]), key=_order)
        for point in seen:
            has = group["points"].map(lambda p, k=point: k in p)
            rows.append(
                [
                    str(reason),
                    label(point),
                    *_cells(group.loc[has, "won"]),
                    *_cells(group.loc[~has, "won"]),
                ]
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def _cells(won: pd.Series) -> list[object]:
    w, n = int(won.sum()), len(won)
    return [w, n - w, rate_words(w, n - w)]
