"""The ledger contract: what the submitter relies on of the parts it is handed
(state/ports.py DeliveryLedger), as checks any implementation must pass. Run on the real store
over SQLite (tests/unit/state/test_ledger_contract.py), over PostgreSQL
(tests/e2e/engine/test_postgres.py) and on the in-memory fake
(tests/support/fake_ledger.py) that the submitter's unit tests use.

Each implementation comes with a `Seeded` adapter: a way to put a dispute and a file in it as a
build and a file match would, and a wall clock the test moves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from dispute_evidence.state.base import LEASE_SECONDS
from dispute_evidence.state.lifecycle import DisputeStatus, FileStatus, IllegalTransition

F = FileStatus


class Clock:
    """A wall clock the test moves (epoch seconds)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Seeded:
    ledger: Any  # DeliveryLedger and ReadbackLedger: the store, or the fake
    add_dispute: Callable[..., None]  # (pid, payload, payload_hash, due=None)
    add_file: Callable[..., None]  # (pid, sha256, file_name, path, size, status=pending)
    clock: Clock


def store_seeded(store: Any, clock: Clock) -> Seeded:
    """The real StateStore, seeded through its build and match entry points."""

    def add_dispute(pid: str, payload: bytes, payload_hash: str, due: str | None = None) -> None:
        built = SimpleNamespace(
            provider_dispute_id=pid, order_number=None, response_due_by=due, body=payload,
            content_hash=payload_hash, facts_json=None,
        )  # fmt: skip
        store.disputes.sync_disputes([built], [])

    def add_file(
        pid: str, sha: str, name: str, path: str, size: int, status: str = F.PENDING
    ) -> None:
        store.disputes.set_reconcile_uploads(status == F.SENDING)
        row = {
            "provider_dispute_id": pid,
            "sha256": sha,
            "file_name": name,
            "path": path,
            "size": size,
        }
        store.disputes.sync_files([row])
        store.disputes.set_reconcile_uploads(False)

    return Seeded(store, add_dispute, add_file, clock)


def fake_seeded(clock: Clock) -> Seeded:
    from tests.support.fake_ledger import FakeLedger

    fake = FakeLedger(wall=clock)
    return Seeded(fake, fake.add_dispute, fake.add_file, clock)


# -- the contract ---------------------------------------------------------------------------
def queue_orders_by_deadline_unknown_last(s: Seeded) -> None:
    s.add_dispute("dp_c", b"{}", "h", None)
    s.add_dispute("dp_b", b"{}", "h", "2026-12-20T23:59:59Z")
    s.add_dispute("dp_a", b"{}", "h", "2026-12-01T23:59:59Z")
    assert s.ledger.disputes.work_queue() == ["dp_a", "dp_b", "dp_c"]


def a_sent_dispute_stays_queued_only_while_a_file_is_open(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.add_file("dp_1", "f" * 64, "receipt.pdf", "/blobs/f", 10)
    moves = s.ledger.transitions
    moves.mark_submitted("dp_1", submitted_hash="h1", dispute_id="api_1", attempts=1)
    assert s.ledger.disputes.work_queue() == ["dp_1"]  # its file is still to send
    moves.mark_file_sending("dp_1", "f" * 64)
    assert s.ledger.disputes.work_queue() == ["dp_1"]  # sending: reconciled before resending
    moves.mark_file_uploaded("dp_1", "f" * 64, "file_1")
    assert s.ledger.disputes.work_queue() == []
    (f,) = s.ledger.disputes.files_of("dp_1")
    assert (f["status"], f["remote_file_id"]) == ("uploaded", "file_1")


def a_lease_is_one_owners_until_released_or_run_out(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.add_file("dp_1", "f" * 64, "receipt.pdf", "/blobs/f", 10)
    leases = s.ledger.locks
    loaded = leases.claim_and_load("dp_1", "host:1:a")
    assert loaded is not None and loaded[0]["provider_dispute_id"] == "dp_1" and len(loaded[1]) == 1
    assert leases.claim_and_load("dp_1", "host:1:b") is None  # another live owner holds it
    assert leases.claim_and_load("dp_1", "host:1:a") is not None  # its owner again: renewed
    leases.release("dp_1", "host:1:b")  # not b's to release
    assert leases.claim_and_load("dp_1", "host:1:b") is None
    leases.release("dp_1", "host:1:a")
    assert leases.claim_and_load("dp_1", "host:1:b") is not None
    s.clock.now += LEASE_SECONDS + 1  # b's lease ran out (its run died on another host)
    assert leases.claim_and_load("dp_1", "host:1:a") is not None


def moves_the_state_machine_does_not_draw_are_refused(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.add_file("dp_1", "f" * 64, "receipt.pdf", "/blobs/f", 10)
    moves = s.ledger.transitions
    with pytest.raises(IllegalTransition):
        moves.mark_file_uploaded("dp_1", "f" * 64, "file_1")  # never uploaded without 'sending'
    moves.mark_rejected("dp_1", "refused", 1)
    with pytest.raises(IllegalTransition):
        moves.mark_submitted("dp_1", submitted_hash="h1", dispute_id="api_1", attempts=2)
    moves.note_dispute("dp_1", "why it waits")  # a note moves nothing
    d = s.ledger.disputes.dispute("dp_1")
    assert (d["status"], d["detail"], d["attempts"]) == ("rejected", "why it waits", 1)


def a_file_that_did_not_land_goes_back_to_pending(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.add_file("dp_1", "f" * 64, "receipt.pdf", "/blobs/f", 10)
    moves = s.ledger.transitions
    moves.mark_file_sending("dp_1", "f" * 64)
    moves.mark_file_pending("dp_1", "f" * 64, "503")
    moves.note_file_error("dp_1", "f" * 64, "tried at 10:00")
    (f,) = s.ledger.disputes.files_of("dp_1")
    assert (f["status"], f["last_error"]) == ("pending", "tried at 10:00")


def an_api_id_names_its_holder(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.add_dispute("dp_2", b"{}", "h2")
    s.ledger.transitions.mark_submitted("dp_1", submitted_hash="h1", dispute_id="api_1", attempts=1)
    assert s.ledger.disputes.holder_of("api_1", besides="dp_2") == "dp_1"
    assert s.ledger.disputes.holder_of("api_1", besides="dp_1") is None


def a_moved_api_deadline_is_said_and_kept(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1", "2026-12-01T23:59:59Z")
    moved = s.ledger.readback.record_api_deadlines({"dp_1": "2026-12-03T23:59:59Z", "dp_x": "x"})
    assert moved == {"dp_1": "2026-12-01T23:59:59Z"}
    assert s.ledger.disputes.dispute("dp_1")["response_due_by"] == "2026-12-03T23:59:59Z"
    assert s.ledger.readback.record_api_deadlines({"dp_1": "2026-12-03T23:30:00Z"}) == {}


def a_failed_attempt_keeps_the_status(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.ledger.transitions.record_failed_attempt("dp_1", 1, "timeout")
    d = s.ledger.disputes.dispute("dp_1")
    assert (d["status"], d["attempts"], d["last_error"]) == ("pending", 1, "timeout")
    s.ledger.transitions.mark_past_due("dp_1", "due yesterday")
    assert s.ledger.disputes.work_queue() == []


def the_api_reads_are_kept_and_an_ended_dispute_leaves_them(s: Seeded) -> None:
    s.add_dispute("dp_1", b'{"a":1}', "h1", "2026-12-05T23:59:59Z")
    s.add_dispute("dp_2", b'{"a":2}', "h2", "2026-12-01T23:59:59Z")
    s.add_dispute("dp_3", b'{"a":3}', "h3")  # never sent: the API's id is unknown
    moves, reads = s.ledger.transitions, s.ledger.readback
    moves.mark_submitted("dp_1", submitted_hash="h1", dispute_id="api_1", attempts=1)
    moves.mark_submitted("dp_2", submitted_hash="h2", dispute_id="api_2", attempts=1)
    known = reads.known_at_api()
    assert [(d["provider_dispute_id"], d["api_read_at"]) for d in known] == [
        ("dp_2", None),
        ("dp_1", None),
    ]
    moved = reads.record_api_reads(
        {"dp_1": ("under_review", "2026-12-09T23:59:59Z"), "dp_2": ("won", None)}, "r1"
    )
    assert moved == {"dp_1": "2026-12-05T23:59:59Z"}
    after = {d["provider_dispute_id"]: d for d in reads.known_at_api()}
    assert after["dp_1"]["api_status"] == "under_review" and after["dp_1"]["api_read_at"]
    assert after["dp_1"]["response_due_by"] == "2026-12-09T23:59:59Z"
    moves.mark_closed("dp_2", "closed at the API: won")
    assert [d["provider_dispute_id"] for d in reads.known_at_api()] == ["dp_1"]
    assert s.ledger.scoped.payloads_of(["dp_1", "dp_3", "dp_x"]) == {
        "dp_1": b'{"a":1}',
        "dp_3": b'{"a":3}',
    }
    reads.set_meta("api_listing_from", "200")
    assert reads.get_meta("api_listing_from") == "200" and reads.get_meta("nothing") is None


def an_approval_holds_one_version_while_its_payload_stays(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    s.ledger.transitions.mark_awaiting_approval("dp_1")
    rows = s.ledger.approvals
    assert rows.statuses_of(["dp_1", "dp_unknown"]) == {"dp_1": "awaiting_approval"}
    assert not rows.set_approval("dp_1", "h0", "e1", "alice", held=True)  # payload changed
    assert rows.set_approval("dp_1", "h1", "e1", "alice", held=True)
    assert not rows.set_approval("dp_1", "h1", "e1", "bob", held=True)  # two at once: one applies
    assert rows.approval_of("dp_1", "h1") == ("e1", "alice")
    assert rows.approval_of("dp_1", "h0") is None


def a_held_dispute_is_released_only_to_pending_or_submitted(s: Seeded) -> None:
    s.add_dispute("dp_1", b"{}", "h1")
    moves = s.ledger.transitions
    moves.mark_awaiting_approval("dp_1", "advice: accept (refunded)")
    assert s.ledger.disputes.work_queue() == []  # nothing of a held dispute is sent
    assert s.ledger.disputes.dispute("dp_1")["detail"] == "advice: accept (refunded)"
    with pytest.raises(IllegalTransition):
        moves.release_approval("dp_1", DisputeStatus.REJECTED)
    moves.release_approval("dp_1", DisputeStatus.PENDING)
    d = s.ledger.disputes.dispute("dp_1")
    assert (d["status"], d["detail"]) == ("pending", None)
    assert s.ledger.disputes.work_queue() == ["dp_1"]
    with pytest.raises(IllegalTransition):  # released already (by an approve at the same time)
        moves.release_approval("dp_1", DisputeStatus.PENDING)
    moves.mark_submitted("dp_1", submitted_hash="h1", dispute_id="api_1", attempts=1)
    moves.mark_awaiting_approval("dp_1")  # sent, then held again (a file matched since)
    moves.release_approval("dp_1", DisputeStatus.SUBMITTED)
    assert s.ledger.disputes.dispute("dp_1")["status"] == "submitted"


CONTRACT = [
    an_approval_holds_one_version_while_its_payload_stays,
    a_held_dispute_is_released_only_to_pending_or_submitted,
    the_api_reads_are_kept_and_an_ended_dispute_leaves_them,
    queue_orders_by_deadline_unknown_last,
    a_sent_dispute_stays_queued_only_while_a_file_is_open,
    a_lease_is_one_owners_until_released_or_run_out,
    moves_the_state_machine_does_not_draw_are_refused,
    a_file_that_did_not_land_goes_back_to_pending,
    an_api_id_names_its_holder,
    a_moved_api_deadline_is_said_and_kept,
    a_failed_attempt_keeps_the_status,
]
