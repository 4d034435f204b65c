"""A proof of delivery read from its text, whatever the carrier's layout: free text ("Your item
was delivered at 2:15 pm on December 10, 2025"), a label/value table with the value beside its
label or on the line below ("Received by" / "R. Thomas (Security)"), or a block of labels
followed by a block of their values (how a two-column table's text often comes out).

What the document says of itself decides, read line by line:
- a line that says the parcel was not delivered (not delivered, undeliverable, returned to
  sender, refused, delivery failed) makes it a failed delivery, whatever else it says;
- else a line that says "delivered" (or a delivery date under its label) makes it a delivery;
- a line that only expects or attempts one ("out for delivery", "delivery attempted", "will be
  delivered", "if undeliverable, return to sender") states neither; nor does a line in the
  customer's voice ("I", "my") or reporting another's word ("the carrier says delivered").
The signer is a name (capitalised words: "signed by for it" names nobody).

Pure, linear-time patterns (each anchored at a line's start or bounded), as documents/doctext.py.
"""

from __future__ import annotations

import re
from datetime import date

from dispute_evidence.documents.facts import Delivery, Quote
from dispute_evidence.documents.textdates import first_date

MAX_QUOTE = 400
MAX_PENDING = 12  # labels waiting for their values (a table's first column)

Lines = list[tuple[int, str]]

# Tracking numbers by their label: a value beside it or on the next line ("AWB / Waybill No."
# then "1490811234567"); grouped digits ("9400 1000 0000 0000 0000 00") are one number.
TRACK_LABEL = (
    r"(?:tracking|awb|air\s?waybill|waybill|way\sbill|consignment|shipment|parcel"
    r"|article\s(?=n(?:o|umber)))"
    r"(?:\s{0,2}/\s{0,2}(?:awb|waybill|consignment|tracking))?"
    r"\s{0,3}(?:number|no\.?|num\.?|id|#|ref(?:erence)?|code)?"
)
TRACK_VALUE = r"(\d{3,6}(?: \d{2,6}){2,7}(?![\w-])|[A-Z0-9]{6,34}\b)"
TRACKING = re.compile(rf"\b{TRACK_LABEL}\s{{0,3}}[:#.\-]?\s{{0,3}}{TRACK_VALUE}", re.I)

_FIELDS: tuple[tuple[str, str], ...] = (
    ("status", r"(?:delivery\s|shipment\s|parcel\s|item\s|tracking\s)?status"),
    ("address", r"address\sof\s(?:the\s)?(?:recipient|delivery)|delivery\slocation"
                r"|delivery\saddress|delivered\sto|shipping\saddress|ship\sto|destination"
                r"(?:\saddress)?|consignee\saddress|recipient(?:'s)?\saddress|address"),
    ("signer", r"received\sby|signed\sfor\sby|signed\sby|signature\sof\s(?:the\s)?recipient"
               r"|signature\sof|signatory(?:\sname)?"
               r"|signer|receiver(?:'s)?\sname|receiver|printed\sname|recipient(?:'s)?\sname"
               r"|collected\sby|accepted\sby"),
    ("on", r"delivered\s(?:on|at|date)|delivery\s(?:date|on)(?:\s?(?:/|and|&)\s?time)?"
           r"|date\s(?:and\stime\s)?of\sdelivery|date\sdelivered|delivered(?=\s{0,3}:)"),
    ("tracking", TRACK_LABEL),
)  # fmt: skip
_LABELS = tuple(
    (name, re.compile(rf"^[|\s]{{0,3}}(?:{label})\b\s{{0,3}}(?:\([^)]{{0,20}}\))?"
                      rf"\s{{0,3}}[:|\-–#.]?\s{{0,3}}(.*)$", re.I))
    for name, label in _FIELDS
)  # fmt: skip

_FAILED = re.compile(
    r"\b(?:not|never)\s(?:been\s|yet\s)?delivered\b|\bundeliver(?:ed|able)\b"
    r"|\b(?:could|can)\s?n[o']?t\s(?:be\s)?delivered\b|\breturn(?:ed|ing)?\sto\s(?:the\s)?"
    r"(?:sender|shipper|origin)\b|\bdelivery\s(?:failed|unsuccessful|refused|exception)\b"
    r"|\bfailed\sdelivery\b|\brefused\b|\blost\b|\bnon[- ]?delivery\b",
    re.I,
)
_NEUTRAL = re.compile(
    r"\battempt|\bto\sbe\sdelivered\b|\bwill\sbe\sdelivered\b|\bexpected\b|\bestimated\b"
    r"|\bscheduled\b|\bout\sfor\sdelivery\b|\b(?:if|unless)\b[^.]{0,40}deliver",
    re.I,
)
_DELIVERED = re.compile(r"\bdelivered\b", re.I)
_VOICE = re.compile(
    r"\bI(?:'m|'ve|'d)?\s(?=[a-z])|\b(?:my|me)\b"
    r"|(?i:\b(?:says?|said|claims?|claimed|supposedly|allegedly|apparently)\b)"
)
_REPORTED_TAIL = re.compile(r"(?i:\b(?:says|said|claims?|claimed|shows?|showing|marked)\s?)$")
_NAME = re.compile(r"[A-Z][A-Za-z.'\-]{0,30}(?:\s\(?[A-Z][A-Za-z.'\-]{0,30}\)?){0,4}")
_NOT_NAMES = frozenset(("The", "For", "It", "On", "At", "In", "To", "Not", "No", "None", "N/A",
                        "Signature", "Date", "Time", "Delivered", "Customer", "Recipient"))  # fmt: skip
_SIGNER = re.compile(
    r"(?i:\b(?:signed\s(?:for\s)?by|received\sby|signature\sof|signatory|signer|signed))"
    r"\s{0,3}[:\-]?\s{0,3}(?=[A-Z])"
)
_ADDRESS = re.compile(
    r"\b(?:delivered\sto|delivery\saddress|shipping\saddress|ship\sto|address)\s{0,3}[:\-]?"
    r"\s{0,3}(\S.{3,150})",
    re.I,
)


def _label(line: str) -> tuple[str, str, str] | None:
    """(field, the label as written, the value beside it: "" when it is on a line below)."""
    for name, pattern in _LABELS:
        if m := pattern.match(line):
            value = m.group(1).strip(" |:")
            return name, line[: m.start(1)].strip(" |:-–#."), value
    return None


Fields = dict[str, list[tuple[int, str, str]]]


def fields(lines: Lines, skip: frozenset[int] = frozenset()) -> Fields:
    """{field: [(page, label, value), ...]} in the order found: a value beside its label, or the
    next lines that are not labels, given to the labels waiting in the order they came; the
    lines at `skip` are neither."""
    out: Fields = {}
    pending: list[tuple[str, int, str]] = []
    for i, (page, line) in enumerate(lines):
        if i in skip:
            continue
        found = _label(line)
        if found is None:
            if pending:
                name, at, label = pending.pop(0)
                out.setdefault(name, []).append((at, label, line))
            continue
        name, label, value = found
        if value:
            out.setdefault(name, []).append((page, label, value))
        elif len(pending) < MAX_PENDING:
            pending.append((name, page, label))
    return out


def signer_in(text: str) -> str | None:
    """The name at the start of `text` (capitalised words), or None."""
    m = _NAME.match(text.strip(" :-|"))
    if m is None or m.group(0).split()[0].rstrip(".:") in _NOT_NAMES:
        return None
    return m.group(0).strip()


def tracking_in(found: Fields) -> list[str]:
    """Tracking numbers given as a label's value (a table's: TRACKING finds those beside it)."""
    out = []
    for _, _, value in found.get("tracking", []):
        m = re.match(TRACK_VALUE, value.strip(), re.I)
        if m and any(c.isdigit() for c in m.group(1)):
            out.append(m.group(1).replace(" ", "").upper())
    return out


def _voiced(lines: Lines, at: int) -> bool:
    """The line is in the customer's voice, or reports what someone else says."""
    before = lines[at - 1][1][-40:] if at else ""
    return bool(_VOICE.search(lines[at][1]) or _REPORTED_TAIL.search(before))


def _statements(lines: Lines, voiced: frozenset[int]) -> tuple[int | None, int | None]:
    """(the first line saying it was not delivered, the first saying it was), by index."""
    failed = said = None
    for i, (_, line) in enumerate(lines):
        if i in voiced or _NEUTRAL.search(line):
            continue
        if failed is None and _FAILED.search(line):
            failed = i
        elif said is None and _DELIVERED.search(line) and not _FAILED.search(line):
            said = i
    return failed, said


def delivery(lines: Lines, dayfirst: bool | None = None) -> Delivery | None:
    """What the document says of the delivery: done (date, signer, address, its words), not
    done (its words), or None when it says neither."""
    voiced = frozenset(i for i in range(len(lines)) if _voiced(lines, i))
    found = fields(lines, voiced)
    failed, said = _statements(lines, voiced)
    if failed is not None:
        page, line = lines[failed]
        return Delivery(None, None, None, Quote(line[:MAX_QUOTE], page), delivered=False)
    dated = [(p, f"{label} {v}", d) for p, label, v in found.get("on", [])
             if (d := first_date(v, dayfirst))]  # fmt: skip
    if said is None and not dated:
        return None
    if said is not None:
        page, line = lines[said]
        quote = Quote(line[:MAX_QUOTE], page)
        if first_date(line, dayfirst) is None and dated:  # "Delivered" alone: its date's line
            quote = Quote(dated[0][1][:MAX_QUOTE], dated[0][0])
    else:
        quote = Quote(dated[0][1][:MAX_QUOTE], dated[0][0])
    return Delivery(
        _date(lines, said, dated, dayfirst),
        _signer(lines, found, voiced),
        _address(lines, found, voiced),
        quote,
    )


def _date(
    lines: Lines, said: int | None, dated: list[tuple[int, str, date]], dayfirst: bool | None
) -> date | None:
    """The date under a delivery-date label, else the first near the line that says it."""
    if dated:
        return dated[0][2]
    at = said if said is not None else 0
    line = lines[at][1]
    word = _DELIVERED.search(line)  # "shipped 25/11, delivered 10/12": the date after it first
    near = " ".join(ln for _, ln in lines[at : at + 3])
    return (
        first_date(line[word.start() :] if word else line, dayfirst)
        or first_date(line, dayfirst)
        or first_date(near, dayfirst)
        or first_date(" ".join(ln for _, ln in lines), dayfirst)
    )


def _signer(lines: Lines, found: Fields, voiced: frozenset[int]) -> str | None:
    for _, _, value in found.get("signer", []):
        if name := signer_in(value):
            return name
    for i, (_, line) in enumerate(lines):
        for m in _SIGNER.finditer(line):
            if i not in voiced and (name := signer_in(line[m.end() :])):
                return name
    return None


def _address(lines: Lines, found: Fields, voiced: frozenset[int]) -> str | None:
    for _, _, value in found.get("address", []):
        if len(value) > 3:
            return value[:150]
    inline = (_ADDRESS.search(ln) for i, (_, ln) in enumerate(lines) if i not in voiced)
    return next((m.group(1).strip() for m in inline if m), None)
