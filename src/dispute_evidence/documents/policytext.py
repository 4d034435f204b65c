"""What a policy or terms document says: the date it took effect ("Last updated: 1 October 2025",
"Effective from 2025-10-01"), so the version in force at an order's date is the one argued
(engine/prepare/storedocs_intake.py); and per topic (refund and return, cancellation and
subscription, defect and description, shipping and delivery) the clause that answers it, so the
letter quotes the one its dispute's reason needs (evidence/letter.py). Headings, dating lines and
boilerplate ("contact us", "all rights reserved") are never a clause. Pure, linear-time patterns
over bounded text.
"""

from __future__ import annotations

import re
from datetime import date

from dispute_evidence.documents.facts import Quote
from dispute_evidence.documents.textdates import first_date

# The topics a policy clause answers (DocumentFacts.policy_clauses' keys); a playbook
# (evidence/playbooks.py) names the ones that answer its reason
REFUND, CANCELLATION, DEFECT, SHIPPING = "refund", "cancellation", "defect", "shipping"
# a refund clause that sets the window for a return ("Returns are accepted within 30 days of
# delivery"): what answers a late return; a final-sale rule answers only an item sold as final
# sale, which no export tells us, so no playbook quotes it
RETURN_WINDOW, FINAL_SALE = "return_window", "final_sale"

# Words that date the document ("Last updated: 1 October 2025"): never part of a clause, and
# where its effective date is read. At a line's start more words count than within a line.
_STRICT = (
    r"last\s{1,3}(?:updated|revised|modified)|effective\s{1,3}(?:date|from|as\s{1,3}of)"
    r"|(?:updated|effective|revised)\s{0,3}:"
)
_LENIENT = r"(?:updated|revised)(?:\s{1,3}on)?|effective(?:\s{1,3}on)?|version\s{1,3}(?:date|of)"
DATED = re.compile(rf"(?<!\w)(?:{_STRICT})\b\s{{0,3}}[:\-–]?\s{{0,3}}(.{{0,60}})", re.I)
DATE_LINE = re.compile(
    rf"^\W{{0,3}}(?:{_STRICT}|{_LENIENT})\b\s{{0,3}}[:\-–]?\s{{0,3}}(.{{0,60}})", re.I
)


def effective(lines: list[tuple[int, str]], dayfirst: bool | None = None) -> date | None:
    """The date the document says it took effect (its first dating line's date), or None."""
    for _, line in lines:
        m = DATE_LINE.match(line) or DATED.search(line)
        if m and (when := first_date(m.group(1), dayfirst)) is not None:
            return when
    return None


# -- clauses ----------------------------------------------------------------------------------
# What a clause answers, in the order a general letter prefers them; each sentence counts for
# the topic whose words it says most (a tie: the earlier topic).
TOPICS: dict[str, re.Pattern[str]] = {
    REFUND: re.compile(r"\b(?:refund|return|exchange|restocking|money\sback|store\scredit)", re.I),
    CANCELLATION: re.compile(
        r"\b(?:cancel|subscri|renew|recurring|billing\s(?:date|cycle|period))", re.I
    ),
    DEFECT: re.compile(
        r"\b(?:defect|faulty|damaged|broken|not\sas\sdescribed|vary|variation"
        r"|warranty|wear\sand\stear|photo|description)",
        re.I,
    ),
    SHIPPING: re.compile(r"\b(?:ship|deliver|dispatch|courier|tracking|transit|parcel)", re.I),
}
# A clause that sets a window or a condition answers more than one that names the topic only.
_CONDITION = re.compile(
    r"\b(?:\d{1,3}\s{0,2}(?:business\s|working\s)?(?:days?|hours?|weeks?|months?)|within|before"
    r"|after|unless|only\sif|provided|must|not|cannot|non-refundable)\b",
    re.I,
)
_BOILERPLATE = re.compile(
    r"\b(?:questions|contact\sus|get\sin\stouch|email\sus|all\srights\sreserved|copyright"
    r"|reserve\sthe\sright|please\sread|by\s(?:using|accessing)|this\s(?:policy|page)\s"
    r"(?:applies|describes|explains|sets\sout|is\spart))\b|©",
    re.I,
)
_BULLET = re.compile(r"^(?:[-–•*·▪]|\(?\d{1,2}[.)](?!\d))\s{0,3}")
# a clause's number ("4.2 Returns are accepted …"): kept whole with its clause, never cut to "2"
_NUMBERED = re.compile(r"^\d{1,2}(?:\.\d{1,2})+\.?\s")
_FINAL = re.compile(r"\bfinal\s{1,3}sale\b|\bnon-?returnable\b|\bclearance\b", re.I)
_WINDOW = re.compile(
    r"\b\d{1,3}\s{0,2}(?:business\s|working\s|calendar\s)?(?:days?|weeks?|months?)\b", re.I
)
# A checkbox before "I agree" on a checkout screenshot, as OCR reads it ("i] | agree to the
# Terms", "[VW | agree", "[x] I accept", "☑ I have read"): a short token with a bracket or a
# mark in it, or one letter; the box is no words, and "|" there is "I".
_CHECKBOX = re.compile(
    r"^(?:(?:[^\sA-Za-z0-9]\S{0,3}|\S{0,3}[^\sA-Za-z0-9.,;:]|[A-Za-z])\s{1,2})?[|Il1]\s"
    r"(?=(?:agree|accept|have\sread|consent|acknowledge|understand|confirm)\b)"
)
_RUNS_ON = frozenset(
    (
        "a",
        "an",
        "the",
        "to",
        "of",
        "for",
        "and",
        "or",
        "in",
        "on",
        "at",
        "by",
        "with",
        "within",
        "from",
        "are",
        "is",
        "be",
        "will",
        "your",
        "our",
        "via",
        "per",
        "than",
        "as",
        "if",
        "that",
        "which",
        "before",
        "after",
        "until",
        "may",
        "can",
        "must",
        "not",
        "no",
        "any",
        "all",
    )
)
MIN_WORDS = 5
MAX_QUOTE = 400


def clauses(texts: list[str]) -> dict[str, Quote]:
    """{topic: the clause that answers it best, with its page}: a sentence of the policy's own
    (never a heading, a "Last updated" line or boilerplate) that says the topic's words, the
    one with a window or condition first, then the earliest."""
    best: dict[str, tuple[int, Quote]] = {}
    for page, sentence in _sentences(texts):
        hits = {t: len(p.findall(sentence)) for t, p in TOPICS.items()}
        topic = max(hits, key=lambda t: hits[t])  # the first of the most said
        if not hits[topic]:
            continue
        score = hits[topic] + 2 * bool(_CONDITION.search(sentence))
        topic = _narrowed(topic, sentence)
        if topic not in best or score > best[topic][0]:
            best[topic] = (score, Quote(sentence[:MAX_QUOTE], page))
    return {
        t: q
        for t in (*TOPICS, RETURN_WINDOW, FINAL_SALE)
        if (q := best.get(t, (0, None))[1]) is not None
    }


def _narrowed(topic: str, sentence: str) -> str:
    """A refund clause named by what it answers: a final-sale rule, or a return window."""
    if topic != REFUND:
        return topic
    if _FINAL.search(sentence):
        return FINAL_SALE
    return RETURN_WINDOW if _WINDOW.search(sentence) else REFUND


def general_clause(found: dict[str, Quote]) -> Quote | None:
    """The clause a letter quotes when its reason prefers no topic: refund, then the rest."""
    order = (REFUND, RETURN_WINDOW, *(t for t in TOPICS if t != REFUND))  # never final sale
    return next((found[t] for t in order if t in found), None)


def _sentences(texts: list[str]) -> list[tuple[int, str]]:
    """(page, sentence) of every paragraph: lines run together until a heading, a dating line,
    a bullet or a blank line ends one, then split at full stops."""
    out: list[tuple[int, str]] = []
    for page, text in enumerate(texts, 1):
        lines = [_CHECKBOX.sub("I ", " ".join(ln.split())) for ln in text.splitlines()]
        para: list[str] = []
        for i, line in enumerate(lines):
            dated = DATED.search(line) or DATE_LINE.match(line)
            body = line[: dated.start()].strip() if dated else line
            nxt = next((ln for ln in lines[i + 1 :] if ln), "")
            starts = _BULLET.match(body) or _NUMBERED.match(body)
            if not body or starts or dated or _heading(body, nxt):
                out += _split(page, para)
                para = []
            if body and not _heading(body, nxt):
                para.append(body if _NUMBERED.match(body) else _BULLET.sub("", body))
        out += _split(page, para)
    return out


def _split(page: int, para: list[str]) -> list[tuple[int, str]]:
    """The paragraph's sentences worth quoting: long enough, not boilerplate."""
    text = " ".join(para)
    return [
        (page, s)
        for s in re.split(r"(?<=[.!?])\s+", text)
        if len(s.split()) >= MIN_WORDS and not _BOILERPLATE.search(s)
    ]


def _heading(line: str, nxt: str) -> bool:
    """A title line ("Returns, Refunds & Cancellation Policy", "Acme Box subscription terms"):
    no full stop at its end, and words mostly capitalised, or not running on into a next line
    that starts a sentence."""
    line = _NUMBERED.sub("", _BULLET.sub("", line))
    if not line or re.search(r"[.!?;,]$", line):
        return False
    words = [w for w in line.split() if w[:1].isalpha()]
    if words and len(words) <= 10:
        capitalised = sum(w[0].isupper() for w in words if w.lower() not in _RUNS_ON)
        if capitalised * 2 > len([w for w in words if w.lower() not in _RUNS_ON]):
            return True
    if line.endswith(":"):
        return len(words) <= 6
    last = line.split()[-1].lower()
    return last not in _RUNS_ON and (not nxt or nxt[:1].isupper() or bool(_BULLET.match(nxt)))
