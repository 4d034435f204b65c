"""What wins (standing/win_rates.py), from the disputes won or lost: each one's letter points,
worked out once per payload and documents and kept in the state (table letter_points), since a
decided dispute's letter no longer changes and a year of them rebuilt every night would be
the report's largest cost."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Protocol

import pandas as pd

from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.policies import outcome
from dispute_evidence.standing.win_rates import letter_points, wins_table
from dispute_evidence.state.holders import HasDisputes, HasKept
from dispute_evidence.state.kept import KeptKinds


class WinsParts(HasDisputes, HasKept, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


def what_wins(
    store: WinsParts,
    table: pd.DataFrame,
    payloads: dict[str, bytes],
    case: Callable[[str], CaseFacts | None],
) -> pd.DataFrame:
    """Per reason, the win rate with and without each point and exhibit its letters used,
    over every dispute the API shows won or lost (`case`: a dispute's case, with documents)."""
    if table.empty or "api_status" not in table:
        return wins_table([])
    results = table["api_status"].map(outcome)
    decided = table.loc[results.isin(("won", "lost"))]
    pids = decided["provider_dispute_id"].astype(str).tolist()
    points = remembered_points(store, pids, payloads, case)
    reasons = decided["reason"] if "reason" in decided else pd.Series("", index=decided.index)
    won = results.loc[decided.index] == "won"
    return wins_table(
        (str(r or ""), points[p], bool(w))
        for p, r, w in zip(pids, reasons.fillna(""), won, strict=True)
        if p in points
    )


def remembered_points(
    store: WinsParts,
    pids: Iterable[str],
    payloads: dict[str, bytes],
    case: Callable[[str], CaseFacts | None],
) -> dict[str, frozenset[str]]:
    """Each dispute's letter points, kept per payload and documents (a new file, or a
    changed payload, works them out again)."""
    pids = list(pids)
    kept, documents = store.kept.letter_points(), store.disputes.evidence_documents(pids)
    out, changed = {}, {}
    for pid in pids:
        files = sorted(f"{sha}:{kind}" for _, sha, kind in documents.get(pid, []))
        tag = _tag(payloads.get(pid), files)
        if (got := kept.get(pid)) is None or got.payload_tag != tag:
            facts = case(pid)
            if facts is None:
                continue
            got = changed[pid] = KeptKinds(tag, " ".join(sorted(letter_points(facts))))
        out[pid] = frozenset(got.kinds.split())
    store.kept.keep_letter_points(changed)
    return out


def _tag(body: bytes | None, files: list[str]) -> str:
    digest = hashlib.blake2b(body or b"", digest_size=16)
    digest.update("|".join(files).encode())
    return digest.hexdigest()
