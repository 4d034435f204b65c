"""Each dispute's typed facts (evidence/dispute_facts.py) as the state keeps them beside its payload,
for the case, the report, the review and the read-back alike; a payload stored before v19 of
the state has none and is read once by the legacy path (evidence/wire.py)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.wire import stored_facts
from dispute_evidence.state.holders import HasDisputes


class FactsParts(HasDisputes, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


FactsReader = Callable[[str, bytes | None], DisputeFacts]  # (dispute, its payload) -> facts


def facts_reader(store: FactsParts, within: Collection[str] | None = None) -> FactsReader:
    """A dispute's typed facts (evidence/dispute_facts.py) as the state keeps them beside its payload;
    a payload stored before v19 has none and is read by the legacy path (evidence/wire.py).
    `within`: the disputes it will be asked about (their facts are loaded at the first ask)."""
    kept: dict[str, bytes] | None = None
    scope = None if within is None else frozenset(within)

    def read(pid: str, payload: bytes | None) -> DisputeFacts:
        nonlocal kept
        if scope is not None and pid not in scope:
            return stored_facts(store.disputes.kept_facts([pid]).get(pid), payload)
        if kept is None:
            kept = store.disputes.kept_facts(scope)
        return stored_facts(kept.get(pid), payload)

    return read


def facts_of(store: FactsParts, payloads: dict[str, bytes]) -> dict[str, DisputeFacts]:
    """The typed facts of each of these stored payloads' disputes (facts_reader)."""
    read = facts_reader(store, payloads)
    return {pid: read(pid, body) for pid, body in payloads.items()}


def facts_lookup(
    store: FactsParts, payloads: dict[str, bytes]
) -> Callable[[str], DisputeFacts | None]:
    """A dispute's facts when it has a stored payload (read at the first ask: facts_reader)."""
    read = facts_reader(store, payloads)
    return lambda pid: read(pid, body) if (body := payloads.get(pid)) else None
