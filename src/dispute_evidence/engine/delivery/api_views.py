"""The API's own view of each dispute (reason, amount, currency, when it opened) against the
disputes list's (finding 5 of issue 27): delivery's, compared when the API answers, from the
disputes list's view kept in each dispute's facts (evidence/views.py sheet_view), never by
building the case again (issue 47.1b). What the case shows of the API's view is prepare's
(engine/prepare/case.py api_views).

The API's dispute object has no provider_dispute_id: the first evidence POST's answer names
the API's id, and the dispute is compared right then (from the run's listing when it holds
it, else one GET). Each read-back compares again. On a mismatch nothing more is sent for it
(no file, no second update): it is held, both values named, until the two agree. Kept in the
state's `api_views` table (state/kept.py).
"""

from __future__ import annotations

import hashlib
from typing import Protocol

from dispute_evidence.api.models import Dispute
from dispute_evidence.engine.prepare.kept_facts import facts_reader
from dispute_evidence.evidence.views import DisputeView, sheet_view, view_mismatch
from dispute_evidence.state.holders import HasDisputes, HasKept
from dispute_evidence.state.kept import KeptView
from dispute_evidence.states import API_VIEW_HELD


class ApiViewsParts(HasDisputes, HasKept, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


def view_of(d: Dispute) -> DisputeView:
    opened = d.initiated_at.date().isoformat() if d.initiated_at else ""
    return DisputeView(d.reason or "", d.amount, d.currency or "", "", opened)


def held_text(mismatch: str) -> str:
    return (
        f"{API_VIEW_HELD}: {mismatch}. Nothing more is sent for it (no file, no update) until "
        "they agree: correct the disputes list, or ask the provider which is right"
    )


def record_views(
    store: ApiViewsParts, seen: dict[str, tuple[bytes | None, Dispute]]
) -> dict[str, str]:
    """Compare each dispute's API view (pid -> (its payload, the API's dispute)) with the
    disputes list's and keep it; returns pid -> why it is held, for those that differ."""
    kept, changed, held = store.kept.api_views(within=seen), {}, {}
    facts = facts_reader(store, seen)
    for pid, (payload, api) in seen.items():
        view = view_of(api)
        entry = (view.reason, view.amount, view.currency, view.opened_on, _tag(payload))
        was = kept.get(pid)
        if was is not None and was[:5] == entry:  # compared before: the same two views
            mismatch = was.mismatch
        else:
            sheet = sheet_view(facts(pid, payload)) if payload else DisputeView()
            mismatch = view_mismatch(sheet, view)
            changed[pid] = KeptView(*entry, mismatch)
        if mismatch:
            held[pid] = held_text(mismatch)
    store.kept.keep_api_views(changed)
    return held


def _tag(payload: bytes | None) -> str:
    """Which payload a view was compared with (a changed payload is compared again)."""
    return hashlib.blake2b(payload or b"", digest_size=8).hexdigest()


def held_by_api_view(store: ApiViewsParts) -> dict[str, str]:
    """Disputes whose API view differed from the disputes list when last compared."""
    held = store.kept.api_views(mismatched=True)
    return {pid: held_text(v.mismatch) for pid, v in held.items() if v.mismatch}
