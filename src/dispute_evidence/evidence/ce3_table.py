"""The Visa CE 3.0 table of the letter: the disputed order and the two earlier orders side by
side (date, amount, IP address, device ID, shipping address, customer account ID), so the
reviewer sees the matching values, not our word that they match (issue 36, finding 9).

Pure: the case's CE 3.0 orders (evidence/ce3.py `Prior`) in, rows of words out.
"""

from __future__ import annotations

from collections.abc import Sequence

from dispute_evidence.evidence.ce3 import ELEMENTS, LABELS, Prior
from dispute_evidence.evidence.letter_head import money

NONE = "—"  # an element the export does not give for that order


def _label(key: str) -> str:
    return LABELS[key][0].upper() + LABELS[key][1:]


def ce3_rows(disputed: Prior | None, priors: Sequence[Prior]) -> tuple[tuple[str, ...], ...]:
    """The table: a header row (the orders), then date, amount, each element any of them has
    and what each earlier order matches on; () without the disputed order's own values or two
    priors."""
    if disputed is None or len(priors) < 2:
        return ()
    orders = [disputed, *priors]
    values = [dict(o.values) for o in orders]
    head = (
        "",
        f"Order {disputed.order_number} (disputed)",
        *(f"Earlier order {p.order_number}" for p in priors),
    )
    rows = [
        head,
        ("Date", *(o.date or NONE for o in orders)),
        ("Amount", *(_amount(o) for o in orders)),
    ]
    rows += [
        (_label(key), *(v.get(key) or NONE for v in values))
        for key in ELEMENTS
        if any(v.get(key) for v in values)
    ]  # an element no export gives: no row
    rows.append(
        (
            "Matches the disputed order on",
            NONE,
            *(", ".join(LABELS[m] for m in p.matched) or NONE for p in priors),
        )
    )
    return tuple(rows)


def _amount(o: Prior) -> str:
    if o.amount != o.amount:  # NaN: not known
        return NONE
    return money(o.amount, o.currency or None) or NONE
