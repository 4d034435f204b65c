"""The letter page of the evidence summary PDF, and the sources appendix (reportlab flowables).

The reviewer's page carries no footnotes to our spreadsheets: reviewers give a spreadsheet row
no evidential weight, and a CSV footnote marks the evidence as self-reported (issue 36). What
each kind of statement rests on (the file and row when the engine names them, else the kind of
record) is for the merchant's records, in an appendix at the very end of the packet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, Spacer, Table, TableStyle

from dispute_evidence.evidence import fonts
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.exhibits import Exhibit, caption
from dispute_evidence.evidence.letter import (
    FILE,
    SOURCE_TITLES,
    SOURCE_WORDS,
    Letter,
    Sentence,
)
from dispute_evidence.evidence.reason_points import PURCHASES
from dispute_evidence.names import visible

TEXT_CHARS = 2000  # a sentence or source line longer than this is clipped with "…"
MAX_EXHIBITS = 8  # listed on the letter's page; the data sheet lists every one

fonts.register()
_STYLES = getSampleStyleSheet()
_TITLE = ParagraphStyle(
    "lt", parent=_STYLES["Heading1"], fontName=fonts.BOLD, fontSize=15, spaceAfter=2
)
_HEAD = ParagraphStyle(
    "lh",
    parent=_STYLES["Heading2"],
    fontName=fonts.BOLD,
    fontSize=11.5,
    spaceBefore=8,
    spaceAfter=3,
)
_TEXT = ParagraphStyle(
    "lb", parent=_STYLES["BodyText"], fontName=fonts.BODY, fontSize=10, leading=13.5, spaceAfter=3
)
_ITEM = ParagraphStyle("li", parent=_TEXT, leftIndent=10, bulletIndent=0, bulletFontName=fonts.BODY)
_EVENT = ParagraphStyle("le", parent=_ITEM, fontSize=9.5, leading=12, spaceAfter=0.5)
_QUOTE = ParagraphStyle("lq", parent=_TEXT, leftIndent=10, rightIndent=6)
_NOTE = ParagraphStyle(
    "ln", parent=_TEXT, fontSize=8.5, leading=11, textColor=colors.HexColor("#555555")
)
# the appendix in PDF's standard fonts when its text is Latin-1 (file names and rows mostly
# are): nothing to embed, so the merchant's page costs half as much to make and to merge
_PLAIN_HEAD = ParagraphStyle("ph", parent=_HEAD, fontName="Helvetica-Bold")
_PLAIN_NOTE = ParagraphStyle("pn", parent=_NOTE, fontName="Helvetica")
_CELL = ParagraphStyle("lc", parent=_TEXT, fontSize=8, leading=9.5, spaceAfter=0)
_CELL_HEAD = ParagraphStyle("lch", parent=_CELL, fontName=fonts.BOLD)
NO_CLAIMS = (
    "We hold no further facts that answer this dispute, so this letter makes no claim; "
    "the data sheet that follows shows the records we have for this order."
)
# never "no further facts" beside documents it attaches (issue 36, finding 11)
NO_CLAIMS_ATTACHED = (
    "This letter makes no claim of its own; the documents listed below are our "
    "response, and the data sheet that follows shows the records we have for "
    "this order."
)
NO_CLAIMS_STATED = (
    "This letter makes no claim from our records; the merchant's statement below "
    "is our response, and the data sheet that follows shows the records we have "
    "for this order."
)


def _text(value: object) -> str:
    text = visible(str(value))
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS - 1] + "…"
    return fonts.markup(text)


def _marked(s: Sentence, numbers: dict[str, int]) -> str:
    """The sentence, with its footnote number when `numbers` gives it one."""
    if s.source not in numbers:
        return _text(s.text)
    return f"{_text(s.text)} <font size='7.5' color='#555555'>[{numbers[s.source]}]</font>"


HEADER_CHARS = 160  # a value in the header block (a pasted essay stays a line or two)


def _cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


@dataclass(frozen=True)
class LetterHead:
    """What the engine knows and the payload does not: the date the letter was written, and
    the merchant's contact (`[merchant] merchant_contact`)."""

    dated: date | None = None
    contact: str = ""


def _header_table(letter: Letter, head: LetterHead) -> list[Any]:
    """The disputed transaction identified, in a small two-column block under the title, with
    the letter's date (the merchant's contact is on the line above it)."""
    said = [("Date of this letter", head.dated.isoformat() if head.dated else ""), *letter.header]
    rows = [
        [Paragraph(_text(k), _NOTE), Paragraph(_text(_cut(v, HEADER_CHARS)), _TEXT)]
        for k, v in said
        if v
    ]
    if not rows:
        return []
    table = Table(rows, colWidths=[48 * mm, 122 * mm])
    table.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                ("TOPPADDING", (0, 0), (-1, -1), 1),
                ("LINEBELOW", (0, -1), (-1, -1), 0.4, colors.HexColor("#999999")),
            ]
        )
    )
    return [Spacer(1, 2 * mm), table]


def _ce3_table(rows: tuple[tuple[str, ...], ...]) -> list[Any]:
    """Visa CE 3.0: the disputed order and the two earlier ones, side by side."""
    if not rows:
        return []
    cells = [
        [Paragraph(_text(v), _CELL_HEAD if i == 0 or j == 0 else _CELL) for j, v in enumerate(row)]
        for i, row in enumerate(rows)
    ]
    widths = [38 * mm, *[132 * mm / (len(rows[0]) - 1)] * (len(rows[0]) - 1)]
    table = Table(cells, colWidths=widths, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#BBBBBB")),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#F0F0F0")),
                ("BACKGROUND", (1, 1), (1, -1), colors.HexColor("#FAFAFA")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 1),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
            ]
        )
    )
    return [Spacer(1, 0.5 * mm), table, Spacer(1, 2 * mm)]


def _exhibit_list(
    exhibits: Mapping[str, Exhibit], case: CaseFacts, quoted: frozenset[str] = frozenset()
) -> list[Any]:
    """The exhibits the letter cites by label, each with a caption saying what it shows: in a
    packet, where it begins; else the file each one is, so the reviewer can match a label to
    a file sent on its own. `quoted`: the labels of documents the letter quotes whole (a
    document of no known kind): "document, quoted above", not its words again."""
    if not exhibits:
        return []
    shown = list(exhibits.values())[:MAX_EXHIBITS]
    packet = any(x.start for x in shown)
    read = {d.name: d for d in case.documents}
    dated = not case.hidden("delivered")
    said = {
        x.label: QUOTED if x.label in quoted else caption(x, read.get(x.name), dated) for x in shown
    }
    lines = [
        f"Exhibit {x.label}: {said[x.label]} (page {x.start})"
        if packet
        else f"Exhibit {x.label}: {x.name} ({said[x.label]})"
        for x in shown
    ]
    if len(exhibits) > MAX_EXHIBITS:
        lines.append(f"… and {len(exhibits) - MAX_EXHIBITS} more, listed on the data sheet")
    title = "Exhibits in this packet" if packet else "Exhibits (each sent as a file of its own)"
    return [Paragraph(_text(title), _HEAD), *(Paragraph(_text(line), _TEXT) for line in lines)]


def _cited_by(exhibits: Mapping[str, Exhibit]) -> str:
    if not exhibits:
        return "."
    if any(x.start for x in exhibits.values()):
        return "; each exhibit is cited by its letter, which every page of it carries."
    return "; each exhibit is cited by its letter, and the list above names its file."


def letter_story(
    pid: str,
    letter: Letter,
    case: CaseFacts,
    exhibits: Mapping[str, Exhibit] | None = None,
    head: LetterHead | None = None,
    timeline_apart: bool = False,
) -> list[Any]:
    """Page 1: to the reviewer, the dispute in plain words, the order, and our case, then the
    exhibits it cites by label (`exhibits`); `timeline_apart`: the timeline is left for the
    next page (`timeline_story`), so the letter keeps to one (issue 44, item 11)."""
    merchant = case.merchant
    numbers: dict[str, int] = {}  # no footnotes to our records on the reviewer's page
    head = head or LetterHead()
    named = (merchant.merchant_name, merchant.merchant_website) if merchant else ()
    who = " · ".join(x for x in (*named, head.contact) if x)  # who answers, and how to reach them
    story: list[Any] = [
        Paragraph(_text(f"Response to dispute {pid}"), _TITLE),
        Paragraph(_text(" · ".join(x for x in (who, f"order {case.order_number}") if x)), _NOTE),
        *_header_table(letter, head),
        Spacer(1, 4 * mm),
        Paragraph("To the reviewer of this dispute,", _TEXT),
    ]
    # the thesis first: the claim answered by the decisive proof (the header names the reason)
    story.append(
        Paragraph(_text(letter.thesis.text if letter.thesis else letter.reason_line), _TEXT)
    )
    if letter.context:
        story.append(Paragraph("The order", _HEAD))
        story.append(Paragraph(" ".join(_marked(s, numbers) for s in letter.context), _TEXT))
    if letter.conceded:  # never "why the payment stands" above facts for the cardholder
        story.append(Paragraph("What our records show", _HEAD))
        story += [Paragraph(_marked(s, numbers), _ITEM, bulletText="•") for s in letter.conceded]
    if letter.contests:
        story += _response_story(letter, numbers)
    story += [] if timeline_apart else timeline_story(letter)
    closing = _closing(letter, case, exhibits or {}, timeline_apart and bool(letter.timeline))
    # the closing never stands alone on a page: the body's last lines go over with it
    body, carried = story[:-CARRIED], story[-CARRIED:]
    return [*body, KeepTogether([*carried, *closing])]


def _response_story(letter: Letter, numbers: dict[str, int]) -> list[Any]:
    """Our side: the points, the attachments and the merchant's statement (never in a letter
    that does not contest the dispute: it would argue against its own request)."""
    story: list[Any] = []
    story.append(Paragraph("Why the payment stands" if letter.argues else "Our response", _HEAD))
    if not letter.claims:  # it says what it is itself
        attached = any(s.source == "files" for s in letter.sentences)
        said = (
            NO_CLAIMS_ATTACHED if attached else NO_CLAIMS_STATED if letter.statement else NO_CLAIMS
        )
        story.append(Paragraph(_text(said), _TEXT))
    for point in letter.points:  # the CE 3.0 table right under the point it shows
        rows = {"history": letter.ce3_table, PURCHASES: letter.purchases}.get(point.source, ())
        if point in letter.shown:  # one the thesis says is not said twice, its table is
            story.append(Paragraph(_marked(point, numbers), _ITEM, bulletText="•"))
        elif rows:
            story.append(Paragraph(_text(SIDE_BY_SIDE[point.source]), _ITEM, bulletText="•"))
        story += _ce3_table(rows) if rows else []
    # the attachments listed: not a point of "why the payment stands", so not one of its bullets
    story += [
        Paragraph(_marked(s, numbers), _TEXT) for s in letter.sentences if s not in letter.points
    ]
    if letter.statement:  # the merchant's own words: quoted apart, never mixed with the facts
        story.append(Paragraph("The merchant's statement", _HEAD))
        story += [Paragraph(_marked(s, numbers), _QUOTE) for s in letter.statement]
    return story


QUOTED = "document, quoted above"  # an exhibit the letter quotes: its caption
# a table's bullet when the thesis already says what the table shows
SIDE_BY_SIDE = {
    "history": "The disputed order and the two earlier orders, side by side:",
    PURCHASES: "The two purchases, side by side:",
}
CARRIED = 3  # the body's last flowables kept on the closing's page


def timeline_story(letter: Letter) -> list[Any]:
    """The dated facts, oldest first, one short line each."""
    if not letter.timeline:
        return []
    numbers: dict[str, int] = {}
    return [
        Paragraph("Timeline", _HEAD),
        *(Paragraph(_marked(s, numbers), _EVENT, bulletText="–") for s in letter.timeline),
    ]


def _closing(
    letter: Letter, case: CaseFacts, exhibits: Mapping[str, Exhibit], apart: bool = False
) -> list[Any]:
    """The request, the exhibits it cites (a document it never argues, another parcel's proof,
    is not named here; the data sheet lists every exhibit), and the signature; `apart`: the
    timeline is on the next page, and the note says so."""
    merchant = case.merchant
    out: list[Any] = [Paragraph(_text(letter.request), _TEXT)] if letter.request else []
    cited = set(letter.documents)
    quoted = frozenset(
        x.label
        for x in exhibits.values()
        if any(s.text.startswith(f"Exhibit {x.label} reads: ") for s in letter.sentences)
    )
    out += _exhibit_list({n: x for n, x in exhibits.items() if n in cited}, case, quoted)
    note = (
        "The timeline and the data sheet on the next page show the order, payment checks, "
        "shipping and customer in full"
        if apart
        else "The data sheet on the next page shows the order, payment checks, shipping and "
        "customer in full"
    )
    out += [Spacer(1, 2 * mm), Paragraph(_text(note + _cited_by(exhibits)), _NOTE)]
    if merchant and merchant.merchant_name:
        out += [Spacer(1, 3 * mm), Paragraph(_text(merchant.merchant_name), _TEXT)]
    return out


APPENDIX_TITLE = "For the merchant's records: where this response's statements come from"


def appendix_story(
    letter: Letter, sources: dict[str, str] | None, exhibits: Mapping[str, Exhibit] | None = None
) -> list[Any]:
    """The appendix at the packet's very end: the record each kind of statement rests on (the
    file and row, when the engine names them), and the file each exhibit is."""
    where = {**SOURCE_WORDS, **(sources or {})}
    records = [k for k in letter.sources() if k != "files" and not k.startswith(FILE)]
    pairs = [(SOURCE_TITLES.get(k, k), where.get(k, k)) for k in records]
    named = {k.removeprefix(FILE) for k in letter.sources() if k.startswith(FILE)}
    if exhibits:  # every exhibit, by the file it is
        pairs += [(f"Exhibit {x.label}", x.name) for x in exhibits.values()]
    else:
        pairs += [("Attached document", n) for n in sorted(named)]
    if not pairs:
        return []
    plain = all(_latin1(t) for pair in pairs for t in pair)
    note, head = (_PLAIN_NOTE, _PLAIN_HEAD) if plain else (_NOTE, _HEAD)
    rows = [[title, Paragraph(_text(value), note)] for title, value in pairs]
    table = Table(rows, colWidths=[40 * mm, 130 * mm], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("FONTNAME", (0, 0), (0, -1), "Helvetica" if plain else fonts.BODY),
                ("FONTSIZE", (0, 0), (0, -1), 8.5),  # plain cells: no line breaking to pay for
                ("TEXTCOLOR", (0, 0), (0, -1), colors.HexColor("#555555")),
                ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#DDDDDD")),
            ]
        )
    )
    return [Paragraph(_text(APPENDIX_TITLE), head), table]


def _latin1(text: str) -> bool:
    """Whether the standard fonts print `text` (Latin-1), so none need be embedded."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True
