"""The report's decisions per dispute (its next step, its plain state, whether it needs a
person) read the typed row: a hold, a verdict and the advice, whatever words they carry."""

from __future__ import annotations

from typing import Any

from dispute_evidence.engine.delivery.api_views import held_text
from dispute_evidence.engine.reporting.report import _next_step, needs_something, plain_state
from dispute_evidence.reports.rows import DisputeRow
from dispute_evidence.states import HELD, LIMIT_HELD, HoldKind, VerdictKind

LIMIT_LINE = f"{LIMIT_HELD}Visa limit: 3 files against at most 2"


def row(**cells: Any) -> DisputeRow:
    record = {"provider_dispute_id": "dp_1", "status": "submitted", "status_words": "sent",
              "days_left": 4, "files_total": 2, "files_uploaded": 2, "detail": None,
              "what_to_add": "", "completeness": "complete", "advice": ""}  # fmt: skip
    return DisputeRow.of(record | cells)


def test_a_table_record_is_read_into_typed_values() -> None:
    r = row(days_left=float("nan"), detail=LIMIT_LINE, completeness="weak: refunded")
    assert r.days_left is None
    assert r.hold is not None and r.hold.kind is HoldKind.LIMIT and r.held
    assert (r.verdict.kind, r.verdict.words) == (VerdictKind.WEAK, "refunded")


def test_a_sent_dispute_whose_update_is_held_says_so() -> None:
    r = row(detail=LIMIT_LINE)
    assert plain_state(r) == "sent, an update is held, complete, 4 days left"
    assert _next_step(r, dry_run=False) == "an update is " + LIMIT_LINE
    assert needs_something(r)


def test_the_apis_differing_view_is_the_next_step_whatever_waits() -> None:
    detail = held_text("the API says 12.00 EUR, the list 10.00 EUR")
    assert _next_step(row(detail=detail, files_uploaded=0), dry_run=True) == detail


def test_advice_accept_waits_for_approval_with_its_reason() -> None:
    r = row(status="awaiting_approval", detail="advice: accept (the order was cancelled)")
    assert plain_state(r).startswith("advice: accept (the order was cancelled), not sent")
    assert _next_step(r, dry_run=False).startswith("accept the dispute")
    assert not needs_something(r)  # a decision to approve, not evidence to add


def test_a_dispute_held_under_the_fight_threshold_says_the_advice_as_its_next_step() -> None:
    advice = f"{HELD} (5.00 is under 10.00)"
    assert _next_step(row(status="pending", advice=advice), dry_run=False) == advice


def test_missing_evidence_is_named_and_needs_a_person() -> None:
    r = row(completeness="missing: proof of delivery", what_to_add="a tracking number")
    assert plain_state(r) == "sent, still missing proof of delivery, 4 days left"
    assert _next_step(r, dry_run=False) == "add: a tracking number; the next run sends it"
    assert needs_something(r)
