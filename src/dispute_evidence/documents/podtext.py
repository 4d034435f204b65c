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
from functools import lru_cache

from dispute_evidence.documents.facts import Delivery, Quote
from dispute_evidence.documents.textdates import first_date

MAX_QUOTE = 400
MAX_PENDING = 40  # labels in one run waiting for their values (a table's first column)

Lines = list[tuple[int, str]]

# Tracking numbers by their label: a value beside it or on the next line ("AWB / Waybill No."
# then "1490811234567"); grouped digits ("9400 1000 0000 0000 0000 00") are one number.
TRACK_LABEL = (
    r"(?:tracking|awb|air\s?waybill|airway\sbill|waybill|way\sbill|consignment|shipment|parcel"
    r"|article\s(?=n(?:o|umber)))"
    r"(?:\s{0,2}/\s{0,2}(?:awb|waybill|consignment|tracking))?"
    r"\s{0,3}(?:number|no\.?|num\.?|id|#|ref(?:erence)?|code)?"
)
TRACK_VALUE = r"(\d{3,6}(?: \d{2,6}){2,7}(?![\w-])|[A-Z0-9]{6,34}\b)"
# a value beside its label on the same line (one on a line below: `fields`, which pairs a
# table's column of labels with its column of values by position, never the next line blindly)
_SPACE = r"[ \t\f\v\r\xa0]"  # whitespace but a line break
_SAME_LINE = _SPACE + "{0,3}"
_ONE_LINE_LABEL = TRACK_LABEL.replace(r"\s", _SPACE)
TRACKING = re.compile(rf"\b{_ONE_LINE_LABEL}{_SAME_LINE}[:#.\-]?{_SAME_LINE}{TRACK_VALUE}", re.I)

_FIELDS: tuple[tuple[str, str], ...] = (
    ("status", r"(?:delivery\s|shipment\s|parcel\s|item\s|tracking\s)?status"),
    (
        "address",
        r"address\sof\s(?:the\s)?(?:recipient|delivery)|delivery\slocation"
        r"|delivery\saddress|delivered\sto|shipping\saddress|ship\sto|destination"
        r"(?:\saddress)?|consignee\saddress|recipient(?:'s)?\saddress|address",
    ),
    (
        "signer",
        r"received\sby|signed\sfor\sby|signed\sby|signature\sof\s(?:the\s)?recipient"
        r"|signature\sof|signatory(?:\sname)?"
        r"|signer|receiver(?:'s)?\sname|receiver|printed\sname|recipient(?:'s)?\sname"
        r"|collected\sby|accepted\sby",
    ),
    (
        "on",
        r"delivered\s(?:on|at|date)|delivery\s(?:date|on)(?:\s?(?:/|and|&)\s?time)?"
        r"|date\s(?:and\stime\s)?of\sdelivery|date\sdelivered|delivered(?=\s{0,3}:)",
    ),
    ("tracking", TRACK_LABEL),
)
_BARE_ADDRESS = frozenset(("address", "destination"))
_LABELS = tuple(
    (
        name,
        re.compile(
            rf"^[|\s]{{0,3}}(?:{label})\b\s{{0,3}}(?:\([^)]{{0,20}}\))?"
            rf"\s{{0,3}}[:|\-–#.]?\s{{0,3}}(.*)$",
            re.I,
        ),
    )
    for name, label in _FIELDS
)

# Labels of what a carrier's table gives beside the delivery ("Pickup Date", "Relation",
# "Origin", "Weight"): never a value, so a table's column of labels keeps its positions.
_OTHER = (
    r"(?:pick\s?up|booking|booked|shipment|shipping|ship|dispatch(?:ed)?|manifest|invoice|order"
    r"|expected\s(?:delivery)?|estimated\s(?:delivery)?|attempt(?:ed)?|first\sattempt"
    r"|return|pod|arrival|scan|event|posted|post|print(?:ed)?)\s?(?:date|time|date\s?(?:&|and|/)\s?time|on)"
    r"|(?:delivery|delivered)\s(?:time|hour|slot)"
    r"|relation(?:ship)?(?:\swith\s(?:the\s)?(?:consignee|receiver|recipient|addressee))?"
    r"|(?:origin|destination|from|to)(?:\s(?:city|hub|branch|area|pin\s?code|country|station"
    r"|location|depot|office|post\s?code|facility|service\scent(?:re|er)))?"
    r"|(?:consignee|consignor|shipper|sender|customer|addressee|buyer|seller)"
    r"(?:'s)?(?:\s(?:name|phone|mobile|contact(?:\sno\.?)?|email|city|pin\s?code|ref(?:erence)?))?"
    r"|product(?:\s(?:type|code|name))?|service(?:\s(?:type|level|name))?|mode(?:\sof\s\w+)?"
    r"|(?:no\.?\sof\s)?(?:pieces|pcs|packages|items|boxes)|piece\scount|weight(?:\s\(kg\))?"
    r"|(?:actual|chargeable|declared|gross|volumetric)\s(?:weight|value)|contents?|description"
    r"|declared\svalue|(?:cod|collect)(?:\samount)?|amount|value|currency|payment(?:\smode)?"
    r"|phone|mobile|contact(?:\s(?:no\.?|number))?|e-?mail|remarks?|comments?|notes?|instructions?"
    r"|(?:customer\s|order\s|shipper\s|your\s)?ref(?:erence)?(?:\s(?:no\.?|number|id))?"
    r"|(?:order|invoice|account|customer)\s(?:id|no\.?|number)"
    r"|id\s(?:proof|type|number|no\.?)|otp(?:\sverified)?|geo\s?(?:location|tag)|latitude|longitude"
    r"|photo|image|signature(?:\simage)?|sign|stamp|time|date|day|city|state|country"
    r"|pin\s?code|post\s?code|postal\scode|zip(?:\scode)?|route|branch|hub|area|location|zone"
    r"|(?:delivery\s)?(?:boy|agent|associate|executive|staff|courier|driver|person)(?:'s)?"
    r"(?:\s(?:name|code|id))?|emp(?:loyee)?\s(?:code|id|name)|(?:no\.?\sof\s)?attempts?"
    r"|service\scent(?:re|er)|(?:delivery\s)?(?:type|method|office|depot|branch|hub|route)"
    r"|dimensions?|size|vehicle(?:\sno\.?)?|carrier|courier\spartner"
)
MAX_OTHER = 60  # such a label alone is short, and has no digit
_DIGIT = re.compile(r"\d")
_OTHER_LABEL = re.compile(
    rf"^[|\s]{{0,3}}(?:{_OTHER})\s{{0,3}}(?:\([^)]{{0,20}}\))?\s{{0,3}}:?$", re.I
)

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
_NOT_NAMES = frozenset(
    (
        "The",
        "For",
        "It",
        "On",
        "At",
        "In",
        "To",
        "Not",
        "No",
        "None",
        "N/A",
        "Signature",
        "Date",
        "Time",
        "Delivered",
        "Customer",
        "Recipient",
    )
)
_SIGNER = re.compile(
    r"(?i:\b(?:signed\s(?:for\s)?by|received\sby|signature\sof|signatory|signer|signed))"
    r"\s{0,3}[:\-]?\s{0,3}(?=[A-Z])"
)
_ADDRESS = re.compile(
    r"\b(?:delivered\sto|delivery\saddress|shipping\saddress|ship\sto|address)\s{0,3}[:\-]?"
    r"\s{0,3}(\S.{3,150})",
    re.I,
)


@lru_cache(maxsize=2048)  # each line is asked twice (its tracking numbers, then the delivery)
def _label(line: str) -> tuple[str, str, str] | None:
    """(field, the label as written, the value beside it: "" when it is on a line below); a
    label of no field we read ("Pickup Date", "Relation") is ("", the label, "")."""
    if len(line) <= MAX_OTHER and not _DIGIT.search(line) and _OTHER_LABEL.match(line):
        return "", line.strip(" |:-–#."), ""
    for name, pattern in _LABELS:
        if m := pattern.match(line):
            value = m.group(1).strip(" |:")
            return name, line[: m.start(1)].strip(" |:-–#."), value
    return None


def is_label(text: str) -> bool:
    """Whether the text is a label alone (a field's or another's), never a value."""
    found = _label(" ".join(text.split()))
    return found is not None and not found[2]


Fields = dict[str, list[tuple[int, str, str]]]
# a run with a delivery-date label whose values could not be placed: no date is guessed then
UNPAIRED = "unpaired_date"


def fields(lines: Lines, skip: frozenset[int] = frozenset()) -> Fields:
    """{field: [(page, label, value), ...]} in the order found: a value beside its label, or,
    for a run of labels alone (one label with its value on the line below, or a table's whole
    column of labels, then its column of values), the lines after the run paired with its
    labels by position. When the lines after a run are fewer than its labels, or more and a
    value does not fit its label (a date, a tracking number, a name, an address), the pairing
    is not sure and the run says nothing. The lines at `skip` are neither."""
    out: Fields = {}
    kept = [(i, page, line) for i, (page, line) in enumerate(lines) if i not in skip]
    found = [_label(line) for _, _, line in kept]
    at = 0
    while at < len(kept):
        label = found[at]
        if label is None:
            at += 1
            continue
        if label[2]:
            out.setdefault(label[0], []).append((kept[at][1], label[1], label[2]))
            at += 1
            continue
        labels: list[tuple[int, tuple[str, str, str]]] = []
        end = at
        while end < len(kept) and (f := found[end]) is not None and not f[2]:
            labels.append((kept[end][1], f))
            end += 1
        stop = end  # a table's value may read as a label and its value ("Delivered to X")
        while stop < len(kept) and _value_line(found[stop], end - at):
            stop += 1
        values = [kept[i][2] for i in range(end, stop)]
        pairs = _paired(labels, values)
        for (page, (name, written, _)), value in pairs:
            if name:
                out.setdefault(name, []).append((page, written, value))
        if not pairs and any(name == "on" for _, (name, _, _) in labels):
            out.setdefault(UNPAIRED, []).append((labels[0][0], "", ""))
        at = end + min(len(labels), len(values))
    return out


def _value_line(label: tuple[str, str, str] | None, run: int) -> bool:
    """Whether a line after a run of `run` labels is one of their values: any line but a label
    alone; after a column of labels, a line that reads as a label with its value too."""
    return label is None or (run > 1 and bool(label[2]))


def _paired(
    labels: list[tuple[int, tuple[str, str, str]]], values: list[str]
) -> list[tuple[tuple[int, tuple[str, str, str]], str]]:
    """The run's labels with their values by position, or none when that is not sure."""
    if len(values) < len(labels) or len(labels) > MAX_PENDING:
        return []
    pairs = list(zip(labels, values, strict=False))
    if not all(_fits(name, value) for (_, (name, _, _)), value in pairs):
        return []
    return pairs


def _fits(field: str, value: str) -> bool:
    """Whether a value could be the field's (loose: what a misplaced value never is)."""
    if field == "on":
        return first_date(value) is not None
    if field == "tracking":
        m = re.match(TRACK_VALUE, value.strip(), re.I)
        return m is not None and any(c.isdigit() for c in m.group(1))
    digits = sum(c.isdigit() for c in value)
    if field == "signer":
        return any(c.isalpha() for c in value) and digits <= 2 and first_date(value) is None
    if field == "address":
        return sum(c.isalpha() for c in value) >= 3 and first_date(value) is None
    return True


def signer_in(text: str) -> str | None:
    """The name at the start of `text` (capitalised words), or None (a label is no name)."""
    m = _NAME.match(text.strip(" :-|"))
    if m is None or m.group(0).split()[0].rstrip(".:") in _NOT_NAMES or is_label(m.group(0)):
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
            said = None if is_label(line) else i  # "Delivered Date" alone says nothing
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
    dated = [
        (p, f"{label} {v}", d)
        for p, label, v in found.get("on", [])
        if (d := first_date(v, dayfirst))
    ]
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
        _date(lines, said, dated, dayfirst, guess=UNPAIRED not in found),
        _signer(lines, found, voiced),
        _address(lines, found, voiced),
        quote,
    )


def _date(
    lines: Lines,
    said: int | None,
    dated: list[tuple[int, str, date]],
    dayfirst: bool | None,
    guess: bool = True,
) -> date | None:
    """The date under a delivery-date label, else the one on the line that says it, else (when
    `guess`: no delivery-date label was left without its value) the first near it."""
    if dated:
        return dated[0][2]
    at = said if said is not None else 0
    line = lines[at][1]
    word = _DELIVERED.search(line)  # "shipped 25/11, delivered 10/12": the date after it first
    own = first_date(line[word.start() :] if word else line, dayfirst) or first_date(line, dayfirst)
    if own or not guess:
        return own
    near = " ".join(ln for _, ln in lines[at : at + 3])
    return first_date(near, dayfirst) or first_date(" ".join(ln for _, ln in lines), dayfirst)


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
    """The delivery address under its label (a bare "Address" or "Destination", often only a
    city, after any other), else after one in a line; never a label."""
    given = sorted(found.get("address", []), key=lambda f: f[1].lower() in _BARE_ADDRESS)
    for _, _, value in given:
        if len(value) > 3 and not is_label(value):
            return value[:150]
    inline = (_ADDRESS.search(ln) for i, (_, ln) in enumerate(lines) if i not in voiced)
    return next((v for m in inline if m and not is_label(v := m.group(1).strip())), None)
