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
        {"won", "lost", "warning_closed", "charge_refunded", "closed", "accepted", "withdrawn",
         "expired", "resolved"}
    )  # fmt: skip
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
    (None: kept; engine/prepare/retention.py)."""

    customer_data_days: int | None = None
    reports_days: int | None = None
    archive_days: int | None = None

    @property
    def active(self) -> bool:
        return any(
            d is not None for d in (self.customer_data_days, self.reports_days, self.archive_days)
        )


Schedule = tuple[tuple[str, float], ...]  # (from this day, YYYY-MM-DD: this percent), ascending
STANDING_NETWORKS = ("visa", "mastercard", "amex", "discover")


@dataclass(frozen=True)
class StandingPolicy:
    """`[standing]`: each card program's threshold by the day it took effect, the count a
    program names a merchant from, and the level the report warns at (evidence/standing.py)."""

    warn_percent: float = 0.9
    # Visa VAMP, merchant "excessive": 2.2% from 1 June 2025, 1.5% from 1 April 2026
    thresholds: Mapping[str, Schedule] = field(
        default_factory=lambda: {
            "visa": (("2025-06-01", 2.2), ("2026-04-01", 1.5)),
            "mastercard": (("2025-01-01", 1.5),),  # ECM: 1.5%, long standing
        }
    )
    # named only from this many events a month: Visa more than 1,500 fraud reports + disputes,
    # Mastercard 100 chargebacks
    floors: Mapping[str, int] = field(default_factory=lambda: {"visa": 1501, "mastercard": 100})

    def threshold(self, network: str, month: str) -> float | None:
        """The program's percent for a month (YYYY-MM); the first entry for months before it;
        `all` (no card brand known) is held to Visa's, the strictest; None: no program."""
        schedule = self.thresholds.get("visa" if network == "all" else network, ())
        if not schedule:
            return None
        first_day = f"{month}-01"
        return next((pct for day, pct in reversed(schedule) if day <= first_day), schedule[0][1])

    def floor(self, network: str) -> int:
        return self.floors.get("visa" if network == "all" else network, 0)


# -- [evidence] upload and limits (evidence/limits.py checks them; docs/packet.md) -------------
Upload = Literal["files", "packet"]
MB = 1_000_000
PROFILE_NAMES = ("visa", "mastercard", "amex", "default")


@dataclass(frozen=True)
class LimitProfile:
    name: str
    max_pages: int  # all of one dispute's evidence together
    max_total_bytes: int  # all of one dispute's evidence together
    max_file_bytes: int  # any one file
    max_files: int  # files one dispute may carry
    max_image_side: int  # longest side of a placed image, pixels (300 DPI on A4: 3508)


LIMIT_FIGURES = ("max_pages", "max_total_bytes", "max_file_bytes", "max_files", "max_image_side")
PROFILES: dict[str, LimitProfile] = {
    "default": LimitProfile("default", 49, 4_500_000, 5 * MB, 50, 3508),
    "visa": LimitProfile("visa", 49, 4_500_000, 5 * MB, 50, 3508),
    "mastercard": LimitProfile("mastercard", 19, 14_500_000, 14_500_000, 50, 3508),
    "amex": LimitProfile("amex", 20, 25 * MB, 5 * MB, 5, 3508),
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
