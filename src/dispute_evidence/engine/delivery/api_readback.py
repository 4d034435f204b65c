"""Read disputes back from the API: its deadlines and statuses are the truth.

Each real run, before sending, reads the disputes whose API id we know (learnt from the first
evidence update): every one that has something to send (nothing new goes to a dispute whose
status was not read in this run), and the others once a refresh interval (a day by default),
most urgent first. It pages through GET /disputes (100 a request) when that costs fewer
requests than one GET /disputes/{id} each, and never spends more than a share (10%) of the
hour's budget on reads, so reading never starves sending.

The listing has no filter and names no order, and it holds every dispute the merchant ever had,
so a listing read whole costs a page per 100 disputes of history. Only the disputes it needs
are taken from it, so it stops once it has seen each of them: safe in any order. It starts
where the last one first met a dispute it needed (an API listing oldest first puts the closed
history before that) and wraps round to the first page for any not met after it, so a changed
order costs pages, never a missed read; a dispute met nowhere is read by one GET.

A status that ends a dispute (won, lost, …) closes it here for good; one under review gets no
resend by default. The API's deadline replaces the sheet's.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from dispute_evidence import clock
from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.api.errors import NotFound
from dispute_evidence.engine.delivery.api_views import held_by_api_view, record_views
from dispute_evidence.policies import ReadPolicy
from dispute_evidence.state.holders import HasDisputes, HasKept
from dispute_evidence.state.ports import ReadbackLedger, ViewCheck


class ReadbackParts(HasDisputes, HasKept, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.readback")

API_COUNT = "api_dispute_count"  # meta: disputes the last listing to reach the end saw
LIST_FROM = "api_listing_from"  # meta: the offset the last listing first met a needed dispute


@dataclass
class ReadOutcome:
    reads: int = 0
    listed_pages: int = 0
    fetched: int = 0
    budget: int = 0  # reads this run was allowed
    closed: list[tuple[str, str]] = field(default_factory=list)  # (dispute, status)
    moved: list[tuple[str, str, str]] = field(default_factory=list)  # (dispute, was, now)
    held: dict[str, str] = field(default_factory=dict)  # dispute -> why nothing is sent now
    listed: dict[str, Any] = field(default_factory=dict)  # the API's disputes listed, by its id


class StoreViews:
    """The view comparison on the run's store (engine/delivery/api_views.py)."""

    def __init__(self, store: ReadbackParts) -> None:
        self.store = store

    def held(self) -> dict[str, str]:
        return held_by_api_view(self.store)

    def record(self, seen: dict[str, tuple[bytes | None, Any]]) -> dict[str, str]:
        return record_views(self.store, seen)


def _compare_views(
    ledger: ReadbackLedger, views: ViewCheck | None, read: dict[str, Any], out: ReadOutcome
) -> None:
    """The API's reason, amount and currency against the disputes list's, each read: a
    mismatch holds the dispute (named on its row); agreement again releases it."""
    if not read or views is None:
        return
    before = views.held()
    payloads = ledger.scoped.payloads_of(read)
    held = views.record({pid: (payloads.get(pid), api) for pid, api in read.items()})
    for pid in read:
        if pid in held:
            out.held[pid] = held[pid]
            ledger.transitions.note_dispute(pid, held[pid])
        elif pid in before:
            ledger.transitions.note_dispute(pid, None)


def _read_due(read_at: str | None, stale: datetime) -> bool:
    """Never read, or read before `stale` (the state writes '…Z', a clock '…+00:00': compared
    as times, not as text)."""
    if read_at is None:
        return True
    return datetime.fromisoformat(read_at.replace("Z", "+00:00")) < stale


def api_deadline(api: Any) -> str | None:
    """The API's deadline as the state keeps it (UTC, to the second)."""
    if not api.response_due_by:
        return None
    return str(api.response_due_by.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


async def _list(
    ledger: ReadbackLedger, client: DisputeEvidenceClient, out: ReadOutcome, wanted: set[str]
) -> None:
    """Page through GET /disputes (within the read budget) into `out.listed` until every
    dispute in `wanted` (API ids) was met: from LIST_FROM to the end, then from the first page
    up to LIST_FROM. Where it first met one is kept for the next run's start, and the count at
    the end for its estimate. Never more pages than `wanted` has disputes (reading each by id
    costs that): a listing that never ends, or never shows ours, is cut there."""
    start = offset = min(int(ledger.readback.get_meta(LIST_FROM) or 0), _estimate(ledger, 0))
    missing, first_met, wrapped = set(wanted), None, start == 0
    while (
        missing
        and out.reads < out.budget
        and out.listed_pages < len(wanted)
        and not (wrapped and offset >= start > 0)
    ):
        page = await client.list_disputes(limit=MAX_PAGE, offset=offset)
        out.reads += 1
        out.listed_pages += 1
        for i, d in enumerate(page):
            out.listed[d.id] = d
            if d.id in missing:
                missing.discard(d.id)
                first_met = offset + i if first_met is None else min(first_met, offset + i)
        offset += MAX_PAGE
        if len(page) < MAX_PAGE:  # the end
            ledger.readback.set_meta(API_COUNT, str(offset - MAX_PAGE + len(page)))
            if wrapped:
                break
            offset, wrapped = 0, True
    if first_met is not None:
        ledger.readback.set_meta(LIST_FROM, str(first_met))


def _estimate(ledger: ReadbackLedger, default: int) -> int:
    """Disputes at the API when a listing last reached the end (`default` before any did)."""
    return int(ledger.readback.get_meta(API_COUNT) or default)


async def read_back(
    ledger: ReadbackLedger,
    client: DisputeEvidenceClient,
    policy: ReadPolicy,
    *,
    budget_per_hour: int,
    run_id: str,
    only: Collection[str] | None = None,
    views: ViewCheck | None = None,
) -> ReadOutcome:
    """`ledger`: the parts of the state it reads and moves (the run's store, or a test's
    fake); `only`: read just these disputes (an approval sent at once reads what it sends);
    `views`: how each API view read is held against the disputes list (None: not here)."""
    out = ReadOutcome(budget=max(1, math.floor(budget_per_hour * policy.read_share)))
    known = ledger.readback.known_at_api()
    if only is not None:
        known = [d for d in known if d["provider_dispute_id"] in only]
    if not known:
        return out
    work = set(ledger.disputes.work_queue())
    if only is not None:
        work &= set(only)
    stale = clock.now() - timedelta(hours=policy.refresh_hours)
    must = [d for d in known if d["provider_dispute_id"] in work]
    due = [
        d
        for d in known
        if d["provider_dispute_id"] not in work and _read_due(d["api_read_at"], stale)
    ]
    need = must + due  # each already nearest deadline first
    if not need:
        return out
    # the pages a listing is expected to read: from where it last met a needed dispute
    unread = _estimate(ledger, len(known)) - int(ledger.readback.get_meta(LIST_FROM) or 0)
    pages = max(unread, 0) // MAX_PAGE + 1
    if pages < len(need) and pages <= out.budget:
        await _list(ledger, client, out, {d["dispute_id"] for d in need})
    seen = dict(out.listed)
    ids = {d["dispute_id"] for d in need} - set(seen)
    if out.listed_pages and ids:
        log.warning(
            "%d dispute(s) not in the API's dispute listing (%d page(s) read): each is read by "
            "id instead (GET /disputes/{id})",
            len(ids),
            out.listed_pages,
        )
    for d in need:  # one by one what a listing did not cover, most urgent first
        if d["dispute_id"] not in ids or out.reads >= out.budget:
            continue
        try:
            seen[d["dispute_id"]] = await client.get_dispute(d["dispute_id"])
        except NotFound:
            log.warning(
                "%s: the API no longer knows dispute %s", d["provider_dispute_id"], d["dispute_id"]
            )
        out.reads += 1
        out.fetched += 1
    read = {
        d["provider_dispute_id"]: seen[d["dispute_id"]] for d in known if d["dispute_id"] in seen
    }
    dues = {pid: api_deadline(api) for pid, api in read.items()}
    moved = ledger.readback.record_api_reads(
        {pid: (api.status, dues[pid]) for pid, api in read.items()}, run_id
    )
    for pid, api in read.items():
        if (was := moved.get(pid)) is not None and dues[pid]:
            out.moved.append((pid, was, str(dues[pid])))
        if policy.is_closed(api.status):
            ledger.transitions.mark_closed(pid, f"closed at the API: {api.status}")
            out.closed.append((pid, str(api.status)))
        elif pid in work and policy.holds(api.status):
            out.held[pid] = f"under review at the API ({api.status}): not sent again"
    _compare_views(ledger, views, read, out)
    for d in must:  # the budget ran out before its status was read: nothing new goes to it
        if d["dispute_id"] not in seen and d["provider_dispute_id"] not in out.held:
            out.held[d["provider_dispute_id"]] = (
                "its status at the API was not read this run (read budget spent); "
                "the next run reads it first"
            )
    return out
