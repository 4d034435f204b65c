"""The review policy a state keeps: once a state has held evidence for review, a run whose
settings say less (another working directory, a cron job without the variable) still holds.

The state records the strictest `[review] hold` any run used (and the sweep that run had).
A run configured stricter raises it; a run configured looser keeps the state's and says so in
its first lines. Only `dispute-evidence review --hold ...` lowers it: turning review off is a
decision someone makes, never a setting that went missing. The sweep follows the run's
settings (without one, nothing is sent unapproved), and a change of it is said too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, cast

from dispute_evidence.policies import Hold, ReviewPolicy
from dispute_evidence.state.holders import HasKept
from dispute_evidence.state.kept import KeptPolicyRow
from dispute_evidence.state.store import now_iso


class PolicyParts(HasKept, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


STRICTNESS: dict[str, int] = {"none": 0, "incomplete": 1, "all": 2}


@dataclass(frozen=True)
class KeptPolicy:
    """The review policy recorded in a state, and since when and by what."""

    hold: Hold
    sweep_hours: float | None
    since: str
    by: str  # "a run" or "the review command"

    def words(self) -> str:
        sweep = f", deadline sweep {self.sweep_hours:g} h" if self.sweep_hours else ""
        return f'hold = "{self.hold}"{sweep}, set by {self.by} on {self.since[:10]}'


def kept_policy(store: PolicyParts) -> KeptPolicy | None:
    row = store.kept.kept_review_policy()
    if row is None:
        return None
    return KeptPolicy(cast(Hold, row.hold), row.sweep_hours, row.since, row.by)


def keep_policy(store: PolicyParts, hold: Hold, sweep_hours: float | None, by: str) -> KeptPolicy:
    kept = KeptPolicy(hold, sweep_hours, now_iso(), by)
    store.kept.keep_review_policy(KeptPolicyRow(hold, sweep_hours, kept.since, by))
    return kept


def policy_for_state(
    store: PolicyParts, configured: ReviewPolicy, inbox: str = "INBOX"
) -> tuple[ReviewPolicy, list[str]]:
    """The policy this run applies to this state, and the lines that say how it differs from
    the run's settings (empty when it does not)."""
    kept = kept_policy(store)
    if kept is None:
        if configured.hold != "none":  # from now on this state holds
            keep_policy(store, configured.hold, configured.sweep_hours, "a run")
        return configured, []
    if STRICTNESS[configured.hold] < STRICTNESS[kept.hold]:
        return replace(configured, hold=kept.hold), _kept_line(kept, configured, inbox)
    lines = []
    sweep_moved = configured.hold != "none" and configured.sweep_hours != kept.sweep_hours
    if configured.hold != kept.hold or sweep_moved:  # (nothing held: no sweep to speak of)
        lines.append(
            f"Review: {_words(configured)} from this run's settings; this state had {kept.words()}."
        )
        if configured.hold != "none":
            keep_policy(store, configured.hold, configured.sweep_hours, "a run")
    return configured, lines


def _kept_line(kept: KeptPolicy, configured: ReviewPolicy, inbox: str) -> list[str]:
    return [
        f"Review: this state holds evidence for approval ({kept.words()}); this run's settings "
        f"say {_words(configured)}, which would send it unapproved, so the state's hold applies.",
        f'  To stop holding: dispute-evidence review --inbox {inbox} --hold "{configured.hold}"',
    ]


def _words(policy: ReviewPolicy) -> str:
    sweep = f", deadline sweep {policy.sweep_hours:g} h" if policy.sweep_hours else ""
    return f'hold = "{policy.hold}"{sweep}'
