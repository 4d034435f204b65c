"""The analyst's stance on a message the product could not read with certainty (issue 44 item
2): supports, concedes or leave out. Until one is chosen the message is neither argued nor
conceded, and its dispute waits for approval with the message and the product's reading in the
report's Contradictions column ("message to confirm").

A choice is kept in the state (one meta entry, no schema change) by dispute and message key
(evidence/stance.py's message_key: from the message's words, so a re-dropped or renamed file
keeps it); the case, the letter and the generated PDF read it (`with_choices`), so choosing
rebuilds the letter at the next run, and a dispute with nothing left to confirm is released.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Protocol

import orjson

from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.stance import CHOICES, message_key
from dispute_evidence.state.holders import HasKept, HasRuns


class StancesParts(HasKept, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


META = "stance_choices"  # {dispute: {message key: "supports" | "concedes" | "leave out"}}
Choices = dict[str, tuple[tuple[str, str], ...]]


def chosen(store: StancesParts, pids: Collection[str] | None = None) -> Choices:
    """{dispute: ((message key, choice), ...)} as kept (only `pids`' when given)."""
    kept = orjson.loads(store.runs.get_meta(META) or "{}")
    return {
        pid: tuple(sorted(picks.items()))
        for pid, picks in kept.items()
        if pids is None or pid in pids
    }


def with_choices(
    facts: DisputeFacts, picks: tuple[tuple[str, str], ...], opened_at_api: str = ""
) -> DisputeFacts:
    """The facts with the analyst's choices, which the case's readings follow, and the day the
    API says the dispute opened when the disputes list does not say (a credit before it is the
    letter's answer: evidence/credit_lead.py)."""
    if opened_at_api and not facts.claim.opened_on:
        facts = replace(facts, claim=replace(facts.claim, opened_on=opened_at_api))
    return replace(facts, stance_choices=picks) if picks else facts


def opened_at_api(store: StancesParts, pids: Collection[str] | None = None) -> dict[str, str]:
    """{dispute: the day the API says it opened} of the disputes read back so far."""
    views = store.kept.api_views(None if pids is None else set(pids))
    return {pid: v.opened_on for pid, v in views.items() if v.opened_on}


def choice_word(given: str) -> str | None:
    """ "supports", "concedes" or "leave out" ("leave-out" too), None for anything else."""
    word = given.strip().lower().replace("-", " ").replace("_", " ")
    return word if word in CHOICES else None


def message_keys(case: CaseFacts) -> dict[str, str]:
    """{message key: its words} of the customer's messages in the case."""
    return {
        message_key(m.quote.text): m.quote.text for _d, m, st in case.stances() if not st.merchant
    }


def to_confirm(case: CaseFacts) -> list[str]:
    """The keys of the messages whose reading waits for the analyst."""
    return [message_key(m.quote.text) for _d, m, st in case.stances() if st.to_confirm]


def record_choice(store: StancesParts, pid: str, key: str, choice: str) -> None:
    """Keep the analyst's choice for one message of one dispute (a later choice replaces it)."""
    kept = orjson.loads(store.runs.get_meta(META) or "{}")
    kept.setdefault(pid, {})[key] = choice
    store.runs.set_meta(META, orjson.dumps(kept, option=orjson.OPT_SORT_KEYS).decode())
