"""The case each dispute makes, as the report shows it: its Visa CE 3.0 verdict (kept from the
last build, which alone sees the whole history), whether its letter makes any claim, and the
fight-or-accept advice. Columns for the dispute table and the lines a person reads about them."""

from __future__ import annotations

import json

import orjson
import pandas as pd

from dispute_evidence.engine.state import StateStore
from dispute_evidence.evidence.ce3 import Ce3, ce3_summary
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.problems import Problem, ProblemKind

CE3_META = "ce3_verdicts"
NO_CLAIMS = "no claims: nothing in your exports answers this dispute's reason"


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
    """Columns visa_ce3 ("qualifies: prior orders …" or "does not qualify: why", fraud only)
    and letter (how many claims the rebuttal letter makes, or that it makes none)."""
    kept = json.loads(store.get_meta(CE3_META) or "{}")
    table["visa_ce3"] = table["provider_dispute_id"].map(lambda p: kept.get(p, [""])[0])
    payloads, names = store.payloads(), store.file_names()
    letters = []
    for pid in table["provider_dispute_id"]:
        body = payloads.get(pid)
        if body is None:
            letters.append("")
            continue
        attached = sorted(
            n for n in names.get(pid, []) if not n.startswith(f"{pid}-evidence-summary")
        )
        letter = build_letter(orjson.loads(body), attached)
        n = len(letter.sentences)
        letters.append(f"{n} claim{'s' * (n != 1)} ({letter.family})" if n else NO_CLAIMS)
    table["letter"] = letters


def case_problems(table: pd.DataFrame, store: StateStore) -> list[Problem]:
    """The CE 3.0 summary line (the share of fraud disputes that could have qualified), and a
    line per open dispute whose letter makes no claim."""
    listed = set(table["provider_dispute_id"])
    verdicts = {p: v for p, v in _kept_ce3(store).items() if p in listed}
    line = ce3_summary(verdicts)
    out = [Problem(ProblemKind.CASE_CE3, "fraud disputes", line)] if line else []
    open_ = table["status"].isin(("pending", "submitted"))
    if "letter" in table:
        for pid in table.loc[open_ & (table["letter"] == NO_CLAIMS), "provider_dispute_id"]:
            out.append(Problem(ProblemKind.CASE_NO_CLAIMS, str(pid), NO_CLAIMS, dispute=str(pid)))
    return out
