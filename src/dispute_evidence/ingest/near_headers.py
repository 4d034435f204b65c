"""Headers that almost name a column the recognised layout reads ("did you mean"): a column
ignored without a word is data lost silently (a refunds log's `Refund Amount` beside the
payments layout's `Amount Refunded`), so each gets one line until it is renamed or mapped."""

from __future__ import annotations

from dispute_evidence.ingest.layouts import Mapping, norm_header
from dispute_evidence.ingest.nearness import near
from dispute_evidence.ingest.tables import Reject

# How the line starts: ingest's callers tell it from a row problem by this (engine/prepare/build.py)
NEAR_HEADER = "not read: did you mean"


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
