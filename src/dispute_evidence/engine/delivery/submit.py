"""Submit evidence and files, exactly once, in order of response_due_by.

Per dispute: the complete evidence object when its payload hash changed (a full-state
upsert, so repeating it is harmless whether the API replaces or merges), then each file not
yet uploaded. An upload whose outcome is unknown, or one that was in flight when a run
died ('sending'), is reconciled by listing the dispute's files before sending it again.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote

import orjson
from pydantic import ValidationError

from dispute_evidence import clock
from dispute_evidence.api import (
    AuthenticationFailed,
    DisputeEvidenceClient,
    Evidence,
    InvalidRequest,
    NotFound,
    OutcomeUnknown,
    PermissionDenied,
    TransientError,
    UnexpectedResponse,
)
from dispute_evidence.api.client import MAX_PAGE
from dispute_evidence.api.errors import WaitTooLong
from dispute_evidence.api.models import Dispute, File, UpdateEvidenceResult
from dispute_evidence.engine.delivery.api_readback import ReadOutcome, api_deadline
from dispute_evidence.engine.delivery.api_views import record_views
from dispute_evidence.engine.options import RunOptions
from dispute_evidence.engine.session import SubmitStats
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import Stop, exit_for
from dispute_evidence.state.holders import (
    HasDisputes,
    HasKept,
    HasLocks,
    HasReadback,
    HasTransitions,
)
from dispute_evidence.state.lifecycle import OPEN_FILE, DisputeStatus, FileStatus
from dispute_evidence.state.ports import DeliveryLedger
from dispute_evidence.state.store import new_owner


class SubmitParts(HasDisputes, HasKept, HasLocks, HasReadback, HasTransitions, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


# a dispute's (payload, the API's view) by provider id -> why each that differs is held
CompareViews = Callable[[dict[str, tuple[bytes | None, Dispute]]], dict[str, str]]

log = logging.getLogger("dispute_evidence.engine")
MAX_UPLOAD_TRIES = 3
MAX_FILE_PAGES = 20  # a dispute's file listing is never read past 2,000 files


class RunAborted(DisputeEvidenceError):
    """The whole run must stop (the API key was refused): nothing more is sent."""

    exit_code = exit_for(Stop.KEY_REFUSED)


@dataclass(frozen=True)
class SubmitOutcome:
    stats: SubmitStats
    requests: int
    stopped: str | None = None  # why the run stopped sending (key refused, API unreachable)
    read: ReadOutcome = field(default_factory=ReadOutcome)  # what reading back found
    interrupted: int = 0  # the exit code when Ctrl-C or SIGTERM stopped the run (130, 143)
    stop: Stop = Stop.KEY_REFUSED  # why, when stopped (its exit code: exits.py's exit_for)
    retry_at: str | None = None  # the API asked to wait past [api] max_wait: run again after
    answer: str = ""  # ... what it answered and asked (`stopped` also says what to do)

    @property
    def stop_code(self) -> int:
        """The exit code when stopped (exits.py's one mapping)."""
        return exit_for(self.stop)


def _describe(exc: Exception) -> str:
    text = exc.message if hasattr(exc, "message") else str(exc)
    param = getattr(exc, "param", None)
    return f"{text} (field: {param})" if param else text


def _invalid(exc: ValidationError) -> str:
    """A payload the API model refuses, in a line: which field and why, nothing sent."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"evidence not sent: field {where}: {first['msg']}{more}; fix the source row and drop it again"


def _past_due(due: str | None, now: datetime) -> bool:
    if not due:
        return False
    return datetime.fromisoformat(due.replace("Z", "+00:00")) < now


class Submitter:
    """Works through the state store's queue with bounded concurrency, one lease per dispute."""

    def __init__(
        self,
        ledger: DeliveryLedger,
        client: DisputeEvidenceClient,
        *,
        concurrency: int = 8,
        now: Callable[[], datetime] | None = None,
        on_done: Callable[[str], None] | None = None,
        stats: SubmitStats | None = None,
        listing: dict[str, Dispute] | None = None,
        compare: CompareViews | None = None,
    ) -> None:
        """`ledger`: the parts of the state it works on (the run's store, or a test's fake);
        `compare`: how a first POST's API view is held against the disputes list (None: it
        is not compared here, the next read-back compares it)."""
        self.ledger = ledger
        self._compare = compare
        self.client = client
        self.concurrency = concurrency
        self.owner = new_owner(uuid.uuid4().hex[:8])
        self.stats = stats if stats is not None else SubmitStats()
        self._now = now or clock.now
        self._on_done = on_done
        self._abort: AuthenticationFailed | PermissionDenied | WaitTooLong | None = None
        # the API's disputes this run has listed, by the API's id (None: not listed; the
        # first POST's dispute is then compared by the next read-back)
        self.listing = listing
        self.held_by_view: dict[str, str] = {}  # held after the first POST: see api_views.py
        self._endless: dict[str, str] = {}  # API dispute id -> why its file listing was cut

    async def run(self, queue: list[str] | None = None) -> SubmitStats:
        """Process every dispute with work to do; raises RunAborted on a refused API key,
        WaitTooLong when the API asks to wait longer than the run may (the next run resumes)."""
        pending = list(queue if queue is not None else self.ledger.disputes.work_queue())
        pending.reverse()  # pop() from the end keeps due-date order

        async def worker() -> None:
            while pending and self._abort is None:
                await self._one(pending.pop())

        done = await asyncio.gather(
            *(worker() for _ in range(max(1, min(self.concurrency, len(pending))))),
            return_exceptions=True,  # every worker ends before one error goes up (a lost state
        )  # database fails them all: one error said, not seven logged as unhandled)
        for failed in done:
            if isinstance(failed, BaseException):
                raise failed
        if isinstance(self._abort, WaitTooLong):
            raise self._abort
        if self._abort is not None:
            raise RunAborted(
                f"The API refused the key: {self._abort.message}. Nothing more was sent; "
                "check DISPUTE_API_TOKEN."
            )
        return self.stats

    async def _one(self, pid: str) -> None:
        loaded = self.ledger.locks.claim_and_load(pid, self.owner)
        if loaded is None:
            self.stats.locked += 1  # another run holds it: never work on one dispute twice
            return
        try:
            await self._process(pid, *loaded)
        except (AuthenticationFailed, PermissionDenied, WaitTooLong) as exc:
            self._abort = exc
        finally:
            self.ledger.locks.release(pid, self.owner)
            if self._on_done:
                self._on_done(pid)

    async def _process(self, pid: str, d: dict[str, Any], files: list[dict[str, Any]]) -> None:
        if d["status"] == DisputeStatus.PENDING and _past_due(d["response_due_by"], self._now()):
            self.ledger.transitions.mark_past_due(
                pid, f"response was due by {d['response_due_by']}; not sent"
            )
            self.stats.past_due += 1
            return
        dispute_id = d["dispute_id"]
        if d["payload_hash"] != d["submitted_hash"]:
            dispute_id = await self._send_evidence(pid, d)
            if dispute_id is None:
                return
            if d["dispute_id"] is None and await self._view_differs(pid, d, dispute_id):
                return  # the API's dispute is not the one the sheet describes: nothing more
        for f in files:
            if f["status"] in OPEN_FILE:
                await self._upload(pid, dispute_id, f)

    async def _send_evidence(self, pid: str, d: dict[str, Any]) -> str | None:
        """Send the complete evidence; the API's dispute id on success, None otherwise."""
        attempts = d["attempts"] + 1
        try:
            evidence = Evidence.model_validate(orjson.loads(d["payload"]))
        except ValidationError as exc:  # our own check refuses it: this dispute only, not the run
            self.ledger.transitions.mark_rejected(pid, _invalid(exc), attempts)
            self.stats.rejected += 1
            return None
        try:
            result = await self.client.update_evidence(pid, evidence)
        except NotFound as exc:
            self.ledger.transitions.mark_not_found(pid, _describe(exc), attempts)
            self.stats.not_found += 1
            return None
        except InvalidRequest as exc:
            self.ledger.transitions.mark_rejected(pid, _describe(exc), attempts)
            self.stats.rejected += 1
            return None
        except (TransientError, UnexpectedResponse) as exc:
            self.ledger.transitions.record_failed_attempt(pid, attempts, str(exc))
            self.stats.failed += 1
            self.stats.errors.append(f"{pid}: {exc}")
            return None
        if (other := self._answered_for(pid, result)) is not None:
            self._clash(pid, d, attempts, result.dispute_id, other)
            return None
        self.ledger.transitions.mark_submitted(
            pid, submitted_hash=d["payload_hash"], dispute_id=result.dispute_id, attempts=attempts
        )
        self.stats.evidence_sent += 1
        return result.dispute_id

    def _answered_for(self, pid: str, result: UpdateEvidenceResult) -> str | None:
        """Another dispute the API's answer names (its provider id, or an API id this state
        records for another dispute), else None."""
        if result.provider_dispute_id != pid:
            return result.provider_dispute_id
        return self.ledger.disputes.holder_of(result.dispute_id, besides=pid)

    def _clash(self, pid: str, d: dict[str, Any], attempts: int, api_id: str, other: str) -> None:
        """Never record one dispute through another's object: were it recorded, the other's
        status (closed, lost) would be read as this one's. One line; nothing more goes to it."""
        why = (
            f"the API answered its evidence update with dispute {api_id}, which is {other}'s: "
            f"not recorded, and nothing more is sent to it; check both with the API's provider "
            f"(this update may have reached {other}'s)"
        )
        log.warning("%s: %s", pid, why)
        if d["status"] == DisputeStatus.PENDING:
            self.ledger.transitions.mark_rejected(pid, why, attempts)
            self.stats.rejected += 1
        else:  # sent before under its own id: kept as it was, said again by the next run
            self.ledger.transitions.record_failed_attempt(pid, attempts, why)
            self.stats.failed += 1

    async def _view_differs(self, pid: str, d: dict[str, Any], dispute_id: str) -> bool:
        """The first POST named the API's dispute: compare its reason, amount and currency
        with the disputes list's (from this run's listing, else one GET); hold it on a
        mismatch. A read that fails leaves the comparison to the next read-back."""
        if self.listing is None or self._compare is None:
            return False
        api = self.listing.get(dispute_id)
        if api is None:
            try:
                api = await self.client.get_dispute(dispute_id)
            except (NotFound, TransientError, UnexpectedResponse) as exc:
                log.warning(
                    "%s: its API view was not read (%s); the read-back compares it", pid, exc
                )
                return False
        self._use_deadline(pid, api)
        held = self._compare({pid: (d["payload"], api)})
        if pid in held:
            self.ledger.transitions.note_dispute(pid, held[pid])
            self.held_by_view[pid] = held[pid]
            log.warning("%s: %s", pid, held[pid])
        return pid in held

    def _use_deadline(self, pid: str, api: Dispute) -> None:
        """The API's deadline from now on (a sheet's date alone may end the day in the wrong
        zone); said on this run's report when it moved."""
        if (due := api_deadline(api)) is None:
            return
        if (was := self.ledger.readback.record_api_deadlines({pid: due}).get(pid)) is not None:
            self.stats.deadlines_moved.append((pid, was, due))

    async def _upload(self, pid: str, dispute_id: str | None, f: dict[str, Any]) -> None:
        sha = f["sha256"]
        for _ in range(MAX_UPLOAD_TRIES):
            try:
                if (
                    f["status"] == FileStatus.SENDING
                    and dispute_id
                    and await self._reconcile(pid, dispute_id, f)
                ):
                    return
            except _Skip:
                self.stats.failed += 1
                return  # stays 'sending': the next run checks again before any re-upload
            content = self._verified(pid, f)
            if content is None:
                return
            self.ledger.transitions.mark_file_sending(pid, sha)  # durable before the request leaves
            f["status"] = FileStatus.SENDING
            try:
                result = await self.client.upload_file(
                    pid, Path(f["path"]), file_name=f["file_name"], content=content
                )
            except OutcomeUnknown:
                dispute_id = dispute_id or self.ledger.disputes.dispute(pid)["dispute_id"]
                continue  # loop: reconcile, then send again only if it did not land
            except WaitTooLong as exc:  # a 503 or 429: it did not land; the run stops
                self.ledger.transitions.mark_file_pending(pid, sha, exc.message)
                raise
            except NotFound as exc:
                self.ledger.transitions.mark_file_rejected(pid, sha, _describe(exc))
                return
            except InvalidRequest as exc:  # FileRejected included: too big, wrong type, no field
                self.ledger.transitions.mark_file_rejected(pid, sha, _describe(exc))
                self.stats.rejected += 1
                return
            except (TransientError, UnexpectedResponse, OSError) as exc:
                self.ledger.transitions.mark_file_pending(pid, sha, str(exc))
                self.stats.failed += 1
                self.stats.errors.append(f"{pid} {f['file_name']}: {exc}")
                return
            self.ledger.transitions.mark_file_uploaded(pid, sha, result.file.id)
            self.stats.files_uploaded += 1
            return
        self.ledger.transitions.note_file_error(
            pid, sha, "outcome unknown after retries; will reconcile next run"
        )
        self.stats.failed += 1

    def _verified(self, pid: str, f: dict[str, Any]) -> bytes | None:
        """The stored copy's bytes if they are the file registered (their sha256), else None:
        a copy changed or planted since is never sent in its place."""
        try:
            content = Path(f["path"]).read_bytes()
        except OSError as exc:
            why = f"cannot read its stored copy ({exc.strerror}); drop the file again"
        else:
            if hashlib.sha256(content).hexdigest() == f["sha256"]:
                return content
            why = (
                f"its stored copy {f['path']} is not the file registered (its content "
                "changed); not uploaded: drop the original file again"
            )
        self.ledger.transitions.note_file_error(
            pid, f["sha256"], why
        )  # stays as it is: tried next run
        self.stats.failed += 1
        self.stats.errors.append(f"{pid} {f['file_name']}: {why}")
        return None

    async def _reconcile(self, pid: str, dispute_id: str, f: dict[str, Any]) -> bool:
        """Did an earlier, unanswered upload land? Match the dispute's files we have not claimed."""
        self.stats.reconcile_checks += 1
        known = self.ledger.disputes.files_of(pid)
        claimed = {x["remote_file_id"] for x in known if x["remote_file_id"]}
        try:
            remote = await self._listed_files(pid, dispute_id, len(known))
        except (TransientError, UnexpectedResponse) as exc:
            self.ledger.transitions.note_file_error(
                pid, f["sha256"], f"could not check earlier upload: {exc}"
            )
            raise _Skip from None
        for r in remote:
            # an earlier version sent names percent-encoded: either spelling is this file
            if r.id not in claimed and f["file_name"] in (r.file_name, unquote(r.file_name)):
                self.ledger.transitions.mark_file_uploaded(pid, f["sha256"], r.id)
                self.stats.files_reconciled += 1
                return True
        if dispute_id in self._endless:  # not found in what was read: it may lie past the cut
            self.ledger.transitions.note_file_error(pid, f["sha256"], self._endless[dispute_id])
            raise _Skip
        return False

    async def _listed_files(self, pid: str, dispute_id: str, known: int) -> list[File]:
        """The dispute's files at the API, read no further than the files this state knows
        could be there allow (each sent up to MAX_UPLOAD_TRIES times), two pages more, and
        MAX_FILE_PAGES at most: an API whose listing never ends is cut, said once a dispute."""
        if dispute_id in self._endless:
            return []  # cut once this run: its other files are not read again
        pages = min(MAX_FILE_PAGES, known * MAX_UPLOAD_TRIES // MAX_PAGE + 2)
        remote: list[File] = []
        for _ in range(pages):
            page = await self.client.list_files(dispute_id, MAX_PAGE, len(remote))
            remote += page
            if len(page) < MAX_PAGE:
                return remote
        why = (
            f"the API's file listing for dispute {dispute_id} did not end after {pages} pages "
            f"({len(remote):,} files; this state knows of {known}): whether an earlier upload "
            "landed is unknown, so it is not uploaded again; the next run checks again (ask the "
            "API's provider why GET /files never ends)"
        )
        self._endless[dispute_id] = why
        log.warning("%s: %s", pid, why)
        return remote


class _Skip(DisputeEvidenceError):
    """This dispute is done for this run (said and recorded already): the next one goes on."""


async def submit_step(
    store: SubmitParts,
    client: DisputeEvidenceClient,
    opts: RunOptions,
    on_done: Any = None,
    queue: list[str] | None = None,
    stats: SubmitStats | None = None,
    listing: dict[str, Dispute] | None = None,
) -> SubmitStats:
    """Send the work queue (or `queue`: the disputes a read-back left free to send), counting
    into `stats` (so a run stopped part way still knows what it sent); `listing`: the API's
    disputes this run has listed (the first POST's dispute is compared from it)."""
    submitter = Submitter(
        store,
        client,
        concurrency=opts.concurrency,
        on_done=on_done,
        stats=stats,
        listing=listing,
        compare=functools.partial(record_views, store),
    )
    return await submitter.run(queue)
