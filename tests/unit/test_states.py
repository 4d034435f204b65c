"""The typed states read back the very lines their writers keep, and give them back unchanged."""

from __future__ import annotations

import pytest

from dispute_evidence.engine.delivery.api_views import held_text
from dispute_evidence.evidence.advice import OwnOutcomes, advise
from dispute_evidence.evidence.completeness import Verdict
from dispute_evidence.evidence.limits import LIMIT_HELD
from dispute_evidence.policies import AdvicePolicy
from dispute_evidence.states import (
    AdviceKind,
    AdviceLine,
    Hold,
    HoldKind,
    VerdictKind,
    VerdictLine,
)


@pytest.mark.parametrize(
    ("verdict", "kind", "words"),
    [
        (Verdict("fraud", (), (), ()), VerdictKind.COMPLETE, ""),
        (Verdict("fraud", ("delivery", "AVS"), (), ()), VerdictKind.MISSING, "delivery, AVS"),
        (Verdict("fraud", (), (), (), ("refunded",)), VerdictKind.WEAK, "refunded"),
    ],
)
def test_a_verdict_is_read_from_the_assessments_text_and_written_back(verdict, kind, words):
    line = VerdictLine.parse(verdict.text)
    assert (line.kind, line.words, line.text) == (kind, words, verdict.text)


@pytest.mark.parametrize("cell", ["waiting for data", "", None, float("nan")])
def test_no_verdict_is_unknown_and_wants_nothing(cell):
    line = VerdictLine.parse(cell)
    assert line.kind is VerdictKind.UNKNOWN and not line.wanting


@pytest.mark.parametrize(
    ("detail", "kind"),
    [
        (f"{LIMIT_HELD}Visa limit: 3 files against at most 2", HoldKind.LIMIT),
        (held_text("the API says 12.00 EUR, the list 10.00 EUR"), HoldKind.API_VIEW),
        ("held: orders.csv row 3 was not used (no date), so the order would go out", HoldKind.DATA),
        ("advice: accept (the order was cancelled)", HoldKind.ADVICE_ACCEPT),
    ],
)
def test_a_hold_is_read_from_the_disputes_detail(detail, kind):
    hold = Hold.parse(detail)
    assert hold is not None and (hold.kind, hold.text) == (kind, detail)
    assert hold.held is (kind is not HoldKind.ADVICE_ACCEPT)


@pytest.mark.parametrize("detail", [None, "", "response was due by 2026-01-01", "refused: 400"])
def test_a_detail_that_holds_nothing_is_no_hold(detail):
    assert Hold.parse(detail) is None


@pytest.mark.parametrize(
    ("amount", "policy", "kind"),
    [
        (5.0, AdvicePolicy(hold_under_amount=10.0), AdviceKind.HELD_UNDER),
        (None, AdvicePolicy(hold_under_amount=10.0), AdviceKind.HELD_UNKNOWN),
        (500.0, AdvicePolicy(), AdviceKind.FIGHT),
        (1.0, AdvicePolicy(), AdviceKind.ACCEPT),
    ],
)
def test_advice_is_read_from_the_advice_text(amount, policy, kind):
    text = advise("fraudulent", True, amount, OwnOutcomes(()), policy).text
    line = AdviceLine.parse(text)
    assert (line.kind, line.text) == (kind, text)
    assert line.held is (kind in (AdviceKind.HELD_UNDER, AdviceKind.HELD_UNKNOWN))
