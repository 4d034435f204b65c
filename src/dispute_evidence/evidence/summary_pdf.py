"""The evidence summary PDF: one readable document per dispute for the reviewer, made from the
payload we send (nothing else), so it never says more or less than the evidence. Every fact
the letter and the data sheet state is read from the dispute's one case (evidence/case_record.py),
never from the payload's keys, so neither says a date the case withholds.

Deterministic: reportlab's invariant mode (no creation time, no random document id), and no
"generated at" line, so the same payload and file list give the same bytes and a rerun
uploads nothing. At most 2 pages: long product or shipment lists are cut with "… and N more".
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    Flowable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.doctemplate import LayoutError

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.cardnumbers import cover
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence import fonts
from dispute_evidence.evidence.case_build import build_case, documents_named
from dispute_evidence.evidence.case_parts import Contradiction, Line
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.credits import MAX_CREDITS
from dispute_evidence.evidence.delivery import DeliveryFact
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.exhibits import Exhibit, exhibits_for
from dispute_evidence.evidence.inert_pdf import inert_bytes
from dispute_evidence.evidence.letter import Letter, letter_for
from dispute_evidence.evidence.letter_pdf import (
    LetterHead,
    appendix_story,
    letter_story,
    timeline_story,
)
from dispute_evidence.evidence.pdf_layouts import (
    GENERATOR,  # a new layout here: a new version there
)
from dispute_evidence.names import visible

MAX_ROWS = 12  # per table, to stay within 2 pages
# How much of each cell and table the data sheet prints: (characters a cell, rows a table),
# tried in order until the data sheet fits on DATA_SHEET_PAGES pages (a long carrier name or
# AVS text is clipped with "…", never allowed to push the sheet past its promise or a table
# row past a page, which reportlab refuses with a LayoutError).
FIT_LEVELS = ((300, MAX_ROWS), (120, 8), (60, 5), (30, 3))
DATA_SHEET_PAGES = 2
MARGINS = (18 * mm, 15 * mm)  # left and right, top and bottom
_FIT: ContextVar[tuple[int, int]] = ContextVar("summary_fit", default=FIT_LEVELS[0])

fonts.register()
_STYLES = getSampleStyleSheet()
_H1 = ParagraphStyle(
    "h1", parent=_STYLES["Heading1"], fontName=fonts.BOLD, fontSize=15, spaceAfter=2
)
_H2 = ParagraphStyle(
    "h2",
    parent=_STYLES["Heading2"],
    fontName=fonts.BOLD,
    fontSize=11.5,
    spaceBefore=7,
    spaceAfter=3,
)
_BODY = ParagraphStyle(
    "body", parent=_STYLES["BodyText"], fontName=fonts.BODY, fontSize=9, leading=11.5
)
_SMALL = ParagraphStyle("small", parent=_BODY, fontSize=8, textColor=colors.HexColor("#555555"))
_NOTICE = ParagraphStyle("notice", parent=_BODY, fontName=fonts.BOLD, fontSize=9.5, leading=12)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with "…" saying it was cut."""
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def _p(text: object, style: ParagraphStyle = _BODY) -> Paragraph:
    limit = _FIT.get()[0] if style is _BODY or style is _SMALL else 2 * _FIT.get()[0]
    return Paragraph(fonts.markup(clip(visible(str(text)), limit)), style)


def _money(amount: float | None, currency: str) -> str:
    return "" if amount is None else f"{amount:,.2f} {currency}".strip()


def _table(rows: list[list[object]], widths: list[float], header: bool = True) -> Table:
    data = [[_p(c) for c in row] for row in rows]
    table = Table(data, colWidths=widths, repeatRows=1 if header else 0, hAlign="LEFT")
    style = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#DDDDDD")),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DDEBF7")))
        style.append(("FONTNAME", (0, 0), (-1, 0), fonts.BOLD))
    table.setStyle(TableStyle(style))
    return table


def _facts(pairs: list[tuple[str, object]]) -> Table | None:
    rows: list[list[object]] = [[k, v] for k, v in pairs if v not in (None, "", [])]
    return _table(rows, [45 * mm, 125 * mm], header=False) if rows else None


def _cut(rows: list[list[object]], what: str) -> list[list[object]]:
    most = _FIT.get()[1]
    if len(rows) <= most:
        return rows
    width = len(rows[0]) if rows else 1
    return [*rows[:most], [f"… and {len(rows) - most} more {what}", *[""] * (width - 1)]]


def summary_pdf(
    provider_dispute_id: str,
    facts: DisputeFacts,
    attached: list[str] | list[DocumentFacts],
    *,
    notice: str | None = None,
    pages: dict[str, int] | None = None,
    head: LetterHead | None = None,
) -> bytes:
    """The summary of one dispute's evidence; `attached`: the other files sent with it (their
    names, or what was read from them).

    Page 1 is the rebuttal letter (evidence/letter.py), then the data sheet (at most
    DATA_SHEET_PAGES pages, cells clipped to fit). Both read one case (evidence/case_record.py), so
    they cannot disagree on delivery, dates or amounts; where their statements come from is
    `sources_pdf`, for the packet's very end. `notice`: what this version replaces and why, on
    top of page 1; `pages`: each attached document's first page in the packet; `head`: the
    letter's date and the merchant's contact (none: neither is printed)."""
    case = build_case(facts, documents_named(attached))
    letter, exhibits = lettered(case, pages)
    body = b""
    for level in FIT_LEVELS:
        token = _FIT.set(level)
        try:
            laid = _laid_out(provider_dispute_id, letter, case, exhibits, head, notice)
            if laid.signed_on > 1 and letter.timeline:  # the timeline to the next page
                moved = _laid_out(provider_dispute_id, letter, case, exhibits, head, notice, True)
                laid = moved if moved.signed_on == 1 else laid  # else it gains nothing
        except LayoutError:
            if level == FIT_LEVELS[-1]:
                raise
            continue
        finally:
            _FIT.reset(token)
        body = laid.body
        if laid.sheet_pages <= DATA_SHEET_PAGES:
            break
    return inert_bytes(body)  # nothing we print can run; checked, as for every PDF we make


@dataclass(frozen=True)
class _Laid:
    body: bytes
    signed_on: int  # the page the letter's signature is on
    sheet_pages: int  # the data sheet's pages


def _laid_out(
    pid: str,
    letter: Letter,
    case: CaseFacts,
    exhibits: dict[str, Exhibit],
    head: LetterHead | None,
    notice: str | None,
    timeline_apart: bool = False,
) -> _Laid:
    """The PDF laid out: page 1 the letter, then the data sheet; `timeline_apart`: the
    letter's timeline on top of the data sheet's first page, so the request and the signature
    stay on page 1 (issue 44, item 11)."""
    signed, start, end = _Mark(), _Mark(), _Mark()
    story: list[Any] = [
        *_notice(notice),
        *letter_story(pid, letter, case, exhibits, head, timeline_apart),
        signed,
        PageBreak(),
        start,
        *(timeline_story(letter) + [Spacer(1, 3 * mm)] if timeline_apart else []),
        *_data_sheet(pid, case.merchant, case, exhibits),
        end,
    ]
    body = _render(story, pid, case.merchant)
    return _Laid(body, signed.page, end.page - start.page + 1)


def sources_pdf(
    provider_dispute_id: str,
    facts: DisputeFacts,
    attached: list[str] | list[DocumentFacts],
    sources: dict[str, str] | None,
) -> bytes | None:
    """The appendix for the merchant's records, out of the reviewer's reading path (the very
    end of the packet): the record each kind of the letter's statements rests on (`sources`:
    the file and row, e.g. "orders.csv, row 2") and the file each exhibit is. None when the
    letter states nothing."""
    case = build_case(facts, documents_named(attached))
    letter, exhibits = lettered(case)
    story = appendix_story(letter, sources, exhibits)
    if not story:
        return None
    return inert_bytes(_render(story, provider_dispute_id, case.merchant))


def lettered(
    case: CaseFacts, pages: dict[str, int] | None = None
) -> tuple[Letter, dict[str, Exhibit]]:
    """The letter citing each document by its exhibit label, and the exhibits: in a packet
    (`pages`: each one's first page in it) labelled in the packet's order, so a label is its
    stamp's; else in the order the letter first names them (its wording decides it, not its
    labels), the order a packet would have (evidence/packet.py)."""
    cited = sorted(pages, key=pages.__getitem__) if pages else letter_for(case).documents
    docs = [(d.name, d.kind, d.pages) for d in case.documents]
    exhibits = exhibits_for(docs, cited, pages)
    return letter_for(case, exhibits), exhibits


class _Mark(Flowable):  # type: ignore[misc]
    """An invisible mark that remembers the page it landed on (the data sheet's length)."""

    def __init__(self) -> None:
        super().__init__()
        self.width = self.height = 0
        self.page = 0

    def draw(self) -> None:
        self.page = self.canv.getPageNumber()


def _notice(notice: str | None) -> list[Any]:
    if not notice:
        return []
    box = Table([[_p(notice, _NOTICE)]], colWidths=[174 * mm], hAlign="LEFT")
    box.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.75, colors.HexColor("#B26B00")),
                ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#FFF4E0")),
            ]
        )
    )
    return [box, Spacer(1, 3 * mm)]


def _data_sheet(
    provider_dispute_id: str,
    merchant: MerchantProfile | None,
    case: CaseFacts,
    exhibits: dict[str, Exhibit],
) -> list[Any]:
    story: list[Any] = [
        _p(f"Evidence summary: dispute {provider_dispute_id}", _H1),
        _p(_headline(case), _SMALL),
    ]
    story += _merchant_section(merchant)
    story += _order_section(case)
    story += _payment_section(case)
    story += _shipping_section(case, exhibits)
    story += _customer_section(case)
    story += _use_section(case)
    story += _files_section(list(exhibits.values()))
    return story


def _headline(case: CaseFacts) -> str:
    """The order, the reason and the disputed amount (the letter's, never the order's total)."""
    d = case.dispute
    parts = [f"Order {case.order_number}"]
    if d.reason and d.reason != "general":  # the API's enum, said in words
        parts.append(f"reason: {_plain(d.reason)}")
    if d.amount is not None:
        parts.append(f"disputed amount: {_money(d.amount, d.currency)}")
    return " · ".join(parts)


def _plain(value: str) -> str:
    """An export's or the API's code in words: "partially_refunded" is "partially refunded"."""
    return value.replace("_", " ")


def _date(case: CaseFacts, what: str, value: str) -> str:
    """A date as the case states it: "withheld (timeline: …)" when the timeline hides it."""
    why = case.withheld(what) if value else ""
    return f"withheld ({why})" if why else value


def _section(title: str, *flowables: Any) -> list[Any]:
    """A titled part of the data sheet, or nothing when it has nothing to show."""
    present = [f for f in flowables if f is not None]
    return [_p(title, _H2), *present] if present else []


def _merchant_section(merchant: MerchantProfile | None) -> list[Any]:
    if merchant is None:
        return []
    return _section(
        "Merchant",
        _facts(
            [
                ("Name", merchant.merchant_name),
                ("Website", merchant.merchant_website),
                # no merchant id: an internal account id means nothing to the issuer
            ]
        ),
    )


def _order_section(case: CaseFacts) -> list[Any]:
    products: list[list[object]] = [
        [
            x.title,
            _fmt_qty(x.quantity),
            _money(x.price, x.currency),
            _money(_line_total(x), x.currency),
        ]
        for x in case.lines
    ]
    return _section(
        "The order",
        _facts(
            [
                ("Order number", case.order_number),
                ("Order date (UTC)", _date(case, "ordered", case.order_date)),
                ("Order total", _money(case.total, case.currency)),
                ("Refunded", _money(case.refunded, case.currency) if case.refund_recorded else ""),
                ("Refunds", "; ".join(x.words() for x in case.credits[:MAX_CREDITS])),
                ("Payment status", _plain(case.financial_status)),
                # Shopify's "unfulfilled" beside a recorded shipment is the analyst's to fix
                ("Fulfilment", "" if case.hidden_fulfilment else _plain(case.fulfillment_status)),
                ("Cancelled (UTC)", case.cancelled_on),
                (
                    "Unit prices",
                    "; ".join(f"{x.title}: {x.price_from}" for x in case.lines if x.price_from),
                ),
            ]
        ),
        Spacer(1, 2 * mm) if products else None,
        _table(
            [["Product", "Qty", "Unit price", "Line total"], *_cut(products, "products")],
            [95 * mm, 15 * mm, 30 * mm, 30 * mm],
        )
        if products
        else None,
    )


def _payment_section(case: CaseFacts) -> list[Any]:
    checks: list[list[object]] = [
        [
            c.payment_id,
            f"{c.card_brand} …{c.card_last4}".strip(),
            c.avs_line1_check,
            c.avs_zip_check,
            c.cvc_check,
        ]
        for c in case.charges
    ]
    return _section(
        "Payment checks",
        _table(
            [["Charge", "Card", "AVS address", "AVS postcode", "CVC"], *_cut(checks, "charges")],
            [55 * mm, 35 * mm, 27 * mm, 27 * mm, 26 * mm],
        )
        if checks
        else None,
    )


def _by_label(words: str, fact: DeliveryFact, exhibits: dict[str, Exhibit]) -> str:
    """The delivery's words citing its proof by exhibit label, as the letter does."""
    x = exhibits.get(fact.document) if fact.source == "files" else None
    return words.replace(f"(per {fact.cite})", f"(per {x.cite(fact.page)})") if x else words


def _proven(case: CaseFacts) -> set[str]:
    """The parcels (tracking numbers) the case's signed or dated proof of delivery is for: the
    ones it names, or the order's one parcel. Their row states the proof, never our record's
    stale "in transit" beside it (issue 44, item 5: the analyst is told of the disagreement)."""
    d = case.delivery
    if d.source != "files" or not d.delivered:
        return set()
    doc = next((x for x in case.documents if x.name == d.document), None)
    named = set(doc.tracking_numbers) if doc else set()
    ours = {s.tracking_number for s in case.shipments}
    return (named & ours) or (ours if len(case.shipments) == 1 else set())


def _shipping_section(case: CaseFacts, exhibits: dict[str, Exhibit]) -> list[Any]:
    """The case's one delivery fact, then each carrier row as the carrier records it (a proof
    of delivery that outweighs it is the Delivery line, and the Note states both)."""
    proven = _proven(case)
    proof = _by_label(case.delivery_words, case.delivery, exhibits)
    ships: list[list[object]] = [
        [
            s.carrier,
            s.tracking_number,
            _date(case, "shipped", s.shipped_on),
            proof if s.tracking_number in proven else case.said(s.delivery),
        ]
        for s in case.shipments
    ]
    return _section(
        "Shipping timeline",
        _facts(
            [
                ("Shipping method", case.shipping_method),
                ("Shipping address", case.customer.shipping_address),
                ("Delivery", _by_label(case.delivery_words, case.delivery, exhibits)),
                # a date withheld says so; the contradictions themselves are the analyst's (the
                # report names them): no internal label reaches the reviewer (issue 36)
                ("Note", "; ".join(_withheld(c) for c in case.contradictions if c.hides)),
            ]
        ),
        Spacer(1, 2 * mm) if ships else None,
        _table(
            [
                ["Carrier", "Tracking number", "Shipped (UTC)", "Delivery"],
                *_cut(ships, "shipments"),
            ],
            [30 * mm, 60 * mm, 40 * mm, 40 * mm],
        )
        if ships
        else None,
    )


def _withheld(c: Contradiction) -> str:
    dates = " and ".join(
        {"ordered": "order", "shipped": "ship", "delivered": "delivery"}[h] for h in c.hides
    )
    return f"the {dates} dates are not stated here: our records give them out of order"


def _customer_section(case: CaseFacts) -> list[Any]:
    """What was entered at checkout (and observed), never who the person was."""
    cu = case.customer
    return _section(
        "The customer (as entered at checkout)",
        _facts(
            [
                ("Name", cu.name),
                ("Email", cu.email),
                ("Billing address", cu.billing_address),
                ("IP address (observed)", cu.ip),
                ("Device (observed)", cu.device),
            ]
        ),
    )


def _use_section(case: CaseFacts) -> list[Any]:
    """A digital order's use from the merchant's access log (issue 44 item 10): each event kept,
    its time, IP and device, as logged; how many there are in all when not every one is shown."""
    if not case.activity:
        return []
    rows: list[list[object]] = [
        [a.at.replace("T", " ").removesuffix("Z")[:16], a.event, a.ip, a.device]
        for a in case.activity
    ]
    left = case.activity_total - len(rows)
    note = (
        [_p(f"{case.activity_total} events in all; the first and the latest are shown.", _SMALL)]
        if left > 0
        else []
    )
    return _section(
        f"The account's use (access log: {case.activity[0].account})",
        _table(
            [["Time (UTC)", "Event", "IP address", "Device"], *rows],
            [38 * mm, 52 * mm, 35 * mm, 45 * mm],
        ),
        *note,
    )


def _files_section(exhibits: list[Exhibit]) -> list[Any]:
    """The exhibits, in their order: in a packet, where each begins; else the file each one is
    (its documents go to the API as files of their own, as they were dropped)."""
    rows: list[list[object]] = [
        [f"Exhibit {x.label}", x.words, f"page {x.start}" if x.start else x.name] for x in exhibits
    ]
    where = "In this packet" if any(x.start for x in exhibits) else "File"
    files = _cut(rows, "exhibits")
    return _section(
        "Exhibits",
        _table([["Exhibit", "What it is", where], *files], [22 * mm, 58 * mm, 90 * mm])
        if files
        else _p("None besides this summary."),
    )


def _render(story: list[Any], provider_dispute_id: str, merchant: MerchantProfile | None) -> bytes:
    """The PDF bytes (invariant: the same story gives the same bytes)."""
    out = io.BytesIO()
    SimpleDocTemplate(
        out,
        pagesize=A4,
        leftMargin=MARGINS[0],
        rightMargin=MARGINS[0],
        topMargin=MARGINS[1],
        bottomMargin=MARGINS[1],
        title=cover(f"Evidence summary {provider_dispute_id}"),
        author=cover(merchant.merchant_name) if merchant else "",
        creator=GENERATOR,
        invariant=True,
    ).build(story)
    return out.getvalue()


def _fmt_qty(q: float | None) -> str:
    if q is None:
        return ""
    return str(int(q)) if q.is_integer() else f"{q:g}"


def _line_total(x: Line) -> float | None:
    return None if x.price is None or x.quantity is None else x.price * x.quantity
