"""Fight or accept: per open dispute, the expected value of fighting it,
P(win) x disputed amount - the cost of fighting (the `[advice] dispute_fee` setting).

P(win) starts from PRIORS, a cautious starting guess per reason family (not a measured rate),
halved when the evidence misses what the reason needs, and VISA_CE3 for a fraud dispute that
qualifies for Visa CE 3.0 (the issuer can no longer hold the cardholder's claim when it does).
Once at least MIN_CLOSED disputes of the same reason and evidence verdict are decided (won or
lost, read back from the API), else of the same reason, the merchant's own rate takes over,
shrunk toward that prior as a beta prior weighing PRIOR_WEIGHT disputes: (won + w x prior) /
(decided + w). Ten outcomes move it part of the way, two hundred nearly all of it. The advice
says which it used.

Advice only: nothing is withheld, unless the merchant sets `[advice] hold_under_amount`: a
dispute under that amount is then held ("held: under your fight threshold"), and so is one
whose disputed amount is unknown ("held: amount unknown"): it is neither under nor over the
threshold, so nothing decides that it should go. Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from dispute_evidence.evidence.playbooks import PLAYBOOKS, family_of
from dispute_evidence.policies import AdvicePolicy
from dispute_evidence.states import HELD, HELD_UNKNOWN

MIN_CLOSED = 10  # decided disputes (won + lost) before our own rate counts (what wins' floor)
PRIOR_WEIGHT = 10  # the prior weighs as this many decided disputes
PRIORS = {p.family: p.prior for p in PLAYBOOKS}  # each playbook's (evidence/playbooks.py)
MISSING_FACTOR = 0.5  # evidence that misses what the reason needs wins about half as often
VISA_CE3 = 0.70
ACCEPT = "accept"


@dataclass(frozen=True)
class Advice:
    action: str  # "fight", "accept" or HELD
    p_win: float
    basis: str  # where P(win) came from, in words
    expected: float | None  # P(win) x amount - fee; None without an amount

    @property
    def text(self) -> str:
        if self.action in (HELD, HELD_UNKNOWN):
            return f"{self.action} ({self.basis})"
        if self.action == ACCEPT and self.p_win == 0.0:
            return f"accept: your own records concede it ({self.basis})"
        if self.expected is None:
            return f"{self.action}: no disputed amount to weigh (P(win) {self.p_win:.0%}, {self.basis})"
        return (
            f"{self.action}: expected {self.expected:+,.2f} (P(win) {self.p_win:.0%}, {self.basis})"
        )


class OwnOutcomes:
    """Won and lost counts by (reason, complete?) and by reason, from the disputes decided."""

    def __init__(self, decided: Iterable[tuple[str, bool, bool]]) -> None:
        """`decided`: (reason, evidence complete?, won?) per dispute won or lost."""
        self.by_verdict: Counter[tuple[str, bool, bool]] = Counter()
        self.by_reason: Counter[tuple[str, bool]] = Counter()
        for reason, complete, won in decided:
            key = reason.strip().lower()
            self.by_verdict[(key, complete, won)] += 1
            self.by_reason[(key, won)] += 1

    def rate(self, reason: str, complete: bool) -> tuple[int, int, str] | None:
        """(won, decided, whose) of the same reason and verdict, else of the reason, once at
        least MIN_CLOSED are decided; None before."""
        key = reason.strip().lower()
        won, lost = self.by_verdict[(key, complete, True)], self.by_verdict[(key, complete, False)]
        verdict = "complete" if complete else "incomplete"
        if won + lost >= MIN_CLOSED:
            return (
                won,
                won + lost,
                f"your {won + lost} closed {key} disputes with {verdict} evidence",
            )
        won, lost = self.by_reason[(key, True)], self.by_reason[(key, False)]
        if won + lost >= MIN_CLOSED:
            return won, won + lost, f"your {won + lost} closed {key} disputes"
        return None

    def decided(self, reason: str) -> int:
        key = reason.strip().lower()
        return self.by_reason[(key, True)] + self.by_reason[(key, False)]


def p_win(reason: str, complete: bool, ce3: bool, own: OwnOutcomes) -> tuple[float, str]:
    """P(win) and where it came from: the prior, or your own rate shrunk toward it."""
    prior, basis = prior_win(reason, complete, ce3)
    found = own.rate(reason, complete)
    if found is None:
        n = own.decided(reason)
        return prior, basis + (f"; {n} of yours decided, too few to use" if n else "")
    won, n, whose = found
    p = (won + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT)
    return p, f"{whose}, {won} won, shrunk toward the {basis} ({prior:.0%})"


def prior_win(reason: str, complete: bool, ce3: bool) -> tuple[float, str]:
    """The prior P(win) and its words."""
    family = family_of(reason)
    if ce3 and family == "fraud":
        return VISA_CE3, "prior for fraud with Visa CE 3.0"
    prior = PRIORS[family]
    if complete:
        return prior, f"prior for {family.replace('_', ' ')}"
    return prior * MISSING_FACTOR, f"prior for {family.replace('_', ' ')}, evidence incomplete"


def advise(
    reason: str,
    complete: bool,
    amount: float | None,
    own: OwnOutcomes,
    policy: AdvicePolicy,
    ce3: bool = False,
    concede: tuple[str, ...] = (),
    days_open: int | None = None,
) -> Advice:
    """Fight when P(win) x amount beats the fee; held under the merchant's threshold. Accept,
    whatever the odds, when the merchant's own data concedes the claim (`concede`: why, from
    the case's contradictions: a cancelled, fully refunded or never-fulfilled order)."""
    p, basis = p_win(reason, complete, ce3, own)
    fee = policy.fee(days_open)
    if days_open is not None and policy.fee_by_days:
        basis += f"; fee {fee:,.2f} on day {days_open} of the dispute"
    if concede:
        return Advice(ACCEPT, 0.0, "; ".join(concede), None if amount is None else -fee)
    if amount is None and policy.hold_under_amount is not None:
        return Advice(HELD_UNKNOWN, p, unknown_amount_words(policy.hold_under_amount), None)
    if amount is None:
        return Advice("fight", p, basis, None)
    expected = round(p * amount - fee, 2)
    if policy.hold_under_amount is not None and amount < policy.hold_under_amount:
        return Advice(HELD, p, f"{amount:,.2f} is under {policy.hold_under_amount:,.2f}", expected)
    return Advice("fight" if expected > 0 else "accept", p, basis, expected)


def unknown_amount_words(limit: float) -> str:
    """Why a dispute without an amount is held while a threshold is set."""
    return (
        f"no disputed amount in the disputes list, so it is neither under nor over your "
        f"hold_under_amount of {limit:,.2f}; add its amount to the disputes list to decide"
    )
