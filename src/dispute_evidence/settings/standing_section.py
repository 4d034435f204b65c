"""`[standing]` of the configuration (settings/model.py): the card programs' dispute-ratio
thresholds by the day they took effect, the count floors, the level the report warns at, how a
fraud dispute with a fraud report counts, and the fines and acquirer tiers. The defaults are the
network records' programs (networks.py) and ../shared/spec/monitoring-programs.md."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dispute_evidence.networks import AMEX, DISCOVER, MASTERCARD, VISA, Network, Schedule
from dispute_evidence.policies import ACQUIRER_TIERS, StandingPolicy, Tier


def _schedule(network: Network) -> dict[str, float]:
    return dict(network.program.thresholds) if network.program else {}


def _floor(network: Network) -> int:
    return network.program.floor if network.program else 0


def _day(text: str, where: str) -> str:
    """`text` when it is a real calendar day written YYYY-MM-DD; else the one-line error."""
    try:
        if len(text) == 10 and date.fromisoformat(text):
            return text
    except ValueError:
        pass
    raise ValueError(f"{where} {text!r}: write a real day as 'YYYY-MM-DD' (such as 2026-04-01)")


class TierSetting(BaseModel):
    """One acquirer tier: from `percent`, `fine_usd` per counted event, from the day `from`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    percent: float = Field(gt=0, le=100)
    fine_usd: float = Field(0.0, ge=0, le=10_000)
    since: str = Field(alias="from")
    source: str = ""

    @field_validator("since")
    @classmethod
    def _real_day(cls, value: str) -> str:
        return _day(value, "from")


class StandingSection(BaseModel):
    """`[standing]`: the card programs' dispute-ratio thresholds the report compares each month
    with (docs/standing.md). Defaults from public program summaries, 2025-2026
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
        default_factory=lambda: _schedule(VISA),
        description="Visa VAMP's merchant threshold by the day it took effect (YYYY-MM-DD = "
        "percent): 2.2% from 1 June 2025, 1.5% from 1 April 2026 (Checkout.com; global "
        "excluding MENA). Months before the first day use the first.",
    )
    visa_floor: int = Field(
        default_factory=lambda: _floor(VISA),
        ge=0,
        le=10**9,
        description="VAMP names a merchant only above 1,500 fraud reports + disputes a month: "
        "the fewest events a month that can be 'over'.",
    )
    mastercard_percent: dict[str, float] = Field(
        default_factory=lambda: _schedule(MASTERCARD),
        description="Mastercard ECM's threshold by the day it took effect: 1.5% (this "
        "month's chargebacks / last month's transactions).",
    )
    mastercard_floor: int = Field(
        default_factory=lambda: _floor(MASTERCARD),
        ge=0,
        le=10**9,
        description="ECM needs at least 100 chargebacks in the month.",
    )
    amex_percent: dict[str, float] = Field(
        default_factory=lambda: _schedule(AMEX),
        description="American Express's threshold, if yours has one.",
    )
    discover_percent: dict[str, float] = Field(
        default_factory=lambda: _schedule(DISCOVER),
        description="Discover's threshold, if yours has one.",
    )
    fraud_dispute_counts: Literal["twice", "once"] = Field(
        "twice",
        description="How VAMP counts a fraud dispute whose fraud report (TC40) is known: "
        "'twice' (the report and the dispute; most sources, Visa fee summaries) or 'once' (an "
        "early fraud warning that becomes a dispute counts once; Rapyd). The status uses this "
        "one; the table shows both where they differ. Confirm with your acquirer.",
    )
    merchant_fine_usd: float = Field(
        8.0,
        ge=0,
        le=10_000,
        description="VAMP's fine per counted event for a merchant named 'excessive' (USD; "
        "Braintree's Fall 2025 guide: $8).",
    )
    merchant_fine_from: str = Field(
        "2025-10-01", description="The day VAMP's merchant fines started (1 October 2025)."
    )
    acquirer_tiers: dict[str, TierSetting] = Field(
        default_factory=lambda: {
            t.name: TierSetting(
                percent=t.percent, fine_usd=t.fine_usd, since=t.since, source=t.source
            )
            for t in ACQUIRER_TIERS
        },
        description="The acquirer's VAMP tiers: name = {percent, fine_usd, from} (Braintree's "
        "Fall 2025 guide: early warning from 0.40%, no fine; above standard from 0.50%, $4 a "
        "count from 1 January 2026; excessive from 0.70%, $8 a count from 1 October 2025).",
    )

    @field_validator("visa_percent", "mastercard_percent", "amex_percent", "discover_percent")
    @classmethod
    def _days(cls, schedule: dict[str, float]) -> dict[str, float]:
        for day, pct in schedule.items():
            _day(day, "threshold from")
            if not 0 < pct <= 100:
                raise ValueError(f"{day} = {pct}: write 'YYYY-MM-DD' = a percent over 0")
        return schedule

    @field_validator("merchant_fine_from")
    @classmethod
    def _fine_day(cls, value: str) -> str:
        return _day(value, "merchant_fine_from")

    def policy(self) -> StandingPolicy:
        pcts = {
            VISA.key: self.visa_percent,
            MASTERCARD.key: self.mastercard_percent,
            AMEX.key: self.amex_percent,
            DISCOVER.key: self.discover_percent,
        }
        thresholds: dict[str, Schedule] = {
            net: tuple(sorted(s.items())) for net, s in pcts.items() if s
        }
        tiers = tuple(
            Tier(name, t.percent, t.fine_usd, t.since, t.source)
            for name, t in self.acquirer_tiers.items()
        )
        return StandingPolicy(
            self.warn_percent,
            thresholds,
            {VISA.key: self.visa_floor, MASTERCARD.key: self.mastercard_floor},
            self.fraud_dispute_counts,
            self.merchant_fine_usd,
            self.merchant_fine_from,
            tiers,
        )
