"""Facts found in a document's text (page by page): what documents/reading.py fills
`DocumentFacts` with once a worker has turned the file into text.

- identifiers the text names: dispute ids (`dp_…`), order numbers (after "order", or `#1234`),
  tracking numbers (after "tracking", or a UPS `1Z…`): they match a file to its dispute;
- proof of delivery: the line that says it was delivered (or that it was not: failed, returned
  to sender), its date, who signed, the address; from free text or a carrier's label/value
  table (the value beside its label or on the line below, or a block of labels then their
  values). A line in the customer's voice ("I", "my") or reporting another's word ("the
  carrier says delivered") states nothing;
- policy: per topic, the clause that answers it (documents/policytext.py), quoted;
- communication: each message (a `From:` block, a mail client's sender line as a screenshot
  shows it, or a dated chat line), its date and author;
- receipt or invoice: the total and its currency;
- the date the document says it took effect ("Last updated: 1 October 2025"), if any.

Every pattern is linear in the text (no nested repetition) and the text is bounded by the
reader (`max_chars`): hostile text costs milliseconds. Pure: text in, facts out.
"""

from __future__ import annotations

import re
from dataclasses import replace

from dispute_evidence.documents import kinds, podtext, policytext
from dispute_evidence.documents.facts import OPENING, DocumentFacts, Message, Quote
from dispute_evidence.documents.textdates import first_date, slash_order

__all__ = ["facts", "first_date", "identifiers"]

MAX_QUOTE = 400
MAX_IDS = 20  # identifiers kept per kind (a catalogue naming hundreds matches nothing anyway)
MAX_MESSAGES = 20

_DISPUTE_ID = re.compile(r"\bdp_[A-Za-z0-9_]{1,60}")
_ORDER = re.compile(
    r"\border\s{0,3}(?:number|no\.?|num\.?|id|ref(?:erence)?)?\s{0,3}[:#.]?\s{0,3}#?\s{0,2}"
    r"([A-Za-z0-9][A-Za-z0-9-]{1,30})",
    re.I,
)
_HASH_NUMBER = re.compile(r"(?<![\w#])#\s?(\d{3,12})\b")
_UPS = re.compile(r"\b1Z[0-9A-Z]{6,16}\b")
_AMOUNT = re.compile(
    r"\b(?:grand\stotal|order\stotal|total\spaid|total\sdue|amount\spaid|amount\scharged|total)"
    r"\s{0,3}(?:\([A-Za-z]{3}\))?\s{0,3}[:\-]?\s{0,3}([A-Z]{3}|[$€£¥])?\s{0,2}"
    r"(\d{1,3}(?:[,\s]\d{3})*(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)\s{0,2}([A-Z]{3})?\b",
    re.I,
)
_SYMBOLS = {"€": "EUR", "£": "GBP", "¥": "JPY", "$": ""}  # "$": USD, CAD, AUD...: unsaid
_HEADER = re.compile(r"^(from|to|cc|subject|date|sent)\s{0,3}:\s{0,3}(.*)$", re.I)
_CHAT_LINE = re.compile(
    r"^\[?([^\]\n]{6,30}?)\]?\s{0,3}[-–]?\s{0,3}([A-Z][\w .'\-]{0,40}?):\s(.+)$"
)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _lines(texts: list[str]) -> list[tuple[int, str]]:
    """(page, line) for every non-blank line, whitespace collapsed."""
    return [(p, c) for p, t in enumerate(texts, 1) for ln in t.splitlines() if (c := _clean(ln))]


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))[:MAX_IDS]


def identifiers(text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(order numbers, dispute ids, tracking numbers) the text names."""
    orders = [m.group(1) for m in _ORDER.finditer(text) if any(c.isdigit() for c in m.group(1))]
    orders += [m.group(1) for m in _HASH_NUMBER.finditer(text)]
    tracking = [
        m.group(1).replace(" ", "").upper()
        for m in podtext.TRACKING.finditer(text)
        if any(c.isdigit() for c in m.group(1))
    ]
    tracking += [m.group(0) for m in _UPS.finditer(text)]
    disputes = [m.group(0) for m in _DISPUTE_ID.finditer(text)]
    return _unique(orders), _unique(disputes), _unique(tracking)


# A mail client's screen (Gmail's, as OCR reads a screenshot of it): a sender line "Ann Smith
# <ann@example.com>", its date on that line or the next, a "to me" line, then the body
_SENDER = re.compile(r"^([^<>]{0,80}?<\s?[^<>\s@]{1,64}@[^<>\s]{1,190}\s?>)\s?(.{0,80})$")
# "to me" (OCR: "tome"), "to support", "to ann@example.com, bob": names only, never a sentence
_TO_LINE = re.compile(r"^to\s?(?:me|[\w.@+-]{1,64}(?:,\s?[\w.@+-]{1,64}){0,4})\s?[▾v]?$", re.I)
# Tesseract reads a lone capital I in prose as a bar: "| just changed my mind"
_OCR_BAR = re.compile(r"(?:(?<=^)|(?<=\s))\|(?=\s)")


def _screen_messages(
    lines: list[tuple[int, str]], dayfirst: bool | None, ocr: bool
) -> list[Message]:
    """A mail client's messages, as a screenshot shows them: each sender line starts one; its
    date (on that line or the next) and the "to …" line are headers, the rest its body until
    the next sender. Read by OCR, a lone "|" in the body is the word "I"."""
    out: list[Message] = []
    starts = [i for i, (_, ln) in enumerate(lines) if _SENDER.match(ln)]
    for k, i in enumerate(starts[:MAX_MESSAGES]):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        who, rest = _SENDER.match(lines[i][1]).groups()  # type: ignore[union-attr]
        when = first_date(rest, dayfirst)
        body = list(lines[i + 1 : end])
        while body and _screen_header(body[0][1], when, dayfirst):
            when = when or first_date(body[0][1], dayfirst)
            body = body[1:]
        text = " ".join(ln for _, ln in body)[:MAX_QUOTE]
        quote = Quote(_OCR_BAR.sub("I", text) if ocr else text, body[0][0] if body else 1)
        if body and when is not None:
            out.append(Message(when, _clean(who), quote))
    return out


def _screen_header(line: str, when: object, dayfirst: bool | None) -> bool:
    """A line under a sender's that is a header: "to me", or its date when none was beside it."""
    if _TO_LINE.match(line):
        return True
    return when is None and len(line) <= 40 and first_date(line, dayfirst) is not None


def _messages(
    lines: list[tuple[int, str]], dayfirst: bool | None, ocr: bool = False
) -> tuple[Message, ...]:
    """`From:` blocks (headers, then the body until the next `From:`); else a mail client's
    screen (a screenshot's sender lines); else dated chat lines."""
    out: list[Message] = []
    starts = [i for i, (_, ln) in enumerate(lines) if re.match(r"^from\s{0,3}:", ln, re.I)]
    for k, i in enumerate(starts[:MAX_MESSAGES]):
        block = lines[i : starts[k + 1] if k + 1 < len(starts) else len(lines)]
        heads = {}
        body: list[tuple[int, str]] = []
        for page, ln in block:
            m = _HEADER.match(ln)
            if m and not body:
                heads[m.group(1).lower()] = m.group(2)
            else:
                body.append((page, ln))
        if body:
            when = first_date(heads.get("date", "") or heads.get("sent", ""), dayfirst)
            text = " ".join(ln for _, ln in body)[:MAX_QUOTE]
            out.append(Message(when, heads.get("from") or None, Quote(text, body[0][0])))
    out = out or _screen_messages(lines, dayfirst, ocr)
    if out:
        return tuple(out)
    for page, ln in lines:
        m = _CHAT_LINE.match(ln) if len(ln) <= MAX_QUOTE else None
        if m and (when := first_date(m.group(1), dayfirst)) is not None:
            out.append(Message(when, m.group(2).strip(), Quote(m.group(3)[:MAX_QUOTE], page)))
            if len(out) >= MAX_MESSAGES:
                break
    return tuple(out)


def _amount(text: str) -> tuple[float, str] | None:
    last = None
    for m in _AMOUNT.finditer(text):
        last = m
    if last is None:
        return None
    sign, number, after = last.group(1), last.group(2), last.group(3)
    currency = (after or "").upper() or _SYMBOLS.get(sign or "", (sign or "").upper())
    try:
        return float(re.sub(r"[,\s]", "", number)), currency
    except ValueError:
        return None


def facts(base: DocumentFacts, texts: list[str], dayfirst: bool | None = None) -> DocumentFacts:
    """`base` (name, hash, kind, how read) with what the page texts say; `dayfirst`: how the
    locale writes 10/12/2025 (the text's own dates decide first)."""
    whole = "\n".join(texts)
    lines = _lines(texts)
    dayfirst = slash_order(whole, dayfirst)
    orders, disputes, tracking = identifiers(whole)
    tracking = _unique([*tracking, *podtext.tracking_in(podtext.fields(lines))])
    found = replace(
        base,
        order_numbers=orders,
        dispute_ids=disputes,
        tracking_numbers=tracking,
        effective=policytext.effective(lines, dayfirst),
    )
    if base.kind in (kinds.PROOF_OF_DELIVERY, kinds.SIGNATURE, kinds.SHIPPING):
        found = replace(found, delivery=podtext.delivery(lines, dayfirst))
    if base.kind == kinds.POLICY:
        topical = policytext.clauses(texts)
        found = replace(
            found, policy_clause=policytext.general_clause(topical), policy_clauses=topical
        )
    if base.kind == kinds.COMMUNICATION:
        found = replace(found, messages=_messages(lines, dayfirst, base.read == "ocr"))
    if base.kind == kinds.RECEIPT:
        found = replace(found, amount=_amount(whole))
    if base.kind == kinds.OTHER and (said := opening_words(lines)):
        found = replace(found, extra={**found.extra, OPENING: said})
    return found


OPENING_CHARS = 300


def opening_words(lines: list[tuple[int, str]]) -> str:
    """A document of no known kind in its own first words (page 1's lines, whole sentences up
    to OPENING_CHARS; a longer first sentence is cut at a word and marked "…")."""
    text = " ".join(line for page, line in lines if page == 1).strip()
    if len(text) <= OPENING_CHARS:
        return text
    cut = text[:OPENING_CHARS]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    if end > 40:
        return cut[: end + 1]
    return cut.rsplit(" ", 1)[0] + " …"
