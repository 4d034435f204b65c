"""`[standing]` of the configuration (settings/model.py): the card programs' dispute-ratio thresholds
by the day they took effect, the count floors, and the level the report warns at."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dispute_evidence.policies import StandingPolicy


class StandingSection(BaseModel):
    """`[standing]`: the card programs' dispute-ratio thresholds the report compares each month
    with (docs: the merchant's standing). Defaults from public program summaries, 2025-2026
    (../shared/spec/monitoring-programs.md); figures differ by region: set yours here."""

    model_config = ConfigDict(extra="forbid")

    warn_percent: float = Field(
        0.9,
        gt=0,
        le=100,
        description="A month at or over this ratio is 'watch': acquirers warn well below the "
        "programs (many near 0.9-1%).",
    )
    visa_percent: dict[str, float] = Field(
        default_factory=lambda: {"2025-06-01": 2.2, "2026-04-01": 1.5},
        description="Visa VAMP's merchant threshold by the day it took effect (YYYY-MM-DD = "
        "percent): 2.2% from 1 June 2025, 1.5% from 1 April 2026 (Checkout.com; global "
        "excluding MENA). Months before the first day use the first.",
    )
    visa_floor: int = Field(
        1501, ge=0, le=10**9, description="VAMP names a merchant only above 1,500 fraud reports + "
        "disputes a month: the fewest events a month that can be 'over'.",
    )  # fmt: skip
    mastercard_percent: dict[str, float] = Field(
        default_factory=lambda: {"2025-01-01": 1.5},
        description="Mastercard ECM's threshold by the day it took effect: 1.5% (this "
        "month's chargebacks / last month's transactions).",
    )
    mastercard_floor: int = Field(
        100, ge=0, le=10**9, description="ECM needs at least 100 chargebacks in the month."
    )
    amex_percent: dict[str, float] = Field(
        default_factory=dict, description="American Express's threshold, if yours has one."
    )
    discover_percent: dict[str, float] = Field(
        default_factory=dict, description="Discover's threshold, if yours has one."
    )

    @field_validator("visa_percent", "mastercard_percent", "amex_percent", "discover_percent")
    @classmethod
    def _days(cls, schedule: dict[str, float]) -> dict[str, float]:
        for day, pct in schedule.items():
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) or not 0 < pct <= 100:
                raise ValueError(f"{day} = {pct}: write 'YYYY-MM-DD' = a percent over 0")
        return schedule

    def policy(self) -> StandingPolicy:
        pcts = {"visa": self.visa_percent, "mastercard": self.mastercard_percent,
                "amex": self.amex_percent, "discover": self.discover_percent}  # fmt: skip
        return StandingPolicy(
            self.warn_percent,
            {net: tuple(sorted(s.items())) for net, s in pcts.items() if s},
            {"visa": self.visa_floor, "mastercard": self.mastercard_floor},
        )
