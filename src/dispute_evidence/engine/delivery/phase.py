"""The submit phase of a run, as a session sees it: read back what is due, list the API's
disputes when that is worth it, send the work queue (nearest deadline first), and say in one
line why sending stopped when the API refused the key, could not be reached, answered as no
Dispute Evidence API would, or asked to wait longer than a run waits."""

from __future__ import annotations

import asyncio
import logging

from dispute_evidence.api import ApiSettings, DisputeEvidenceClient
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.engine.delivery.api_readback import ReadOutcome, StoreViews, read_back
from dispute_evidence.engine.delivery.api_views import held_by_api_view
from dispute_evidence.engine.delivery.listings import listing_for, reconcile_if_sent_before
from dispute_evidence.engine.delivery.stops import (
    FIRST_REQUEST_STOPS,
    SENDING_STOPS,
    stopped_by,
)
from dispute_evidence.engine.delivery.submit import SubmitOutcome, submit_step
from dispute_evidence.engine.review.plan import DeliveryPlan
from dispute_evidence.engine.session import (
    Progress,
    RunSession,
    SubmitStats,
)
from dispute_evidence.exits import Stopped

log = logging.getLogger("dispute_evidence.run")


def submit(
    session: RunSession, plan: DeliveryPlan, progress: Progress | None = None
) -> SubmitOutcome:
    """Send what needs sending and `plan` does not hold, nearest deadline first (the
    keep-alive holds the lock)."""
    assert session.api is not None, "a dry run sends nothing"
    return asyncio.run(_submit(session, session.api, plan, progress))


async def _submit(
    session: RunSession, api: ApiSettings, plan: DeliveryPlan, progress: Progress | None
) -> SubmitOutcome:
    store = session.store
    total, done = 0, 0
    if session.unproven is not None:  # asked when the run opened: the state was left as it was
        return _stopped(session, session.unproven, requests=1)

    def on_done(_pid: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    async with DisputeEvidenceClient(settings=api, gate=session.gate) as client:
        session.sent.client = client.stats  # read by `interrupted` if the run is stopped
        read = ReadOutcome()
        try:
            # one cheap request first: a refused key is said at once, even with nothing to send
            # (a state that never sent reads a whole page: does the API hold evidence already?)
            new = not store.disputes.has_sent() and bool(store.disputes.work_queue())
            page = await client.list_disputes(limit=MAX_PAGE if new else 1)
            if new:
                await reconcile_if_sent_before(store, client, page)
        except FIRST_REQUEST_STOPS as exc:
            why = stopped_by(api, exc, sent=False)
            return _stopped(session, why, requests=client.stats.attempts)
        try:
            if session.opts.read_policy is not None:
                read = await read_back(
                    store,
                    client,
                    session.opts.read_policy,
                    budget_per_hour=api.rate_limit_per_hour,
                    run_id=session.run_id,
                    only=session.only,
                    views=StoreViews(store),
                )
            held = {**plan.held, **held_by_api_view(store)}  # and the API's view differs
            queue = [p for p in store.disputes.work_queue() if p not in read.held and p not in held]
            queue = [p for p in queue if session.only is None or p in session.only]
            total = len(queue)
            stats = await submit_step(
                store,
                client,
                session.opts,
                on_done=on_done,
                queue=queue,
                stats=session.sent,
                listing=await listing_for(store, client, page, queue, read.listed),
            )
        except SENDING_STOPS as exc:  # what was sent is recorded; the next run resumes
            why = stopped_by(api, exc, sent=True)
            return _stopped(session, why, requests=client.stats.attempts, read=read)
        return SubmitOutcome(stats, client.stats.attempts, read=read)


def _stopped(
    session: RunSession, why: Stopped, *, requests: int, read: ReadOutcome | None = None
) -> SubmitOutcome:
    """The outcome of a run that stopped sending: why (typed; its exit code is exits.py's),
    in one line, and for a wait asked past [api] max_wait when to run again."""
    return SubmitOutcome(
        session.sent if why.keeps_sent else SubmitStats(),
        requests,
        stopped=why.words,
        stop=why.stop,
        read=read or ReadOutcome(),
        retry_at=why.retry_at,
        answer=why.answer,
    )
