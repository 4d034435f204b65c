"""The case each dispute makes, as the report shows it: its Visa CE 3.0 verdict (kept from the
last build, which alone sees the whole history), whether its letter makes any claim, and the
fight-or-accept advice. Columns for the dispute table and the lines a person reads about them."""

from __future__ import annotations

import json

import pandas as pd

from dispute_evidence.engine.state import StateStore
from dispute_evidence.evidence.ce3 import Ce3, ce3_summary
from dispute_evidence.problems import Problem, ProblemKind

CE3_META = "ce3_verdicts"


def keep_ce3(store: StateStore, verdicts: dict[str, Ce3]) -> None:
    """Every fraud dispute's CE 3.0 verdict from this build (replacing the last build's)."""
    kept = {pid: [v.text, v.qualifies, v.with_ip_or_device] for pid, v in sorted(verdicts.items())}
    store.set_meta(CE3_META, json.dumps(kept))


def _kept_ce3(store: StateStore) -> dict[str, Ce3]:
    raw = json.loads(store.get_meta(CE3_META) or "{}")
    return {
        pid: Ce3(bool(ok), "" if ok else text.removeprefix("does not qualify: "), (), bool(could))
        for pid, (text, ok, could) in raw.items()
    }


def add_case_columns(table: pd.DataFrame, store: StateStore) -> None:
    """Column visa_ce3: "qualifies: prior orders …" or "does not qualify: why" (fraud only)."""
    kept = json.loads(store.get_meta(CE3_META) or "{}")
    table["visa_ce3"] = table["provider_dispute_id"].map(lambda p: kept.get(p, [""])[0])


def case_problems(table: pd.DataFrame, store: StateStore) -> list[Problem]:
    """The CE 3.0 summary line (the share of fraud disputes that could have qualified)."""
    listed = set(table["provider_dispute_id"])
    verdicts = {p: v for p, v in _kept_ce3(store).items() if p in listed}
    line = ce3_summary(verdicts)
    return [Problem(ProblemKind.CASE_CE3, "fraud disputes", line)] if line else []
