"""A customer's message read whole (issue 44 item 2, issue 45 item 9): who wrote each part, then
each sentence in order, with its negation ("it did not arrive", "I haven't changed my mind"),
its contrast ("the box is fine but the lamp arrived broken"), reported speech ("tracking
claims it arrived. It did not") and a later retraction ("never mind, it works fine now", "oh
wait, my husband ordered it"). The cues of each sentence become signals for the claim's family
(evidence/stance.py: supports or concedes); the message's stance is what is left once the
retractions have dropped what they take back.

A reading is *certain* only when every signal left agrees and each was said plainly in
English; a mixed message, a negated complaint, a cue in another language, or words dated before
the order are readings for the analyst to confirm (engine/prepare/stances.py), never argued
before. Pure and deterministic: plain alternations (linear time) over lower-cased text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- who wrote it ----------------------------------------------------------------------------
_QUOTED = re.compile(
    r"(?:\bon\b[^.!?]{3,120}?\bwrote\s*:|-{2,}\s*original message\s*-{2,}|"
    r"\bfrom:\s*\S+@\S+\s+sent:|(?:^|\s)>\s)",
    re.I,
)
_MERCHANT_WORDS = re.compile(
    r"\b(?:support|help|helpdesk|service|services|team|shop|store|sales|orders|info|hello|"
    r"no-?reply|care|customercare|admin|agent|staff|merchant|seller)\b"
)


def own_words(text: str) -> str:
    """The author's own words: the text before the first quoted part (a reply's "On … wrote:",
    an "Original Message" block, or "> " lines)."""
    m = _QUOTED.search(text)
    return text[: m.start()].strip() if m else text.strip()


def by_merchant(
    author: str | None, customer: tuple[str, ...] = (), merchant: tuple[str, ...] = ()
) -> bool:
    """Whether the merchant wrote it: its author names the merchant (name or website domain),
    or a mailbox or chat name a shop answers from (support@, "Store"), and not the customer."""
    a = (author or "").strip().lower()
    if not a:
        return False
    if any(c and c.lower() in a for c in customer):
        return False
    if any(m and m.lower() in a for m in merchant):
        return True
    local = a.split("@")[0] if "@" in a else a
    return bool(_MERCHANT_WORDS.search(local.replace(".", " ").replace("_", " ")))


# -- the cues of one clause ------------------------------------------------------------------
_NEG = r"(?:not|never|no|n't|nothing|without|neither|nor)"
_NEGATED = re.compile(rf"\b{_NEG}\b|n't\b")
_SAY_NEGATED = re.compile(
    r"\b(?:did ?n[o']t|didn't|never|not) (?:\w+ )?(?:say|said|claim|claimed|write|wrote|mention|"
    r"mentioned|complain|complained)\b"
)
_REPORTED = re.compile(
    r"\b(?:claims?|claimed|says?|said|shows?|showing|shown|states?|stated|according to|"
    r"supposedly|apparently|marked as|listed as)\b"
)
_MINE = re.compile(r"\b(?:i|we) (?:said|say|stated|claimed)\b")  # the author's own words
_DENIAL_AFTER = re.compile(
    r"^(?:but |and )?(?:it|they|that|which|this|the \w+)\s+(?:did not|didn't|has not|hasn't|"
    r"have not|haven't|never did|was not|wasn't|did ?n[o']t)\b"
)
_PACKAGING = re.compile(
    r"\b(?:box|boxes|packaging|packing|wrapping|outer box|envelope|parcel|bag|label|"
    r"courier|driver|delivery guy)\b"
)
_FOREIGN = "foreign"  # a cue in another language: never certain

CUES: dict[str, re.Pattern[str]] = {
    "non_receipt": re.compile(
        r"\bnever (?:arrived|came|got|received|recieved|turned up|showed up)\b|"
        r"\b(?:has|have|had|did|does|is|was)(?:n't| not) (?:yet )?(?:arrive|arrived|come|"
        r"came|received|receive|recieved|recieve|got|get|gotten|been delivered|turned up|"
        r"shown up|showed up)\b|\bstill (?:waiting|have(?:n't| not))\b|\bwhere is my\b|"
        r"\bnot (?:yet )?(?:arrived|delivered|received|recieved)\b|\byet to (?:arrive|receive)\b|"
        r"\blost in the (?:post|mail)\b|\bno sign of\b|\bnothing (?:has )?(?:arrived|came)\b"
    ),
    "receipt": re.compile(
        r"\b(?:arrived|arived|arrrived|came|received|recieved|recived|got it|got them|got the|"
        r"got my|delivered|turned up|showed up|is here|are here|found it)\b"
    ),
    "defect": re.compile(
        r"\b(?:cracked|craked|broken|brokn|broke|damaged|damged|defective|faulty|torn|"
        r"scratched|dented|leaking|leaks|shattered|stained|ripped|not as described|"
        r"doesn't work|does not work|don't work|stopped working|won't (?:turn on|work|charge)|"
        r"wrong (?:item|size|colou?r|product|model)|not what i ordered|fake|counterfeit|"
        r"missing (?:parts?|pieces?)|falls? apart|fell apart)\b"
    ),
    "fine": re.compile(
        r"\b(?:love (?:it|the|my|them|this)|loving it|works (?:great|fine|perfectly|well)|"
        r"working (?:great|fine|perfectly|well)|(?:is|are|looks?|it's|its) (?:fine|great|"
        r"perfect|good|ok|okay|lovely|beautiful)|happy with|pleased with|nothing wrong|"
        r"no (?:problems?|issues?) with|all good|thank(?:s| you) for the (?:\w+ )?(?:lamp|deck|"
        r"board|item|order|product))\b"
    ),
    "changed_mind": re.compile(
        r"\b(?:changed my mind|change my mind|change of mind|don't need it|do not need it|"
        r"no longer (?:want|need)|not needed any ?more|found (?:it|one) cheaper|"
        r"don't want it any ?more|ordered (?:it )?by mistake)\b"
    ),
    "returned": re.compile(
        r"\b(?:sent (?:it|them|the \w+(?: \w+)?) back|returned (?:it|them|the)|shipped (?:it|"
        r"them) back|return (?:label|tracking)|posted (?:it|them) back|mailed (?:it|them) back|"
        r"dropped (?:it|them) off)\b"
    ),
    "refund_got": re.compile(
        r"\b(?:(?:received|recieved|got|seen|see) (?:my|the|a|your) (?:refund|money|credit)|"
        r"refund (?:came|went|has gone|has come) through|refund (?:has )?(?:arrived|posted|"
        r"appeared|showed up|cleared)|money is back|(?:was|been|got) (?:fully )?refunded|"
        r"credit (?:has )?(?:posted|appeared))\b"
    ),
    "refund_ask": re.compile(
        r"\b(?:my refund|refund me|(?:want|need|get|like|expect|expecting) (?:my|a|the) refund|"
        r"money back|(?:still|not|never) (?:been )?(?:refunded|credited)|where is my refund|"
        r"waiting for (?:my|the|a) refund)\b"
    ),
    "no_cancel": re.compile(
        r"\b(?:didn't|did not|never|forgot to|haven't|have not) (?:\w+ )?cancel(?:led|ed)?\b|"
        r"\bkeep my (?:subscription|membership|plan|account)\b|\b(?:still )?(?:use|using|"
        r"enjoy|enjoying) (?:the|my) (?:subscription|service|account|plan|membership)\b"
    ),
    "cancel": re.compile(
        r"\b(?:(?:please |i want to |i'd like to |i would like to |i )?cancel(?:led|ed)? "
        r"(?:my|the|this) (?:subscription|membership|plan|order|renewal|account)|please cancel|"
        r"i (?:have )?cancel(?:led|ed))\b"
    ),
    "household": re.compile(
        r"\b(?:my (?:husband|wife|son|daughter|partner|kid|child|boyfriend|girlfriend|mum|mom|"
        r"dad|father|mother|brother|sister|roommate|flatmate)(?: must have| had| has)? "
        r"(?:ordered|bought|made|placed|used)|it was my (?:husband|wife|son|daughter|partner|"
        r"kid|child|boyfriend|girlfriend|mum|mom|dad)|i (?:do )?(?:remember|recall|recogni[sz]e) "
        r"(?:it|now|the order|this order|ordering|buying)|i forgot i (?:ordered|bought))\b"
    ),
    "not_me": re.compile(
        r"\b(?:(?:didn't|did not|never) (?:order|make|place|authori[sz]e|buy|purchase)|not me|"
        r"wasn't me|(?:don't|do not|didn't) recogni[sz]e|stolen card|card (?:was )?stolen|"
        r"unauthori[sz]ed|someone (?:else )?used my card|not my order|fraudulent)\b"
    ),
    "retract": re.compile(
        r"\b(?:never ?mind|nvm|ignore my (?:last|previous|earlier)|please disregard|disregard my|"
        r"false alarm|my mistake|my bad|sorry for the (?:confusion|trouble)|all good now|"
        r"(?:it's|it is|its|works?|working) (?:fine|ok|okay|great) now|(?:finally|just) "
        r"(?:arrived|turned up|showed up|came)|it (?:finally )?(?:turned|showed) up|found it|"
        r"(?:it's|it is) here now|oh wait)\b"
    ),
}
_FOREIGN_CUES: dict[str, re.Pattern[str]] = {
    "non_receipt": re.compile(
        r"\b(?:no (?:ha|he|han) (?:llegado|recibido)|nunca lleg[oó]|pas (?:encore )?(?:re[cç]u|"
        r"arriv[ée])|jamais re[cç]u|n'est pas arriv[ée]|nicht (?:angekommen|erhalten))\b"
    ),
    "receipt": re.compile(r"\b(?:ya lleg[oó]|lo recib[ií]|bien re[cç]u|est arriv[ée])\b"),
    "defect": re.compile(
        r"\b(?:roto|rota|dañado|dañada|cass[ée]e?|ab[iî]m[ée]e?|endommag[ée]e?|kaputt)\b"
    ),
    "not_me": re.compile(
        r"\b(?:no (?:lo )?(?:hice|ped[ií]|compr[ée])|pas moi|je n'ai pas command[ée])\b"
    ),
}
_FLIPS = {
    "receipt": "non_receipt",
    "fine": "unhappy",
    "changed_mind": "unhappy",
    "defect": "no_defect",
    "returned": "not_returned",
    "refund_got": "refund_ask",
}
_EMBEDDED = frozenset({"non_receipt", "no_cancel", "not_me"})  # their pattern holds the negation
_SHADOWS = {
    "non_receipt": ("receipt",),
    "refund_got": ("receipt", "refund_ask"),
    "refund_ask": ("receipt",),
    "no_cancel": ("cancel",),
    "household": ("not_me",),
    "not_me": ("non_receipt",),
    "returned": ("receipt",),
}


@dataclass(frozen=True)
class Cue:
    name: str  # a CUES key, or what a negation made of one ("unhappy", "no_defect", ...)
    plain: bool  # said plainly (not negated, reported or in another language)
    retract: bool = False  # a later retraction


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at its contrasts: what comes after "but" is read on its own."""
    return [
        c for c in re.split(r",?\s*\b(?:but|however|although|though|yet)\b\s*|;", sentence) if c
    ]


def _negated_before(clause: str, start: int) -> bool:
    """A negation in the four words before a cue (in its clause)."""
    before = re.sub(r"\bnever ?mind\b|\bno (?:problem|worries)\b", "", clause[:start])
    return bool(_NEGATED.search(" ".join(before.split()[-4:])))


def clause_cues(clause: str) -> list[Cue]:
    """The cues one clause says, each negated where a negation governs it."""
    found: dict[str, Cue] = {}
    speech = _SAY_NEGATED.search(clause)
    for name, pattern in CUES.items():
        m = next(
            (m for m in pattern.finditer(clause) if not _about_packaging(name, clause, m)), None
        )
        if m is None or any(s in found for s in _shadowed_by(name)):
            continue
        if name == "retract":
            found[name] = Cue(name, True, retract=True)
        elif speech and speech.end() <= m.start():  # "I did NOT say it arrived broken"
            found[name] = Cue(_FLIPS.get(name, name), False)
        elif name not in _EMBEDDED and name in _FLIPS and _negated_before(clause, m.start()):
            found[name] = Cue(_FLIPS[name], name in ("receipt", "refund_got"))
        else:
            found[name] = Cue(name, not _REPORTED.search(_MINE.sub("", clause[: m.start()])))
    for name, pattern in _FOREIGN_CUES.items():
        if name not in found and pattern.search(clause):
            found[name] = Cue(name, False)
    kept = [c for n, c in found.items() if not any(n in _SHADOWS.get(o, ()) for o in found)]
    return sorted(kept, key=lambda c: not c.retract)  # a retraction takes back what came before


def _about_packaging(name: str, clause: str, m: re.Match[str]) -> bool:
    """ "The box is fine", "the packaging was damaged": the packaging, not the goods."""
    if name not in ("fine", "defect"):
        return False
    return bool(_PACKAGING.search(re.split(r",| and ", clause[: m.start()])[-1]))


def _shadowed_by(name: str) -> tuple[str, ...]:
    return tuple(k for k, v in _SHADOWS.items() if name in v)


def message_cues(text: str) -> list[Cue]:
    """Every cue of the message's own words, in the order said. Reported speech ("tracking
    says it arrived") is not the author's; "It did not" after it denies it."""
    own = " ".join(own_words(text).lower().replace("’", "'").split())
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\.{3}|…|\s[-–—]\s", own) if s.strip()]
    out: list[Cue] = []
    for i, sentence in enumerate(sentences):
        said: list[Cue] = []
        for clause in _clauses(sentence):
            cues = clause_cues(clause)
            reported = [c for c in cues if c.name == "receipt" and not c.plain]
            cues = [c for c in cues if c not in reported]
            nxt = sentences[i + 1] if i + 1 < len(sentences) else ""
            if reported and _DENIAL_AFTER.match(nxt):
                cues.append(Cue("non_receipt", True))
            if cues and any(not c.retract for c in cues):  # "X but Y": Y is what it says
                said = [c for c in said if c.retract]
            said += cues
        out += said
    return out
