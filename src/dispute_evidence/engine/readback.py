"""Read disputes back from the API: its deadlines and statuses are the truth.

Each real run, before sending, reads the disputes whose API id we know (learnt from the first
evidence update): every one that has something to send (nothing new goes to a dispute whose
status was not read in this run), and the others once a refresh interval (a day by default),
most urgent first. It pages through GET /disputes (100 a request) when that costs fewer
requests than one GET /disputes/{id} each, and never spends more than a share (10%) of the
hour's budget on reads, so reading never starves sending.

A status that ends a dispute (won, lost, …) closes it here for good; one under review gets no
resend by default. The API's deadline replaces the sheet's.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Any

from dispute_evidence import clock
from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.api.errors import NotFound
from dispute_evidence.engine.api_views import held_by_api_view, record_views
from dispute_evidence.engine.state import StateStore
from dispute_evidence.policies import ReadPolicy

log = logging.getLogger("dispute_evidence.readback")

API_COUNT = "api_dispute_count"  # meta: disputes the last full listing saw


@dataclass
class ReadOutcome:
    reads: int = 0
    listed_pages: int = 0
    fetched: int = 0
    budget: int = 0  # reads this run was allowed
    closed: list[tuple[str, str]] = field(default_factory=list)  # (dispute, status)
    moved: list[tuple[str, str, str]] = field(default_factory=list)  # (dispute, was, now)
    held: dict[str, str] = field(default_factory=dict)  # dispute -> why nothing is sent now


def _compare_views(store: StateStore, read: dict[str, Any], out: ReadOutcome) -> None:
    """The API's reason, amount and currency against the disputes list's, each read: a
    mismatch holds the dispute (named on its row); agreement again releases it."""
    if not read:
        return
    before = held_by_api_view(store)
    payloads = store.payloads_of(read)
    held = record_views(store, {pid: (payloads.get(pid), api) for pid, api in read.items()})
    for pid in read:
        if pid in held:
            out.held[pid] = held[pid]
            store.note_dispute(pid, held[pid])
        elif pid in before:
            store.note_dispute(pid, None)


def _due(api: Any) -> str | None:
    """The API's deadline as the state keeps it (UTC, to the second)."""
    if not api.response_due_by:
        return None
    return str(api.response_due_by.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


async def _list_all(
    store: StateStore, client: DisputeEvidenceClient, out: ReadOutcome, seen: dict[str, Any]
) -> None:
    """Page through GET /disputes (within the read budget) into `seen`; the count it found is
    kept for the next run's estimate."""
    offset = 0
    while out.reads < out.budget:
        page = await client.list_disputes(limit=MAX_PAGE, offset=offset)
        out.reads += 1
        out.listed_pages += 1
        seen.update({d.id: d for d in page})
        if len(page) < MAX_PAGE:
            store.set_meta(API_COUNT, str(offset + len(page)))
            break
        offset += MAX_PAGE


async def read_back(
    store: StateStore,
    client: DisputeEvidenceClient,
    policy: ReadPolicy,
    *,
    budget_per_hour: int,
    run_id: str,
    only: Collection[str] | None = None,
) -> ReadOutcome:
    """`only`: read just these disputes (an approval sent at once reads what it sends)."""
    out = ReadOutcome(budget=max(1, math.floor(budget_per_hour * policy.read_share)))
    known = store.known_at_api()
    if only is not None:
        known = [d for d in known if d["provider_dispute_id"] in only]
    if not known:
        return out
    work = set(store.work_queue())
    if only is not None:
        work &= set(only)
    stale = (clock.now() - timedelta(hours=policy.refresh_hours)).isoformat()
    must = [d for d in known if d["provider_dispute_id"] in work]
    due = [
        d
        for d in known
        if d["provider_dispute_id"] not in work
        and (d["api_read_at"] is None or d["api_read_at"] < stale)
    ]
    need = must + due  # each already nearest deadline first
    if not need:
        return out
    seen: dict[str, Any] = {}
    estimate = int(store.get_meta(API_COUNT) or len(known))
    pages = estimate // MAX_PAGE + 1
    if pages < len(need) and pages <= out.budget:
        await _list_all(store, client, out, seen)
    ids = {d["dispute_id"] for d in need} - set(seen)
    for d in need:  # one by one what a listing did not cover, most urgent first
        if d["dispute_id"] not in ids or out.reads >= out.budget:
            continue
        try:
            seen[d["dispute_id"]] = await client.get_dispute(d["dispute_id"])
        except NotFound:
            log.warning("%s: the API no longer knows dispute %s", d["provider_dispute_id"],
                        d["dispute_id"])  # fmt: skip
        out.reads += 1
        out.fetched += 1
    read = {d["provider_dispute_id"]: seen[d["dispute_id"]] for d in known
            if d["dispute_id"] in seen}  # fmt: skip
    dues = {pid: _due(api) for pid, api in read.items()}
    moved = store.record_api_reads({pid: (api.status, dues[pid]) for pid, api in read.items()},
                                   run_id)  # fmt: skip
    for pid, api in read.items():
        if (was := moved.get(pid)) is not None and dues[pid]:
            out.moved.append((pid, was, str(dues[pid])))
        if policy.is_closed(api.status):
            store.mark_closed(pid, f"closed at the API: {api.status}")
            out.closed.append((pid, str(api.status)))
        elif pid in work and policy.holds(api.status):
            out.held[pid] = f"under review at the API ({api.status}): not sent again"
    _compare_views(store, read, out)
    for d in must:  # the budget ran out before its status was read: nothing new goes to it
        if d["dispute_id"] not in seen and d["provider_dispute_id"] not in out.held:
            out.held[d["provider_dispute_id"]] = (
                "its status at the API was not read this run (read budget spent); "
                "the next run reads it first"
            )
    return out
