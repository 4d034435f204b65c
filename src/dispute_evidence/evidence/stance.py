"""Whether a fact helps or hurts: the stance of a customer's message, and of the charges, for
the claim the dispute makes (issue 36; the networks' conditions: shared spec
rebuttal-by-reason.md).

A message *supports* the merchant when it answers the claim (the goods came, the customer is
happy or changed their mind, the cardholder knew the order); it *concedes* when it says what
the cardholder's claim needs (a defect, a return, a cancellation before the charge, goods that
never came, an order they did not make); else it is *neutral* and the letter leaves it out. A
conceding message is never quoted under an arguing heading.

Pure and deterministic: words in, a stance out. The patterns are plain alternations (linear
time) over the lower-cased text; a negation before "arrived" or "received" turns receipt into
its denial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from dispute_evidence.evidence.playbooks import family_of

__all__ = ["Stance", "family_of", "message_stance"]

StanceKind = Literal["supports", "concedes", "neutral"]

_NOT = r"(?:never|not|n't|no|still (?:have|has)n't|yet to|hasn't|haven't|didn't|did not)"
_NON_RECEIPT = re.compile(
    rf"\b{_NOT}\s+(?:\w+\s+){{0,2}}(?:arrived|received|receive|come|came|got|get|delivered|"
    r"turned up|shown up|showed up)\b|\bstill waiting\b|\bwhere is my\b|\bnever (?:got|came)\b|"
    r"\bhas(?:n't| not) (?:arrived|come)\b|\bnot (?:yet )?(?:arrived|delivered|received)\b"
)
_RECEIPT = re.compile(
    r"\b(?:arrived|came (?:yesterday|today|this morning|on)|(?:deck|parcel|package|order|item|"
    r"board|box) came|received (?:it|the|my|your|our)|got (?:it|the|my)|has been delivered)\b"
)
_SATISFIED = re.compile(
    r"\b(?:love (?:it|the|my)|works (?:great|fine|perfectly|well)|is (?:fine|great|perfect)|"
    r"happy with|nothing wrong|no problem with|changed my mind|don't need it|do not need it|"
    r"no longer (?:want|need)|not needed any ?more|found (?:it|one) cheaper)\b"
)
_CHANGED_MIND = re.compile(
    r"\b(?:changed my mind|don't need it|do not need it|no longer (?:want|need)|"
    r"not needed any ?more|found (?:it|one) cheaper|is fine|nothing wrong)\b"
)
_DEFECT = re.compile(
    r"\b(?:cracked|broken|broke|damaged|defective|faulty|torn|scratched|dented|leaking|"
    r"not as described|doesn't work|does not work|stopped working|won't turn on|"
    r"wrong (?:item|size|colou?r|product|model)|not what i ordered|fake|counterfeit)\b"
)
_RETURNED = re.compile(
    r"\b(?:sent (?:it|them|the \w+(?: \w+)?) back|returned (?:it|them|the)|shipped (?:it|them) "
    r"back|return (?:label|tracking)|posted (?:it|them) back|mailed (?:it|them) back)\b"
)
_REFUND_ASK = re.compile(
    r"\b(?:my refund|refund me|(?:want|need|get|like) (?:my|a) refund|money back|"
    r"(?:still|not) (?:been )?refunded)\b"
)
_CANCEL = re.compile(
    r"\b(?:(?:please |i want to |i'd like to |i would like to |i )?cancel(?:led|ed)? "
    r"(?:my|the|this) (?:subscription|membership|plan|order|renewal|account)|"
    r"please cancel|i (?:have )?cancel(?:led|ed))\b"
)
_NOT_ME = re.compile(
    r"\b(?:(?:didn't|did not|never) (?:order|make|place|authori[sz]e|buy|purchase)|not me\b|"
    r"don't recogni[sz]e|do not recogni[sz]e|stolen card|unauthori[sz]ed|someone (?:else )?used "
    r"my card)"
)


@dataclass(frozen=True)
class Stance:
    kind: StanceKind
    why: str  # in words: "confirms receipt", "claims a defect", ...


NEUTRAL = Stance("neutral", "")


def message_stance(text: str, family: str, on: date | None = None, charged: str = "") -> Stance:
    """A message's stance for a claim of `family` (evidence/playbooks.py); `on`: the
    message's date, `charged`: the disputed charge's date (YYYY-MM-DD), for cancellations."""
    t = " ".join(text.lower().replace("’", "'").split())
    if family == "not_as_described":
        if _CHANGED_MIND.search(t):
            return Stance("supports", "says the goods are fine or they changed their mind")
        if _DEFECT.search(t):
            return Stance("concedes", "says the goods were defective or not as described")
        return _receipt_only(t)
    if family == "credit_not_processed":
        if _RETURNED.search(t):
            return Stance("concedes", "says the goods were sent back")
        if _REFUND_ASK.search(t):
            return Stance("concedes", "asks for the refund")
        return NEUTRAL
    if family == "subscription_canceled":
        if _CANCEL.search(t):
            if on is not None and charged and on.isoformat() >= charged:
                return Stance("neutral", "asks to cancel after the disputed charge")
            return Stance("concedes", "asks to cancel before the disputed charge")
        return NEUTRAL
    if family in ("not_received", "fraud", "general"):
        if family == "fraud" and _NOT_ME.search(t):
            return Stance("concedes", "says they did not make the order")
        return _receipt_only(t)
    return NEUTRAL


def _receipt_only(t: str) -> Stance:
    if _NON_RECEIPT.search(t):
        return Stance("concedes", "says the goods never arrived")
    if _RECEIPT.search(t):
        return Stance("supports", "confirms the goods arrived")
    if _SATISFIED.search(t):
        return Stance("supports", "says they are happy with the goods")
    return NEUTRAL
