"""Decisions as data (issue 47.1b): review hands delivery a plan of what is held back and why;
delivery sends what the plan does not hold and never asks the advice again (no module of
engine/delivery imports prepare's advice or builds a case itself: the API's view is compared
with the disputes list's view kept in the facts, evidence/views.py sheet_view)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import MappingProxyType

from dispute_evidence.engine.review.plan import DeliveryPlan
from tests.support.source import nodes_of

DELIVERY = Path(__file__).resolve().parents[3] / "src/dispute_evidence/engine/delivery"
ASKED_AGAIN = {"held_by_advice", "build_case", "pending_by_threshold"}


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in nodes_of(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.ImportFrom):
            names |= {a.name for a in node.names}
            names.add(node.module or "")
    return names


def test_delivery_never_asks_the_advice_again() -> None:
    for path in sorted(DELIVERY.glob("*.py")):
        imported = _imported_names(path)
        assert not imported & ASKED_AGAIN, f"{path.name} decides again: {imported & ASKED_AGAIN}"
        assert "dispute_evidence.engine.prepare.case" not in imported, path.name
        assert "dispute_evidence.evidence.case_build" not in imported, (
            f"{path.name} builds the case"
        )


def test_the_plan_sends_what_it_does_not_hold() -> None:
    plan = DeliveryPlan(MappingProxyType({"dp_1": "held: under the fight threshold"}))
    assert not plan.sends("dp_1") and plan.sends("dp_2")
    assert DeliveryPlan().sends("dp_1")
