"""Outcomes and win rates of the disputes we sent evidence for, from the statuses read back.

One row per (dimension, value): won, lost, still open, and the win rate (won / decided).
Dimensions: the dispute reason, the completeness verdict, and kinds of evidence (tracking
given, delivery confirmed, AVS match, files attached), so a team sees which evidence wins.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from dispute_evidence.engine.prepare.kept_facts import facts_lookup
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.completeness import ITEMS
from dispute_evidence.evidence.dispute_facts import DisputeFacts, OrderFacts
from dispute_evidence.policies import outcome
from dispute_evidence.state.holders import HasDisputes, HasKept
from dispute_evidence.state.kept import KeptKinds
from dispute_evidence.states import VerdictKind, VerdictLine


class OutcomesParts(HasDisputes, HasKept, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


if TYPE_CHECKING:
    pass

COLUMNS = ["dimension", "value", "won", "lost", "open", "win rate"]


# how the outcomes group verdicts: no verdict counts with the missing ones
VERDICT_GROUP = {
    VerdictKind.COMPLETE: "complete",
    VerdictKind.WEAK: "weak",
    VerdictKind.MISSING: "missing something",
    VerdictKind.UNKNOWN: "missing something",
}
KINDS = {"tracking given": "tracking", "delivery confirmed": "delivered", "AVS match": "avs_match"}


def evidence_kinds(facts: DisputeFacts | None) -> str:
    """Which of KINDS a dispute's case shows, as 'y'/'n' in KINDS' order."""
    case = build_case(facts or DisputeFacts(OrderFacts("")))
    return "".join("y" if ITEMS[key].present(case) else "n" for key in KINDS.values())


def remembered_kinds(
    store: OutcomesParts, pids: Iterable[str], payloads: dict[str, bytes]
) -> dict[str, str]:
    """evidence_kinds of each dispute, worked out once per payload and kept in the state: a
    closed dispute's never changes, and a year of them made every night's report slow."""
    kept = store.kept.evidence_kinds()
    facts = facts_lookup(store, payloads)
    out, changed = {}, {}
    for pid in pids:
        body = payloads.get(pid)
        tag = hashlib.blake2b(body or b"", digest_size=8).hexdigest()
        if (got := kept.get(pid)) is None or got.payload_tag != tag:
            got = changed[pid] = KeptKinds(tag, evidence_kinds(facts(pid)))
        out[pid] = got.kinds
    store.kept.keep_evidence_kinds(changed)
    return out


def kinds_now(
    store: OutcomesParts, pids: Iterable[str], payloads: dict[str, bytes]
) -> dict[str, str]:
    """evidence_kinds of each dispute, worked out now and not kept (a read-only command)."""
    facts = facts_lookup(store, payloads)
    return {pid: evidence_kinds(facts(pid)) for pid in pids}


def outcomes_table(table: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """Win rates by reason, verdict and evidence kind, over the disputes known at the API
    (`kinds`: each dispute's evidence_kinds, when the caller remembers them)."""
    if table.empty or "api_status" not in table:
        return pd.DataFrame(columns=COLUMNS)
    sent = table.loc[table["dispute_id"].notna() & (table["dispute_id"] != "")].copy()
    if sent.empty:
        return pd.DataFrame(columns=COLUMNS)
    sent["outcome"] = sent["api_status"].map(outcome)
    shown = [kinds.get(pid) or evidence_kinds(None) for pid in sent["provider_dispute_id"]]
    for i, label in enumerate(KINDS):  # "not shown": failed, or no export says (no payments
        # row: no AVS result at all), never read as a failed check
        sent[label] = ["shown" if k[i] == "y" else "not shown" for k in shown]
    sent["files attached"] = (sent.get("files_total", 0) > 0).map({True: "yes", False: "no"})
    reason = sent["reason"] if "reason" in sent else pd.Series("", index=sent.index)
    sent["reason "] = reason.fillna("").replace("", "unknown")
    verdict = sent["completeness"] if "completeness" in sent else pd.Series("", index=sent.index)
    sent["evidence verdict"] = verdict.map(lambda v: VERDICT_GROUP[VerdictLine.parse(v).kind])
    rows = [_row("all", "all", sent)]
    for dim in ("reason ", "evidence verdict", *KINDS, "files attached"):
        for value, group in sent.groupby(dim, sort=True):
            rows.append(_row(dim.strip(), str(value), group))
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(dimension: str, value: str, group: pd.DataFrame) -> list[Any]:
    won = int((group["outcome"] == "won").sum())
    lost = int((group["outcome"] == "lost").sum())
    still = int((group["outcome"] == "open").sum())
    rate = f"{won / (won + lost):.0%}" if won + lost else ""
    return [dimension, value, won, lost, still, rate]
