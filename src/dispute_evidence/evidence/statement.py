"""The merchant's statement for each dispute: what the merchant wants the issuer's reviewer to
read, in their own words (why no refund is owed, that no cancellation came before the charge,
why two charges differ, what happened to a return request).

Two sources: a statement file (`1036 statement.txt`, ingest/statements.py: records of kind
`statements`, keyed by the name's order number or dispute id) and the disputes list's
`Statement` column. The file wins; of several files, the latest read wins (a new version
replaces). A notes column is never read: it is the analyst's, not the reviewer's.

The facts carry it as a `Statement` (evidence/dispute_facts.py); the letter quotes it under its own
heading, never as a fact the exports show. Pure: records in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

import pandas as pd

from dispute_evidence.evidence.dispute_facts import Statement

FROM_FILE, FROM_LIST = "statement file", "disputes list"


def _latest_files(statements: pd.DataFrame | None) -> dict[str, str]:
    """{order number or dispute id: the text of the latest statement file naming it}."""
    if statements is None or statements.empty:
        return {}
    rows = statements.loc[statements["statement"].astype(str) != ""]
    if "_seq" in rows:
        rows = rows.sort_values(["_seq", "_row"], kind="stable")
    out: dict[str, str] = {}
    for pid, order, text in zip(
        rows["provider_dispute_id"].astype(str),
        rows["order_number"].astype(str),
        rows["statement"].astype(str),
        strict=True,
    ):
        out.pop(pid, None)  # re-inserted: the latest file goes last
        out[pid] = text
        if order:
            out.pop(f"order:{order}", None)
            out[f"order:{order}"] = text
    return out


def statements_by_dispute(
    disputes: pd.DataFrame, statements: pd.DataFrame | None
) -> dict[str, Statement]:
    """{provider_dispute_id: its statement} for each dispute that has a statement: a file
    named for the dispute or its order (the later read of the two when both), else the
    disputes list's own column (`disputes`: one current row per dispute)."""
    files = _latest_files(statements)
    column = disputes.get("statement")
    if not files and (column is None or not column.astype(str).str.strip().any()):
        return {}
    place = {k: i for i, k in enumerate(files)}  # ingest order: the later of two keys wins
    out: dict[str, Statement] = {}
    said = column.astype(str) if column is not None else pd.Series("", index=disputes.index)
    for pid, number, text in zip(
        disputes["provider_dispute_id"].astype(str),
        disputes["order_number"].astype(str),
        said,
        strict=True,
    ):
        named = [k for k in (pid, f"order:{number}") if k in files]
        if named:
            latest = max(named, key=place.__getitem__)
            out[pid] = Statement(files[latest], FROM_FILE)
        elif text.strip():
            out[pid] = Statement(text.strip(), FROM_LIST)
    return out


_DENIES_REFUND = re.compile(
    r"\b(?:(?:did not|didn't|have not|haven't|has not|hasn't|never|not) (?:ever )?(?:issued?|give|"
    r"given|gave|make|made|process(?:ed)?|send|sent) (?:a |any |the )?(?:refund|credit)|"
    r"no (?:refund|credit) (?:was|has been|had been|is|was ever) (?:ever )?(?:issued|given|made|"
    r"processed|sent)|(?:was|has been|were) (?:never|not) refunded|never refunded)\b",
    re.I,
)


def denies_refund(text: str) -> bool:
    """Whether the merchant's statement says no refund was ever given."""
    return bool(_DENIES_REFUND.search(" ".join(text.split())))


_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")


def others_addresses(statement: str, own: Iterable[str], website: str = "") -> list[str]:
    """The e-mail addresses a statement names that are neither this order's customer's (`own`)
    nor the merchant's (its website's domain): another customer's, as far as we can tell."""
    mine = {a.strip().lower() for a in own if a and a.strip()}
    host = (urlsplit(website if "//" in website else f"//{website}").hostname or "").lower()
    shop = host.removeprefix("www.")
    found = dict.fromkeys(m.group(0).rstrip(".").lower() for m in _EMAIL.finditer(statement))
    return [
        a for a in found if a not in mine and not (shop and a.endswith(("@" + shop, "." + shop)))
    ]


def unclaimed_statements(
    disputes: pd.DataFrame, statements: pd.DataFrame | None
) -> list[tuple[str, str]]:
    """(file, the order number or dispute id its name gives) of each statement file naming no
    dispute of the disputes list as read (a row refused for a bad cell is not in it): it goes
    nowhere, and the analyst is told (issue 45, item 11)."""
    if statements is None or statements.empty:
        return []
    known = set(disputes["provider_dispute_id"].astype(str))
    known |= {o.lstrip("#") for o in disputes["order_number"].astype(str)}
    out: dict[tuple[str, str], None] = {}
    for file, key in zip(
        statements["_file"].astype(str), statements["provider_dispute_id"].astype(str), strict=True
    ):
        if key and key not in known and key.lstrip("#") not in known:  # "#1041" is 1041
            out[(file, key)] = None
    return list(out)
