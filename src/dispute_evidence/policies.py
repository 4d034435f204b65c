"""The policies the settings hand the engine: plain, frozen values, importing nothing of the
product's own. `settings/` builds them from its sections; `engine/` and `evidence/` read
them. Kept low so that loading the settings loads no engine (and no pandas, SQLAlchemy or
aiohttp)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from dispute_evidence.networks import (
    ALL,
    DEFAULT_LIMITS,
    NETWORKS,
    PROGRAM_NETWORKS,
    VISA,
    Schedule,
    program_of,
)
from dispute_evidence.networks import (
    PROFILE_NAMES as PROFILE_NAMES,
)
from dispute_evidence.networks import (
    LimitProfile as LimitProfile,
)

Hold = Literal["none", "incomplete", "all"]
Outcome = Literal["won", "lost", "open"]
WON = frozenset({"won"})
LOST = frozenset({"lost", "charge_refunded"})


def outcome(api_status: object) -> Outcome:
    """What a dispute's status read back from the API means for us: won, lost, or still open."""
    s = str(api_status or "").lower()
    return "won" if s in WON else "lost" if s in LOST else "open"


@dataclass(frozen=True)
class ReviewPolicy:
    """`[review]`: which disputes wait for a person's approval, and the deadline sweep."""

    hold: Hold = "none"
    sweep_hours: float | None = None  # the deadline sweep (None: off)
    approvers: tuple[str, ...] = ()  # who may approve (empty: anyone); engine/review/approval.py
    second_approver_over: float | None = None  # above this amount, two approvers are needed
    hold_no_claim: bool = True  # a dispute whose letter would make no claim waits for approval

    def holds(self, complete: bool) -> bool:
        return self.hold == "all" or (self.hold == "incomplete" and not complete)

    @property
    def needs_verdict(self) -> bool:
        """Whether holding depends on the evidence verdict (assessing every payload costs)."""
        return self.hold == "incomplete" or (self.hold == "all" and self.sweep_hours is not None)

    def sweep_from(self, due: datetime | None) -> datetime | None:
        """When the sweep sends complete held evidence (None: never)."""
        if self.sweep_hours is None or due is None:
            return None
        return due - timedelta(hours=self.sweep_hours)


@dataclass(frozen=True)
class ReadPolicy:
    """`[readback]`: which API statuses end a dispute or hold a resend, and the read budget."""

    closed: frozenset[str] = frozenset(
        {
            "won",
            "lost",
            "warning_closed",
            "charge_refunded",
            "closed",
            "accepted",
            "withdrawn",
            "expired",
            "resolved",
        }
    )
    under_review: frozenset[str] = frozenset({"under_review", "warning_under_review"})
    resend_under_review: bool = False
    read_share: float = 0.10  # of the hour's request budget, at most, per run
    refresh_hours: float = 24.0  # an open dispute with nothing to send is read this often

    def holds(self, status: str | None) -> bool:
        """Under review, and changed evidence may not go to it (the default)."""
        return (status or "").lower() in self.under_review and not self.resend_under_review

    def is_closed(self, status: str | None) -> bool:
        s = (status or "").lower()
        return s in self.closed or s.endswith("_closed")


@dataclass(frozen=True)
class AlertPolicy:
    """`[alerts]`: how near a deadline a dispute is at risk, and where alerts go."""

    hours: float = 48.0
    events: bool = True
    block: str | None = None  # '<block type slug>/<name>' of a Prefect notification block


@dataclass(frozen=True)
class AdvicePolicy:
    """`[advice]`: the cost of fighting one dispute, and the amount under which one is held."""

    dispute_fee: float = 15.0
    hold_under_amount: float | None = None
    # (up to this many days since the dispute opened, the fee then), ascending; empty: flat
    fee_by_days: tuple[tuple[int, float], ...] = ()

    def fee(self, days_open: int | None) -> float:
        """What fighting costs on this day of the dispute (networks charge more later); the
        flat `dispute_fee` when there is no schedule or the opening day is not known."""
        if not self.fee_by_days or days_open is None:
            return self.dispute_fee
        return next(
            (f for limit, f in self.fee_by_days if days_open <= limit), self.fee_by_days[-1][1]
        )


@dataclass(frozen=True)
class RetentionPolicy:
    """`[retention]`: days after which customer data, report folders and archived drops go
    (None: kept; engine/prepare/retention_clearing.py)."""

    customer_data_days: int | None = None
    reports_days: int | None = None
    archive_days: int | None = None

    @property
    def active(self) -> bool:
        return any(
            d is not None for d in (self.customer_data_days, self.reports_days, self.archive_days)
        )


STANDING_NETWORKS = PROGRAM_NETWORKS
FraudDisputeCounts = Literal["twice", "once"]


@dataclass(frozen=True)
class Tier:
    """An acquirer's tier under VAMP: from this ratio, this fine per counted event, from this
    day (YYYY-MM-DD: before it, a month falls to the tiers below that were in force)."""

    name: str
    percent: float
    fine_usd: float
    since: str
    source: str = ""


# Braintree's Fall 2025 VAMP guide (../shared/spec/monitoring-programs.md)
ACQUIRER_TIERS = (
    Tier("early warning", 0.40, 0.0, "2025-04-01", "Braintree Fall 2025 VAMP guide"),
    Tier("above standard", 0.50, 4.0, "2026-01-01", "Braintree Fall 2025 VAMP guide"),
    Tier("excessive", 0.70, 8.0, "2025-10-01", "Braintree Fall 2025 VAMP guide"),
)


def _program_thresholds() -> dict[str, Schedule]:
    return {n: p.thresholds for n in PROGRAM_NETWORKS if (p := program_of(n)) and p.thresholds}


def _program_floors() -> dict[str, int]:
    return {n: p.floor for n in PROGRAM_NETWORKS if (p := program_of(n)) and p.floor}


@dataclass(frozen=True)
class StandingPolicy:
    """`[standing]`: each card program's threshold by the day it took effect, the count a
    program names a merchant from, the level the report warns at, how a fraud dispute with a
    fraud report is counted, and what a month costs (standing/counts.py; the defaults are
    the network records' programs, networks.py)."""

    warn_percent: float = 0.9
    thresholds: Mapping[str, Schedule] = field(default_factory=_program_thresholds)
    floors: Mapping[str, int] = field(default_factory=_program_floors)
    # "twice": a fraud dispute counts as its fraud report and its dispute (most sources);
    # "once": a fraud report that became a dispute counts once (Rapyd)
    fraud_dispute_counts: FraudDisputeCounts = "twice"
    merchant_fine_usd: float = 8.0  # VAMP "excessive" merchant, per counted event...
    merchant_fine_from: str = "2025-10-01"  # ... from this day
    acquirer_tiers: tuple[Tier, ...] = ACQUIRER_TIERS
    merchant_country: str = ""  # [merchant] country: Visa's domestic AVS rule turns on it

    def threshold(self, network: str, month: str) -> float | None:
        """The program's percent for a month (YYYY-MM); the first entry for months before it;
        `all` (no card brand known) is held to Visa's, the strictest; None: no program."""
        schedule = self.thresholds.get(VISA.key if network == ALL else network, ())
        if not schedule:
            return None
        first_day = f"{month}-01"
        return next((pct for day, pct in reversed(schedule) if day <= first_day), schedule[0][1])

    def floor(self, network: str) -> int:
        return self.floors.get(VISA.key if network == ALL else network, 0)

    def tier(self, percent: float, month: str) -> Tier | None:
        """The acquirer's highest tier in force in `month` that `percent` reaches."""
        first_day = f"{month}-01"
        reached = [t for t in self.acquirer_tiers if t.since <= first_day and percent >= t.percent]
        return max(reached, key=lambda t: t.percent, default=None)

    def merchant_fine(self, month: str) -> float:
        """VAMP's fine per counted event for a merchant named "excessive" in `month`."""
        return self.merchant_fine_usd if f"{month}-01" >= self.merchant_fine_from else 0.0


# -- [evidence] upload and limits (evidence/limits.py checks them; docs/packet.md) -------------
Upload = Literal["files", "packet"]


LIMIT_FIGURES = ("max_pages", "max_total_bytes", "max_file_bytes", "max_files", "max_image_side")
# Stripe's figures as `default`, then each network's own (its record in networks.py)
PROFILES: dict[str, LimitProfile] = {
    DEFAULT_LIMITS.name: DEFAULT_LIMITS,
    **{n.limits.name: n.limits for n in NETWORKS},
}


def profiles(overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, LimitProfile]:
    """The built-in profiles with the configuration's figures laid over them."""
    out = dict(PROFILES)
    for name, figures in (overrides or {}).items():
        base = out.get(name, PROFILES["default"])
        out[name] = replace(base, name=name, **{k: int(v) for k, v in figures.items()})
    return out


@dataclass(frozen=True)
class PacketPolicy:
    """`[evidence] upload` and `limits`: what goes to the API, and against which limits."""

    upload: Upload = "files"
    limits: str = "auto"  # a profile name, or 'auto': from the card brand in the exports
    profiles: Mapping[str, LimitProfile] = field(default_factory=lambda: dict(PROFILES))
    # the merchant's contact on the letter's head (`[merchant] merchant_contact`): cosmetic, so
    # not in the signature (a new contact makes no new version)
    contact: str = ""

    def signature(self) -> str:
        """What a generated PDF depends on here (a change may make a new one)."""
        shape = repr((self.upload, self.limits, sorted(self.profiles.items())))
        return hashlib.sha256(shape.encode()).hexdigest()
