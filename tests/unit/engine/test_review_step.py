"""The review step's hold-and-release rules at the unit tier: the real `hold_and_release`
handed an in-memory ledger (tests/support/fake_ledger.py, held to the store's contract by
tests/unit/state/test_ledger_contract.py, approvals included) and a judge that says each
case's verdict, so no case is built, no database file opened (issue 47.1: the review step had
no unit test; tests/integration/engine/test_review.py runs it on the store through a run).

One rule a test: nothing held is in the work queue; an approval covers one version of the
evidence; the deadline sweep approves only complete evidence, only from a deadline the API
confirmed, only inside its window, never a case its own records concede or a stance the
analyst has not chosen; a held dispute nobody approved in time is past due, nothing sent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dispute_evidence.engine.review.approval import (
    SWEEP,
    Candidate,
    ReviewOutcome,
    Verdict,
    hold_and_release,
    record_approval,
)
from dispute_evidence.policies import ReviewPolicy
from dispute_evidence.state.lifecycle import DisputeStatus
from tests.support.fake_ledger import FakeLedger

D = DisputeStatus
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
FILE = ("f" * 64, "receipt.pdf", "uploaded", "document")


def _ledger(*pids: str) -> FakeLedger:
    ledger = FakeLedger()
    for pid in pids:
        ledger.add_dispute(pid, b'{"products": []}', f"h-{pid}", "2026-12-20T23:59:59Z")
    return ledger


def _candidate(
    ledger: FakeLedger,
    pid: str,
    *,
    files: tuple[tuple[str, str, str, str], ...] = (FILE,),
    due: datetime | None = None,
    confirmed_due: datetime | None = None,
) -> Candidate:
    """The dispute as review reads it from the ledger now (approval.py `candidates`)."""
    d = ledger.rows.dispute(pid)
    return Candidate(
        pid, d["status"], d["payload"], d["payload_hash"], d["submitted_hash"],
        d["approved_hash"], due, files, confirmed_due,
    )  # fmt: skip


def _review(
    ledger: FakeLedger, policy: ReviewPolicy, looked: list[Candidate], verdict: Verdict
) -> ReviewOutcome:
    out = ReviewOutcome(sweep_on=policy.sweep_hours is not None)
    hold_and_release(ledger, policy, looked, lambda _c: verdict, NOW, out)
    return out


def _status(ledger: FakeLedger, pid: str) -> str:
    return str(ledger.rows.dispute(pid)["status"])


def test_nothing_is_held_when_the_policy_holds_nothing_and_the_case_does_not_concede():
    ledger = _ledger("dp_1")
    out = _review(ledger, ReviewPolicy(), [_candidate(ledger, "dp_1")], Verdict(complete=False))
    assert out.held == [] and _status(ledger, "dp_1") == D.PENDING
    assert ledger.disputes.work_queue() == ["dp_1"]


def test_a_held_dispute_leaves_the_queue_until_this_version_is_approved():
    ledger, policy = _ledger("dp_1"), ReviewPolicy(hold="all")
    out = _review(ledger, policy, [_candidate(ledger, "dp_1")], Verdict(complete=True))
    assert out.held == ["dp_1"] and _status(ledger, "dp_1") == D.AWAITING_APPROVAL
    assert ledger.disputes.work_queue() == []
    assert record_approval(ledger, _candidate(ledger, "dp_1"), "alice (approve command)")
    out = _review(ledger, policy, [_candidate(ledger, "dp_1")], Verdict(complete=True))
    assert out.held == [] and ledger.disputes.work_queue() == ["dp_1"]
    assert [e["approved_by"] for e in ledger.approvals.log] == ["alice (approve command)"]


def test_evidence_that_changes_after_its_approval_is_held_again():
    ledger, policy = _ledger("dp_1"), ReviewPolicy(hold="all")
    _review(ledger, policy, [_candidate(ledger, "dp_1")], Verdict(complete=True))
    assert record_approval(ledger, _candidate(ledger, "dp_1"), "alice")
    another_file = ("e" * 64, "photo.png", "pending", "document")  # a file matched since
    changed = _candidate(ledger, "dp_1", files=(FILE, another_file))
    out = _review(ledger, policy, [changed], Verdict(complete=True))
    assert out.held == ["dp_1"] and _status(ledger, "dp_1") == D.AWAITING_APPROVAL


def test_a_released_dispute_whose_payload_was_sent_goes_back_to_submitted():
    ledger, policy = _ledger("dp_1"), ReviewPolicy(hold="all")
    ledger.rows.dispute("dp_1")["submitted_hash"] = "h-dp_1"  # its evidence went; a file waits
    ledger.transitions.mark_awaiting_approval("dp_1")
    assert record_approval(ledger, _candidate(ledger, "dp_1"), "alice")
    _review(ledger, policy, [_candidate(ledger, "dp_1")], Verdict(complete=True))
    assert _status(ledger, "dp_1") == D.SUBMITTED


def test_the_sweep_approves_complete_evidence_inside_its_window_of_a_confirmed_deadline():
    ledger = _ledger("dp_in", "dp_early", "dp_sheet_only")
    policy = ReviewPolicy(hold="all", sweep_hours=24)
    looked = [
        _candidate(ledger, "dp_in", confirmed_due=NOW + timedelta(hours=12)),
        _candidate(ledger, "dp_early", confirmed_due=NOW + timedelta(hours=48)),
        _candidate(ledger, "dp_sheet_only", due=NOW + timedelta(hours=12)),  # the sheet's alone
    ]
    out = _review(ledger, policy, looked, Verdict(complete=True))
    assert out.swept == ["dp_in"] and _status(ledger, "dp_in") == D.PENDING
    assert ledger.rows.dispute("dp_in")["approved_by"] == SWEEP
    assert out.held == ["dp_early", "dp_sheet_only"]
    assert out.sweep_at == {"dp_early": "2026-11-29 12:00 UTC"}
    assert out.sweep_waits == ["dp_sheet_only"]  # never sent unapproved on a sheet's deadline


def test_the_sweep_never_sends_incomplete_conceding_or_unconfirmed_cases():
    policy = ReviewPolicy(hold="incomplete", sweep_hours=24)
    window = NOW + timedelta(hours=12)
    for verdict in (
        Verdict(complete=False),
        Verdict(complete=True, accept="advice: accept (refunded 2026-10-02)"),
        Verdict(complete=True, confirm=True),
    ):
        ledger = _ledger("dp_1")
        out = _review(ledger, policy, [_candidate(ledger, "dp_1", confirmed_due=window)], verdict)
        assert out.swept == [] and out.held == ["dp_1"], verdict
        assert _status(ledger, "dp_1") == D.AWAITING_APPROVAL
        assert ledger.rows.dispute("dp_1")["detail"] == (verdict.accept or None)


def test_a_held_dispute_nobody_approved_in_time_is_past_due_with_nothing_sent():
    ledger, policy = _ledger("dp_1"), ReviewPolicy(hold="all")
    ledger.transitions.mark_awaiting_approval("dp_1")
    late = _candidate(ledger, "dp_1", due=NOW - timedelta(minutes=1))
    out = _review(ledger, policy, [late], Verdict(complete=True))
    d = ledger.rows.dispute("dp_1")
    assert out.held == [] and d["status"] == D.PAST_DUE
    assert "nobody approved it, so nothing was sent" in d["detail"]


def test_a_release_that_an_approve_made_first_is_not_an_error():
    ledger, policy = _ledger("dp_1"), ReviewPolicy(hold="all")
    ledger.transitions.mark_awaiting_approval("dp_1")
    assert record_approval(ledger, _candidate(ledger, "dp_1"), "alice")
    read_before = _candidate(ledger, "dp_1")  # read while still held ...
    ledger.transitions.release_approval("dp_1", D.PENDING)  # ... released by `approve` at once
    _review(ledger, policy, [read_before], Verdict(complete=True))
    assert _status(ledger, "dp_1") == D.PENDING
