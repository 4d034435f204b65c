"""Which layout a header row is read as when it fits more than one, and why.

A refunds log names the charge it refunded (`Payment ID`), a disputes list names its order's
products, a payments export has refund columns: each fits two kinds. The columns that say
what a row *is* decide (a refund amount, a dispute id, a charge amount), never the count of
columns found, and the report says which layout was taken and why (ingest/__init__.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from dispute_evidence.ingest.layouts import CANONICAL, PRESETS, Kind, Mapping, norm_header
from dispute_evidence.ingest.nearness import near

# How the line starts: the engine tells it from a problem by this (engine/prepare/build.py)
READ_AS = "read as"

KIND_WORDS: dict[str, str] = {
    "disputes": "a disputes list",
    "orders": "an orders export",
    "shipments": "a shipments export",
    "payments": "a payments export",
    "refunds": "a refunds log",
    "approvals": "approvals",
    "fraud_warnings": "early fraud warnings",
    "statements": "statements",
    "products": "a products export",
    "activity": "an access or activity log",
}


class Recognised(NamedTuple):
    """The mapping a header row is read with, the positions it found, and (when the row also
    fits another kind) the one line that says which was taken and why ("" otherwise)."""

    mapping: Mapping
    found: dict[str, tuple[int, ...]]
    note: str = ""


@dataclass(frozen=True)
class Rule:
    """A kind that wins over the others a row fits: when the row gives every field of `has`
    and none of `lacks` (as any fitting layout reads them)."""

    kind: Kind
    has: frozenset[str]
    lacks: frozenset[str]
    why: str  # formatted with the headers of `has`


# In order: the first rule that holds decides.
RULES = (
    Rule(
        "disputes",
        frozenset({"provider_dispute_id"}),
        frozenset(),
        "each row names a dispute ({provider_dispute_id}) and its order number joins it to "
        "the order; the columns only {others} has are not read from this sheet (drop that "
        "export too)",
    ),
    Rule(
        "refunds",
        frozenset({"refund_amount"}),
        frozenset({"payment_amount"}),
        "each row gives a refund amount ({refund_amount}) and no charge amount; a payment id "
        "there names the charge refunded, never a disputed charge, and a refund is no sale",
    ),
    Rule(
        "payments",
        frozenset({"payment_id", "payment_amount"}),
        frozenset(),
        "each row gives a charge ({payment_id}) and its amount ({payment_amount}); its refund "
        "columns are that charge's refunds",
    ),
)


def recognise(
    headers: dict[str, int], custom: tuple[Mapping, ...], cells: list[object] | None = None
) -> Recognised | None:
    """The mapping that fits these headers (`cells`: the row as written, for the line): a
    custom one first (the first that fits); else a preset made for this very export (its
    signature headers); else, among the layouts that fit, the kind a rule gives, or the
    layout that reads the most columns."""
    for mapping in custom:
        if (found := mapping.resolve(headers)) is not None:
            return Recognised(mapping, found)
    fits = [(m, f) for m in (*PRESETS, *CANONICAL) if (f := m.resolve(headers)) is not None]
    if not fits:
        return None
    own = [(m, f) for m, f in fits if m.signature]
    if not own and near_layout(headers, cells, fits) is not None:
        return None  # what it is, one typo away: explained (ingest/hints.py), never misread
    best = max(own or fits, key=lambda mf: len(mf[1]))
    if own or len({m.kind for m, _ in fits}) == 1:
        return Recognised(*best, _note(best[0], fits, "its headers are that export's own"))
    given = {fld for _, found in fits for fld in found}
    for rule in RULES:
        ruled = [(m, f) for m, f in fits if m.kind == rule.kind and rule.has <= f.keys()]
        if ruled and not rule.lacks & given:
            mapping, found = max(ruled, key=lambda mf: len(mf[1]))
            shown = {f: _shown(cells, found, f) for f in rule.has}
            others = " or ".join(
                sorted({KIND_WORDS[m.kind] for m, _ in fits} - {KIND_WORDS[rule.kind]})
            )
            why = rule.why.format(**shown, others=others)
            return Recognised(mapping, found, _note(mapping, fits, why))
    return Recognised(*best, _note(best[0], fits, "that layout reads the most of its columns"))


def near_layout(
    headers: dict[str, int],
    cells: Sequence[object] | None,
    fits: list[tuple[Mapping, dict[str, tuple[int, ...]]]] | None = None,
) -> Mapping | None:
    """A canonical layout the rules pick over every layout that fits, missed only by headers
    one edit from its required columns (a refunds log's `Refund Amout`): the sheet is told
    against it, never read as the kind that fits (its payment ids as charges)."""
    if fits is None:
        fits = [(m, f) for m in (*PRESETS, *CANONICAL) if (f := m.resolve(headers)) is not None]
    ruled = {r.kind for r in RULES}  # only a kind the rules weigh is ever set aside (not orders)
    if not fits or any(m.signature or m.kind not in ruled for m, _ in fits):
        return None
    given = {fld for _, found in fits for fld in found}
    used = {p for _, found in fits for ps in found.values() for p in ps}
    texts = [str(c).strip() for p, c in enumerate(cells or ()) if str(c).strip() and p not in used]
    for rule in RULES:
        if rule.lacks & given:
            continue
        if any(m.kind == rule.kind and rule.has <= f.keys() for m, f in fits):
            return None  # a layout that fits comes first
        for m in (c for c in CANONICAL if c.kind == rule.kind):
            missing = m.missing_required(headers)
            nearly = {f for f in missing if any(near(t, n) for t in texts for n in m.columns[f])}
            present = {
                f for f, ns in m.columns.items() if any(norm_header(n) in headers for n in ns)
            }
            if missing and nearly == set(missing) and rule.has <= present | nearly:
                return m
    return None


def _shown(cells: list[object] | None, found: dict[str, tuple[int, ...]], fld: str) -> str:
    """The header as the sheet writes it, quoted (the field's name without the row)."""
    pos = found[fld][0]
    return f"'{str(cells[pos]).strip()}'" if cells is not None and pos < len(cells) else fld


def _note(chosen: Mapping, fits: list[tuple[Mapping, dict[str, tuple[int, ...]]]], why: str) -> str:
    """'read as a refunds log (canonical refunds), not as a payments export: <why>'; "" when
    every layout that fits is of the chosen kind."""
    others = sorted({m.kind for m, _ in fits} - {chosen.kind})
    if not others:
        return ""
    instead = " or ".join(KIND_WORDS[k] for k in others)
    return f"{READ_AS} {KIND_WORDS[chosen.kind]} ({chosen.name}), not as {instead}: {why}"


# How the line starts: the engine tells it from a row problem by this (engine/prepare/build.py)
INCOMPLETE_EXPORT = "an incomplete export:"
_WHAT_IT_HAS = {
    "orders": "its items, quantities, shipping and customer are read, and a dispute on one of "
    "its orders waits for the prices of its lines",
}


def incomplete_export(mapping: Mapping, found: dict[str, tuple[int, ...]]) -> str:
    """One line for an export that lacks columns it has when exported whole ('' otherwise):
    what it is, which columns, what to do, and what is read until then."""
    lacking = [
        f
        for f in mapping.columns
        if f in mapping.wanted and f not in found and f not in mapping.defaults
    ]
    if not lacking:
        return ""
    headers = ", ".join(f"'{mapping.columns[f][0]}'" for f in lacking if f in mapping.columns)
    until = _WHAT_IT_HAS.get(mapping.kind, "what it has is read")
    return (
        f"{INCOMPLETE_EXPORT} this is the {mapping.name} without its {headers} column(s); "
        f"export it again with all its columns and drop it into the inbox. Until then {until}"
    )
