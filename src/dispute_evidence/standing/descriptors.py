"""The standing per statement descriptor (issue 46 item 5; ../shared/spec/monitoring-programs.md,
"Who is measured"): Visa identifies a merchant per descriptor, the name on the cardholder's
statement, and may aggregate several accounts or descriptors. Where the payments export carries
it (Stripe's `Statement Descriptor`), each month's figures are given for each descriptor alone
and for every one together (`all`); where it carries one descriptor or none, the figures are
for all the merchant's sales together, and a note says which.

A charge's descriptor is compared as exported, spaces around and within it collapsed. A dispute
or fraud report takes its charge's descriptor; one whose charge the payments export does not
hold counts in `all` only. Pure: counts in, rows and words out."""

from __future__ import annotations

import numpy as np
import pandas as pd

EVERY = "all"  # the descriptor cell of the figures for every descriptor together
SHOWN = 5  # descriptors named in a note; the rest counted


def descriptor_of(text: pd.Series) -> pd.Series:
    """Each charge's statement descriptor as exported, spaces collapsed ('' when none): worked
    out once per distinct value (a handful), then spread by their codes (half a million
    charges through a regex cost half a second)."""
    codes, distinct = pd.factorize(text.fillna("").astype(str))
    if len(distinct) == 0 or (len(distinct) == 1 and not str(distinct[0]).strip()):
        return pd.Series("", index=text.index, dtype=object)
    cleaned = pd.Series(distinct, dtype=object).astype(str).str.strip()
    cleaned = cleaned.str.replace(r"\s+", " ", regex=True).to_numpy(dtype=object)
    return pd.Series(np.append(cleaned, "")[codes], index=text.index, dtype=object)


def descriptors(*parts: pd.DataFrame) -> list[str]:
    """The descriptors the parts' `descriptor` columns name, in order ('' left out)."""
    named: set[str] = set()
    for part in parts:
        if "descriptor" in part:
            named |= set(part["descriptor"].fillna("").astype(str))
    return sorted(named - {""})


def of_descriptor(part: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows of `part` (transactions counted, disputes, fraud reports) under `name`."""
    if "descriptor" not in part:
        return part.iloc[0:0]
    return part.loc[part["descriptor"].fillna("").astype(str) == name]


def descriptor_note(names: list[str], tx: pd.DataFrame, by_brand: bool) -> str:
    """Who the figures measure: per descriptor and in all, or all the sales together."""
    if not by_brand:
        return (
            "who is measured: all your sales together (no payments export, so no statement "
            "descriptor); Visa identifies a merchant per descriptor"
        )
    if not names:
        return (
            "who is measured: all your sales together: your payments export carries no "
            "statement descriptor; Visa identifies a merchant per descriptor and may "
            "aggregate several: ask your acquirer which it counts"
        )
    more = len(names) - SHOWN
    shown = ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")
    none = 0
    if "descriptor" in tx:
        none = int(tx.loc[tx["descriptor"].fillna("") == "", "transactions"].sum())
    without = ""
    if none:
        without = (
            f"; {none:,} settled charges carry no descriptor: they count only in the rows "
            "for all descriptors"
        )
    if len(names) == 1:
        return (
            f"who is measured: one statement descriptor, {shown}: the figures are its"
            f"{without}; Visa identifies a merchant per descriptor"
        )
    return (
        f"who is measured: {len(names)} statement descriptors ({shown}): each month's figures "
        "for each alone and for all of them together (descriptor 'all'); Visa identifies a "
        f"merchant per descriptor and may aggregate several: ask your acquirer which it "
        f"counts{without}"
    )
