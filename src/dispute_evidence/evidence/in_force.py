"""Store documents: the store's own policies and terms (the inbox's store/ folder), dropped once
and attached to every dispute whose reason needs their kind, in the version in force at the
order's date.

A document is known by its name under store/; each content dropped under that name is a version
of it. A version is in force from the date it says it took effect ("Last updated: 1 October
2025"), else from the day it was first seen; an order argues the latest version in force at its
date. An order older than every version gets the oldest one when that one states no date (it
was the store's policy before it was dropped, as far as anyone can tell), and none when it
states a later date than the order's (it was not the policy then).

Pure: versions and disputes in, attachments out. engine/prepare/storedocs_intake.py reads the
folder, keeps the versions and registers the files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from dispute_evidence.documents import kinds as K
from dispute_evidence.evidence.completeness import REASONS, kinds_needed

STORE_MATCH = "store "  # how an attached store document's `matched` words begin


@dataclass(frozen=True)
class StoreVersion:
    """One version of one store document."""

    name: str  # its name under store/ ("refund policy.pdf", "policies/terms.pdf")
    sha256: str
    kind: str  # documents.kinds.*
    effective: date | None  # the date it says it took effect
    dropped: date  # the day it was first seen
    path: str  # the stored copy it is uploaded from
    size: int
    mime: str
    mtime: int = 0  # the file's modification time when last seen (epoch seconds; 0: unknown)
    current: bool = False  # the content of the file in store/ now (it replaced the others)

    @property
    def since(self) -> date:
        """The day it is in force from."""
        return self.effective or self.dropped

    def words(self) -> str:
        """How a dispute's row names it: 'store policy: refund policy.pdf, version of 2025-10-01'."""
        what = (
            "policy"
            if self.kind == K.POLICY
            else f"document ({K.LABELS.get(self.kind, self.kind)})"
        )
        when = (
            f"version of {self.effective.isoformat()}"
            if self.effective
            else f"version dropped {self.dropped.isoformat()}"
        )
        return f"{STORE_MATCH}{what}: {self.name}, {when}"


@dataclass(frozen=True)
class Order:
    """What decides a dispute's store documents: its reason and its order's date."""

    reason: str
    ordered: date | None  # None: not known (the newest version is argued)


def in_force(versions: Iterable[StoreVersion], ordered: date | None) -> StoreVersion | None:
    """The version of one document in force on `ordered` (see the module's rules)."""
    ordered_versions = sorted(versions, key=lambda v: (v.since, v.dropped, v.current, v.mtime))
    if not ordered_versions:
        return None
    if ordered is None:
        return ordered_versions[-1]
    started = [v for v in ordered_versions if v.since <= ordered]
    if started:
        return started[-1]
    oldest = ordered_versions[0]
    return oldest if oldest.effective is None else None


def attach(
    disputes: Mapping[str, Order], versions: Iterable[StoreVersion]
) -> dict[str, list[StoreVersion]]:
    """{dispute: the store documents it gets}: of each document, the version in force at its
    order's date, when its reason needs that version's kind."""
    by_name: dict[str, list[StoreVersion]] = {}
    for v in versions:
        if v.kind == K.POLICY:  # one order's or one customer's document is never spread
            by_name.setdefault(v.name, []).append(v)
    out: dict[str, list[StoreVersion]] = {}
    for pid, order in disputes.items():
        wanted = kinds_needed(order.reason)
        for name in sorted(by_name):
            chosen = in_force(by_name[name], order.ordered)
            if chosen is not None and chosen.kind in wanted:
                out.setdefault(pid, []).append(chosen)
    return out


def needed_by_some_reason(kind: str) -> bool:
    """Whether any dispute reason asks for a document of this kind."""
    return any(kind in kinds_needed(reason) for reason in REASONS)
