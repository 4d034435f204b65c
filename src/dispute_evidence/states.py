"""A dispute's states as typed values, read from the words the state keeps.

The state keeps them as text (its columns do not change): the completeness verdict
("complete", "missing: X, Y", "weak: why"), why a dispute is held (its `detail`: "held: ...",
"advice: accept (...)") and the fight-or-accept advice. Each type here has one `parse` from
that text and one way back to it (`text`), so code asks `row.hold.kind` instead of testing
prefixes of words (tests/unit/test_structure.py refuses a new prefix test of these). The prefixes
are defined here, low in the layers, so the store, the evidence and the engine share them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "ADVICE_ACCEPT",
    "API_VIEW_HELD",
    "HELD",
    "HELD_UNKNOWN",
    "LIMIT_HELD",
    "AdviceKind",
    "AdviceLine",
    "Hold",
    "HoldKind",
    "VerdictKind",
    "VerdictLine",
]

# why a dispute waits for a person: the merchant's own records concede the claim
ADVICE_ACCEPT = "advice: accept"
# nothing more is sent: the API's reason, amount or currency is not the disputes list's
API_VIEW_HELD = "held: the API's view of this dispute differs from the disputes list"
LIMIT_HELD = "held: over the "  # over its card network's limits (evidence/limits.py)
HELD = "held: under your fight threshold"  # the advice (evidence/advice.py)
# with a threshold set, a dispute whose amount nobody knows is neither under nor over it
HELD_UNKNOWN = "held: amount unknown"
_HELD = "held:"  # any other hold: its data would go out wrong (a row not used, lines short)


def _text(value: Any) -> str:
    """A table cell as text: None and NaN (a column pandas filled) are no text."""
    return "" if value is None or value != value else str(value)


class VerdictKind(StrEnum):
    COMPLETE = "complete"
    MISSING = "missing"  # "missing: X, Y": what the reason needs and the evidence lacks
    WEAK = "weak"  # "weak: why": the merchant's own facts undercut the reason
    UNKNOWN = "unknown"  # no case yet ("waiting for data"), or no verdict at all


_VERDICT_PREFIX = {VerdictKind.MISSING: "missing: ", VerdictKind.WEAK: "weak: "}


@dataclass(frozen=True)
class VerdictLine:
    """The completeness verdict as the report keeps it (evidence/completeness.py's
    `Verdict.text`); named apart from that `Verdict`, which is the assessment itself."""

    kind: VerdictKind
    words: str = ""  # what is missing, why it is weak; an unknown verdict's whole text

    @classmethod
    def parse(cls, value: Any) -> VerdictLine:
        text = _text(value)
        if text == "complete":
            return cls(VerdictKind.COMPLETE)
        for kind, prefix in _VERDICT_PREFIX.items():
            if text.startswith(prefix):
                return cls(kind, text.removeprefix(prefix))
        return cls(VerdictKind.UNKNOWN, text)

    @property
    def text(self) -> str:
        if self.kind is VerdictKind.COMPLETE:
            return "complete"
        return _VERDICT_PREFIX.get(self.kind, "") + self.words

    @property
    def wanting(self) -> bool:
        """Something the reason needs is missing, or the case is weak: a person can add to it."""
        return self.kind in (VerdictKind.MISSING, VerdictKind.WEAK)


class HoldKind(StrEnum):
    LIMIT = "limit"  # over its card network's limits (evidence/limits.py)
    API_VIEW = (
        "api_view"  # the API's view differs from the disputes list (engine/delivery/api_views.py)
    )
    DATA = "data"  # its data would go out wrong: a row not used, lines not adding up
    ADVICE_ACCEPT = "advice_accept"  # waits for approval: its own records concede the claim


# most specific first: every "held:" line starts like DATA's
_HOLD_PREFIX = {
    HoldKind.LIMIT: LIMIT_HELD,
    HoldKind.API_VIEW: API_VIEW_HELD,
    HoldKind.DATA: _HELD,
    HoldKind.ADVICE_ACCEPT: ADVICE_ACCEPT,
}
HELD_KINDS = frozenset({HoldKind.LIMIT, HoldKind.API_VIEW, HoldKind.DATA})  # "held: ..."


@dataclass(frozen=True)
class Hold:
    """Why a dispute is held, read from its `detail` (None: the detail is no hold)."""

    kind: HoldKind
    text: str  # the line as kept, which the reports quote whole

    @classmethod
    def parse(cls, value: Any) -> Hold | None:
        text = _text(value)
        kind = next((k for k, p in _HOLD_PREFIX.items() if text.startswith(p)), None)
        return None if kind is None else cls(kind, text)

    @property
    def held(self) -> bool:
        """Held by the run itself ("held: ..."), not waiting for a person's approval."""
        return self.kind in HELD_KINDS


class AdviceKind(StrEnum):
    FIGHT = "fight"
    ACCEPT = "accept"
    HELD_UNDER = "held_under"  # under the merchant's fight threshold
    HELD_UNKNOWN = "held_unknown"  # a threshold is set and the disputed amount is unknown
    NONE = "none"  # no advice (a dispute no longer open)


_ADVICE_PREFIX = {
    AdviceKind.HELD_UNDER: HELD,
    AdviceKind.HELD_UNKNOWN: HELD_UNKNOWN,
    AdviceKind.FIGHT: "fight",
    AdviceKind.ACCEPT: "accept",
}


@dataclass(frozen=True)
class AdviceLine:
    """The fight-or-accept advice as the report keeps it (evidence/advice.py's `Advice.text`);
    named apart from that `Advice`, which is the decision itself."""

    kind: AdviceKind
    text: str = ""

    @classmethod
    def parse(cls, value: Any) -> AdviceLine:
        text = _text(value)
        kind = next((k for k, p in _ADVICE_PREFIX.items() if text.startswith(p)), None)
        return cls(kind or AdviceKind.NONE, text)

    @property
    def held(self) -> bool:
        """Held back from sending by the merchant's threshold."""
        return self.kind in (AdviceKind.HELD_UNDER, AdviceKind.HELD_UNKNOWN)
