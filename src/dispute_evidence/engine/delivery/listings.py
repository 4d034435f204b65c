"""What a run lists of the API's disputes before sending, and never more than it is worth: a
listing that never ends (or never shows ours) is cut where reading each dispute would cost
less, so a broken API's listing cannot hang a run or spend its budget (issue 39)."""

from __future__ import annotations

import logging
from typing import Protocol

from dispute_evidence.api import Dispute, DisputeEvidenceClient
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.engine.delivery.api_readback import API_COUNT
from dispute_evidence.state.holders import HasDisputes, HasReadback, HasRuns


class ListingsParts(HasDisputes, HasReadback, HasRuns, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.run")


MAX_LISTING_PAGES = 1000  # 100,000 disputes


async def listing_for(
    store: ListingsParts,
    client: DisputeEvidenceClient,
    first: list[Dispute],
    queue: list[str],
    read: dict[str, Dispute],
) -> dict[str, Dispute]:
    """The API's disputes, by its id, when something goes to a dispute for the first time
    (its first POST names the API's dispute, compared right then: engine/delivery/api_views.py; one
    not here is read by one GET). `first`: the run's first listing read (a whole listing when
    it came back short of a page); `read`: what the read-back listed this run; else every
    page, 100 a request, when that is fewer requests than one read per new dispute."""
    known = {d["provider_dispute_id"] for d in store.readback.known_at_api()}
    new = sum(pid not in known for pid in queue)
    if not new:
        return {}
    if 1 < len(first) < MAX_PAGE or not first:
        return {d.id: d for d in first}
    if read:
        return read
    if (count := store.runs.get_meta(API_COUNT)) is not None and int(count) // MAX_PAGE + 1 >= new:
        return {}
    listed: dict[str, Dispute] = {}
    # never more pages than one read per new dispute: a listing that never ends (or never
    # shows ours) is cut there, and each dispute not listed is read by one GET
    for _ in range(min(MAX_LISTING_PAGES, new)):
        page = await client.list_disputes(MAX_PAGE, len(listed))
        listed.update((d.id, d) for d in page)
        if len(page) < MAX_PAGE:
            break
    return listed


async def reconcile_if_sent_before(
    store: ListingsParts, client: DisputeEvidenceClient, page: list[Dispute]
) -> None:
    """A state that has never sent anything, facing an API that holds evidence already (the
    state was lost, moved aside or replaced): check each dispute's files at the API before
    uploading any, so nothing is sent twice. `page` is the listing's first page; one more
    request per further 100 disputes, and only until this state has sent something: no more
    pages than disputes to send (checking each file costs about that), then every file is
    checked, as a listing that never ends cannot say the API holds nothing."""
    offset, pages = 0, 1
    limit = min(MAX_LISTING_PAGES, max(1, len(store.disputes.work_queue())))
    while not any(d.evidence for d in page):
        if len(page) < MAX_PAGE:
            return
        if pages >= limit:
            store.disputes.reconcile_pending_files()
            log.warning(
                "the API's dispute listing was not read to its end (%d pages showed no evidence; "
                "more would cost more than checking each file): every file is checked against "
                "its dispute's listing before uploading, so nothing is sent twice",
                pages,
            )
            return
        offset += MAX_PAGE
        page = await client.list_disputes(MAX_PAGE, offset)
        pages += 1
    moved = store.disputes.reconcile_pending_files()
    log.warning(
        "a new state, and the API already holds evidence: the files of %d upload(s) are "
        "checked against the API's listing before sending",
        moved,
    )
