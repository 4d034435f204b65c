"""Whether a fact helps or hurts: the stance of a customer's message, and of the charges, for
the claim the dispute makes (issue 36; the networks' conditions: shared spec
rebuttal-by-reason.md).

A message *supports* the merchant when it answers the claim (the goods came, the customer is
happy or changed their mind, the cardholder's household made the order); it *concedes* when it
says what the cardholder's claim needs (a defect, a return, a cancellation before the charge,
goods that never came, an order they did not make); else it is *neutral* and the letter leaves
it out. A conceding message is never quoted under an arguing heading.

The message is read whole (evidence/messages.py: its author, its sentences in order, negation,
contrast, retractions); each reading carries whether it is certain. An uncertain one is the
analyst's to confirm (supports / concedes / leave out: engine/prepare/stances.py) and is neither
argued nor conceded before. The merchant's own reply is never the customer's word. Pure.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from dispute_evidence.evidence.messages import Cue, by_merchant, message_cues
from dispute_evidence.evidence.playbooks import signals_of

StanceKind = Literal["supports", "concedes", "neutral"]
CHOICES: dict[str, StanceKind] = {
    "supports": "supports",
    "concedes": "concedes",
    "leave out": "neutral",
}


@dataclass(frozen=True)
class Stance:
    kind: StanceKind
    why: str  # in words: "confirms receipt", "claims a defect", ...
    certain: bool = True  # False: the analyst confirms it before anything argues it
    merchant: bool = False  # the merchant's own reply: never the customer's word

    @property
    def to_confirm(self) -> bool:
        """A reading the analyst decides (it would argue or concede, were it certain)."""
        return not self.certain


NEUTRAL = Stance("neutral", "")
_S: StanceKind = "supports"
_C: StanceKind = "concedes"
_RETRACTED_BY = {"household": "not_me"}  # a cue that takes back another, said before it


@dataclass(frozen=True)
class Author:
    """Who may have written a message: the customer's names and the merchant's."""

    customer: tuple[str, ...] = ()
    merchant: tuple[str, ...] = ()


def merchant_names(name: str, website: str) -> tuple[str, ...]:
    """How the merchant signs a message: its name and its website's domain."""
    site = re.sub(r"^[a-z]+://|^www\.|/.*$", "", website.strip().lower())
    return tuple(x for x in (name.strip(), site.removeprefix("www.")) if x)


def message_key(text: str) -> str:
    """The message's key for the analyst's choice: from its words alone, so a re-dropped or
    renamed file keeps the choice."""
    words = " ".join(text.lower().split())
    return "m" + hashlib.sha256(words.encode()).hexdigest()[:8]


def message_stance(
    text: str,
    family: str,
    on: date | None = None,
    charged: str = "",
    author: str | None = None,
    who: Author = Author(),
    ordered: str = "",
) -> Stance:
    """A message's stance for a claim of `family`; `on`: the message's date, `charged`: the
    disputed charge's date and `ordered` the order's (YYYY-MM-DD); `author` as the message
    names them, told from the merchant by `who`."""
    if by_merchant(author, who.customer, who.merchant):
        return Stance("neutral", "the merchant's own reply", merchant=True)
    stance = _read(message_cues(text), signals_of(family))
    if stance.kind == "neutral":
        return stance
    if on is not None and ordered and on.isoformat() < ordered:
        return Stance(
            "neutral",
            f"written on {on.isoformat()}, before the order ({ordered}): "
            f"not about it; read as: {stance.why}",
            certain=False,
        )
    cancel = family == "subscription_canceled" and stance.why.startswith("asks to cancel")
    if cancel and on is not None and charged and on.isoformat() >= charged:
        return Stance("neutral", "asks to cancel after the disputed charge")
    return stance


def _read(cues: list[Cue], signals: dict[str, tuple[StanceKind, str]]) -> Stance:
    """The stance left once each retraction drops what was said before it."""
    kept: list[tuple[Cue, StanceKind, str]] = []
    taken_back = False
    for cue in cues:
        if cue.retract:
            taken_back |= any(k[1] == _C for k in kept)
            kept = [k for k in kept if k[1] != _C]  # "never mind": the complaint is taken back
            continue
        if taken := _RETRACTED_BY.get(cue.name):
            kept = [k for k in kept if k[0].name != taken]
        if cue.name in signals:
            kept.append((cue, *signals[cue.name]))
    if not kept:  # a complaint taken back, and nothing said in its place: the analyst's
        return Stance(_S, "takes back the complaint", certain=False) if taken_back else NEUTRAL
    kinds = {k for _, k, _ in kept}
    last_cue, last_kind, why = kept[-1]
    certain = len(kinds) == 1 and any(c.plain for c, _, _ in kept)
    if len(kinds) > 1:
        why = f"mixed: {'; '.join(dict.fromkeys(w for _, _, w in kept))}"
    return Stance(last_kind, why, certain=certain)
