"""What review hands delivery (issue 47.1b): the disputes held back from sending and why,
decided once, before anything is sent, and carried as data. Delivery sends the rest and
records its moves; it never asks the advice again (the merchant's fight threshold weighs each
dispute's amount from its facts: that is prepare's reading, not delivery's). What the API's own
view of a dispute holds is delivery's: it is compared when the API answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from dispute_evidence.engine.prepare.case import CaseParts, held_by_advice
from dispute_evidence.policies import AdvicePolicy


@dataclass(frozen=True)
class DeliveryPlan:
    """pid -> why it is held back (under the merchant's fight threshold, or an amount the
    threshold cannot weigh); every other dispute of the work queue is sent."""

    held: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def sends(self, pid: str) -> bool:
        return pid not in self.held


def plan_delivery(store: CaseParts, advice: AdvicePolicy) -> DeliveryPlan:
    """The plan as the state stands after prepare and review (a run's, or the approved
    disputes' sent at once)."""
    return DeliveryPlan(MappingProxyType(held_by_advice(store, advice)))


__all__ = ["DeliveryPlan", "plan_delivery"]
