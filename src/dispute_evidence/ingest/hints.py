"""Why no layout fits a sheet, told against the layout that fits best, with a mapping that
works when followed: it names a column for every field the layout needs (a custom mapping
reads only the columns it lists), Shopify's own words included (`Name` is its order number)."""

from __future__ import annotations

import re

from dispute_evidence.ingest.choice import near_layout
from dispute_evidence.ingest.layouts import CANONICAL, PRESETS, Mapping, norm_header
from dispute_evidence.ingest.readers import Grid


def closest_miss(grid: Grid, custom: tuple[Mapping, ...]) -> str:
    """Why no layout fits, told against the layout that came closest (custom, preset or
    canonical): which required columns it lacks, which it recognised, which header may be
    meant for each missing one, and the mapping to add."""
    if grid.preview.empty:
        return "the sheet is empty."
    texts = [str(t).strip() for t in grid.preview.iloc[0].tolist() if norm_header(t)]
    headers = {norm_header(t): p for p, t in enumerate(texts)}

    def fit(m: Mapping) -> tuple[int, int, int]:  # required present, then guessed, fewest missing
        missing = m.missing_required(headers)
        return (
            len(m.required()) - len(missing),
            len(guess_headers(m, missing, texts)),
            -len(missing),
        )

    own = [p for p in PRESETS if p.signature <= headers.keys()]  # an export's own headers
    best = near_layout(headers, texts) or max((*custom, *own, *CANONICAL), key=fit)
    missing = best.missing_required(headers)
    read = {
        f: [texts[headers[norm_header(n)]] for n in names if norm_header(n) in headers]
        for f, names in best.columns.items()
    }
    read = {f: hs[:1] if f in best.alternatives else hs for f, hs in read.items() if hs}
    unread = [t for t in texts if all(t not in hs for hs in read.values())]
    guesses = guess_headers(best, missing, unread)
    wanted = [f for f in best.columns if f in best.wanted and f not in read]  # (a price column)
    extra = guess_headers(best, wanted, [t for t in unread if t not in guesses.values()])
    hint = ", ".join(f"{h!r} for {f}" for f, h in guesses.items())
    seen = f"recognised: {', '.join(sorted(read)) or 'none'}" + (
        f"; did you mean {hint}?" if hint else ""
    )
    as_what = best.kind + (f" ({best.name})" if not best.name.startswith("canonical") else "")
    return (
        f"no recognised table: as {as_what} it lacks required column(s) {', '.join(missing)} ({seen}). "
        "Rename the headers or add a mapping in config (see README, 'Your own sheets')"
        + _mapping_hint(best, read, {**guesses, **extra}, missing)
    )


def _mapping_hint(
    best: Mapping, read: dict[str, list[str]], guesses: dict[str, str], missing: list[str]
) -> str:
    """': [[ingest.mapping]] kind = …, columns = { … }.' naming a column for every field read
    or guessed; the fields still without one are named, so the mapping is never one that
    cannot work ('.' when nothing was guessed)."""
    if not guesses:
        return "."
    columns = {f: hs[0] if len(hs) == 1 else hs for f, hs in read.items()}
    columns.update(guesses)
    shown = ", ".join(f"{f} = {_toml(v)}" for f, v in columns.items())
    extra = ", order_fields_on_first_row_only = true" if best.forward_fill else ""
    hint = f': [[ingest.mapping]] kind = "{best.kind}", columns = {{ {shown} }}{extra}.'
    if still := [f for f in missing if f not in guesses]:
        hint += f" Then add a column (or a default) for {', '.join(still)}."
    return hint


def _toml(value: str | list[str]) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(_toml(v) for v in value) + "]"


# Words headers use for a canonical field's words ("Order #" is order_number).
_SYNONYMS = {
    "#": "number",
    "no": "number",
    "num": "number",
    "nr": "number",
    "ref": "id",
    "qty": "quantity",
}


def _words(text: str) -> set[str]:
    words = re.findall(r"[a-z]+|#", text.lower().replace("_", " "))
    return {_SYNONYMS.get(w, w) for w in words}


def guess_headers(best: Mapping, fields: list[str], texts: list[str]) -> dict[str, str]:
    """{missing field: the header that most likely holds it}: the header a preset of the same
    kind reads it from (Shopify's `Name` is the order number), else by shared words (`Dispute
    ID` for provider_dispute_id, `Order #` for order_number); each header guessed once."""
    out: dict[str, str] = {}
    by_norm = {norm_header(t): t for t in texts}
    for fld in fields:
        known = [n for m in PRESETS if m.kind == best.kind for n in m.columns.get(fld, ())]
        taken = [by_norm[norm_header(n)] for n in known if norm_header(n) in by_norm]
        if free := [t for t in taken if t not in out.values()]:
            out[fld] = free[0]
            continue
        want = _words(fld)
        scored = [
            (len(want & _words(t)) / len(want | _words(t)), t)
            for t in texts
            if t not in out.values() and len(want & _words(t) - {"id", "number"}) >= 1
        ]
        if scored:
            out[fld] = max(scored)[1]
    return out
