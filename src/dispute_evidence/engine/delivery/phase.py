"""The submit phase of a run, as a session sees it: read back what is due, list the API's
disputes when that is worth it, send the work queue (nearest deadline first), and say in one
line why sending stopped when the API refused the key, could not be reached, answered as no
Dispute Evidence API would, or asked to wait longer than a run waits."""

from __future__ import annotations

import asyncio
import logging

from dispute_evidence.api import ApiSettings, DisputeEvidenceClient
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.api.errors import (
    ApiConnectionError,
    ApiUnavailable,
    AuthenticationFailed,
    PermissionDenied,
    UnexpectedResponse,
    WaitTooLong,
)
from dispute_evidence.engine.delivery.listings import listing_for, reconcile_if_sent_before
from dispute_evidence.engine.delivery.readback import ReadOutcome, StoreViews, read_back
from dispute_evidence.engine.delivery.submit import RunAborted, SubmitOutcome, submit_step
from dispute_evidence.engine.prepare.api_views import held_by_api_view
from dispute_evidence.engine.prepare.case import held_by_advice
from dispute_evidence.engine.session import (
    Progress,
    RunSession,
    SubmitStats,
)
from dispute_evidence.exits import (
    EXIT_UNREACHABLE,
)

log = logging.getLogger("dispute_evidence.run")


def submit(session: RunSession, progress: Progress | None = None) -> SubmitOutcome:
    """Send what needs sending, nearest deadline first (the keep-alive holds the lock)."""
    assert session.api is not None, "a dry run sends nothing"
    return asyncio.run(_submit(session, session.api, progress))


async def _submit(
    session: RunSession, api: ApiSettings, progress: Progress | None
) -> SubmitOutcome:
    store = session.store
    total, done = 0, 0
    if session.unproven is not None:  # asked when the run opened: the state was left as it was
        why, code = session.unproven
        return SubmitOutcome(SubmitStats(), 1, stopped=why, stop_code=code)

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
        except WaitTooLong as exc:
            return _waited_too_long(session, client, exc)
        except (ApiConnectionError, ApiUnavailable) as exc:
            return SubmitOutcome(
                SubmitStats(),
                client.stats.attempts,
                stopped=unreachable(api, exc),
                stop_code=EXIT_UNREACHABLE,
            )
        except (AuthenticationFailed, PermissionDenied) as exc:
            return SubmitOutcome(SubmitStats(), client.stats.attempts, stopped=refused(exc))
        except UnexpectedResponse as exc:
            return _answered_wrong(session, client, exc, read, sent=False)
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
            held = held_by_advice(store, session.opts.advice)  # only with hold_under_amount
            held |= held_by_api_view(store)  # the API's reason/amount/currency differ from the list
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
        except (AuthenticationFailed, PermissionDenied) as exc:  # before anything was sent
            return SubmitOutcome(
                SubmitStats(), client.stats.attempts, stopped=refused(exc), read=read
            )
        except RunAborted as exc:  # refused while sending: the submitter says what stopped
            return SubmitOutcome(
                SubmitStats(),
                client.stats.attempts,
                stopped=str(exc),
                stop_code=exc.exit_code,
                read=read,
            )
        except WaitTooLong as exc:  # what was sent is kept; the next run resumes
            return _waited_too_long(session, client, exc, read)
        except UnexpectedResponse as exc:  # not the API's answer (a read-back's, a listing's)
            return _answered_wrong(session, client, exc, read, sent=True)
        return SubmitOutcome(stats, client.stats.attempts, read=read)


def _answered_wrong(
    session: RunSession,
    client: DisputeEvidenceClient,
    exc: UnexpectedResponse,
    read: ReadOutcome,
    *,
    sent: bool,
) -> SubmitOutcome:
    """An answer that is not the API's (a login page, a body of the wrong shape): stop, in
    one line; a redirect stays a configuration error (the CLI says so, exit 2)."""
    if redirected(exc):
        raise exc
    return SubmitOutcome(
        session.sent,
        client.stats.attempts,
        stopped=not_the_api(exc, sent=sent),
        stop_code=EXIT_UNREACHABLE,
        read=read,
    )


def redirected(exc: UnexpectedResponse) -> bool:
    return exc.status is not None and 300 <= exc.status < 400


def not_the_api(exc: UnexpectedResponse, *, sent: bool) -> str:
    after = "Nothing more was sent; what was sent is recorded" if sent else "Nothing was sent"
    return f"{exc.message} {after}; run again once the API answers there."


def _waited_too_long(
    session: RunSession,
    client: DisputeEvidenceClient,
    exc: WaitTooLong,
    read: ReadOutcome | None = None,
) -> SubmitOutcome:
    """The API asked to wait longer than [api] max_wait: stop, saying when to run again."""
    return SubmitOutcome(
        session.sent,
        client.stats.attempts,
        stopped=exc.message,
        stop_code=EXIT_UNREACHABLE,
        read=read or ReadOutcome(),
        retry_at=exc.retry_at,
        answer=exc.answer,
    )


def unreachable(api: ApiSettings, exc: ApiConnectionError | ApiUnavailable) -> str:
    return (
        f"Could not reach the API at {api.base_url} ({exc.message}). Nothing was sent; "
        "check DISPUTE_API_BASE_URL and the network, then run again."
    )


def refused(exc: AuthenticationFailed | PermissionDenied) -> str:
    return (
        f"The API refused the key ({exc.message}). Nothing was sent; "
        "check DISPUTE_API_TOKEN (or the Secret block) and run again."
    )
