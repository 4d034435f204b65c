"""The Visa CE 3.0 table of the letter: the disputed order and the two earlier orders side by
side (date, amount, IP address, device ID, shipping address, customer account ID), so the
reviewer sees the matching values, not our word that they match (issue 36, finding 9).

Pure: the payload's CE 3.0 entries (evidence/ce3.py `Ce3.evidence`) in, rows of words out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dispute_evidence.evidence.ce3 import ELEMENTS, LABELS
from dispute_evidence.evidence.letter_head import money

NONE = "—"  # an element the export does not give for that order


def _label(key: str) -> str:
    return LABELS[key][0].upper() + LABELS[key][1:]


def ce3_rows(
    disputed: Mapping[str, Any], priors: Sequence[Mapping[str, Any]]
) -> tuple[tuple[str, ...], ...]:
    """The table: a header row (the orders), then date, amount, each element any of them has
    and what each earlier order matches on; () without the disputed order's own values or two
    priors."""
    if not disputed or len(priors) < 2:
        return ()
    orders = [disputed, *priors]
    head = ("", f"Order {disputed.get('order_number', '')} (disputed)",
            *(f"Earlier order {p.get('order_number', '')}" for p in priors))  # fmt: skip
    rows = [
        head,
        ("Date", *(str(o.get("date") or NONE) for o in orders)),
        ("Amount", *(money(o.get("amount"), o.get("currency")) or NONE for o in orders)),
    ]
    rows += [
        (_label(key), *(str(o.get(key) or NONE) for o in orders))
        for key in ELEMENTS
        if any(o.get(key) for o in orders)
    ]  # an element no export gives: no row
    rows.append(("Matches the disputed order on", NONE,
                 *(", ".join(p.get("matched") or ()) or NONE for p in priors)))  # fmt: skip
    return tuple(rows)
