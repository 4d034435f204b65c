"""Page stamps: a band added under each page of the packet, saying what the page is.

"Exhibit A — proof of delivery — page 4 of 7": issuer portals often show page images, not a
viewer's page index, so every page says where it stands. The band is added *outside* the
page's own visible area (its crop box grows by the band's height on the side the reader sees
as the bottom, whatever its /Rotate), so the stamp never covers the document; the page's
content stream is kept as it is (pypdf wraps it in q/Q), never rasterised. The stamps are one
small reportlab PDF, a page per stamped page, laid over each page with pypdf's merge: its font
is embedded once for the whole packet.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from pypdf import PdfReader, PdfWriter, Transformation
from pypdf._page import PageObject
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    IndirectObject,
    NameObject,
    RectangleObject,
    is_null_or_none,
)
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from dispute_evidence.cardnumbers import cover_text
from dispute_evidence.evidence import fonts

A4_WIDTH = A4[0]
FONT_ON_A4 = 12.0  # points, on a page as wide as A4: legible on a page image at 50 dpi
FONT_RANGE = (9.0, 36.0)  # scaled with the page's width within these (a poster's is larger)
LEADING = 1.25  # a line's height, in font sizes
PAD = 0.9  # above and below the lines, in font sizes
INK = colors.HexColor("#222222")

Mark = tuple[str, str]  # (the stamp, what stands at the band's other end: "" for nothing)
Shape = tuple[float, float, tuple[float, float], int]  # width, height seen; corner; rotation

fonts.register()


def stamp_pages(writer: PdfWriter, marks: Sequence[Mark | None]) -> None:
    """Add a band under page i of `writer` holding marks[i] (None: leave the page as it is)."""
    pages = [(page, mark) for page, mark in zip(writer.pages, marks, strict=True) if mark]
    if not pages:
        return
    laid = [(page, _layout(_seen_width(page), mark)) for page, mark in pages]
    shapes = [_extend(page, _band(size, lines)) for page, (size, lines) in laid]
    reader = PdfReader(io.BytesIO(_stamps(shapes, [lay for _, lay in laid])))
    for i, ((page, _), (_, _, corner, turn), stamp) in enumerate(
        zip(pages, shapes, reader.pages, strict=True)
    ):
        _overlay(writer, page, stamp, Transformation().rotate(turn).translate(*corner), i)


def _overlay(
    writer: PdfWriter, page: PageObject, stamp: PageObject, place: Transformation, n: int
) -> None:
    """Draw `stamp` over `page`, placed by `place`, as a form of its own (named by `n`): the
    page's content streams are kept byte for byte (never decoded, whatever their filter),
    wrapped in q … Q so a transform they leave in force cannot move the stamp."""
    drawn = stamp.get_contents()
    form = DecodedStreamObject()
    form.set_data(drawn.get_data() if drawn is not None else b"")
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): RectangleObject(stamp.mediabox),
            NameObject("/Matrix"): ArrayObject(FloatObject(v) for v in place.ctm),
            NameObject("/Resources"): stamp["/Resources"].clone(writer),  # the font: once per file
        }
    )
    name = NameObject(f"/DisputeEvidenceStamp{n}")  # pages of one file may share resources
    resources = page.get("/Resources")
    resources = resources.get_object() if resources is not None else None
    if not isinstance(resources, DictionaryObject):
        resources = DictionaryObject()
        page[NameObject("/Resources")] = resources
    xobjects = resources.get("/XObject")
    xobjects = xobjects.get_object() if xobjects is not None else None
    if not isinstance(xobjects, DictionaryObject):
        xobjects = DictionaryObject()
        resources[NameObject("/XObject")] = xobjects
    xobjects[name] = writer._add_object(form.flate_encode())
    raw = page.raw_get("/Contents") if "/Contents" in page else None
    old = raw.get_object() if raw is not None else None
    kept = list(old) if isinstance(old, ArrayObject) else [] if is_null_or_none(old) else [raw]
    page[NameObject("/Contents")] = ArrayObject(
        [
            _stream(writer, b"q\n"),
            *kept,
            _stream(writer, f"\nQ\nq {name} Do Q\n".encode()),
        ]
    )


def _stream(writer: PdfWriter, data: bytes) -> IndirectObject:
    out = DecodedStreamObject()
    out.set_data(data)
    return writer._add_object(out)


def _turn(page: PageObject) -> int:
    try:
        return int(page.rotation) % 360 // 90 * 90
    except (TypeError, ValueError):  # a damaged /Rotate: viewers show the page upright
        return 0


def _box(page: PageObject) -> tuple[float, float, float, float]:
    """The area a viewer shows: the crop box, else the media box, else A4 (a damaged file's
    box may be null or empty; the page is placed all the same)."""
    for name in ("cropbox", "mediabox"):
        try:
            box = getattr(page, name)
            x0, y0, x1, y1 = (float(v) for v in (box.left, box.bottom, box.right, box.top))
        except (TypeError, ValueError, IndexError, AttributeError):
            continue
        if x1 - x0 > 1 and y1 - y0 > 1:
            return x0, y0, x1, y1
    return 0.0, 0.0, A4[0], A4[1]


def _seen_width(page: PageObject) -> float:
    x0, y0, x1, y1 = _box(page)
    return y1 - y0 if _turn(page) in (90, 270) else x1 - x0


def _layout(wide: float, mark: Mark) -> tuple[float, list[tuple[str, str]]]:
    """(font size, the band's lines as (left, right)): one line when it fits the page's width,
    else the stamp broken at its dashes with the aside on a line of its own; smaller still
    only when a part alone is wider than the page."""
    text, aside = mark
    size = min(max(wide / A4_WIDTH * FONT_ON_A4, FONT_RANGE[0]), FONT_RANGE[1])
    room = wide - 4 * size

    def width(s: str) -> float:
        return float(stringWidth(s, fonts.BODY, size))

    if width(text) + width(aside) + (3 * size if aside else 0) <= room:
        return size, [(text, aside)]
    lines: list[str] = []
    for part in text.split(" — "):
        if lines and width(f"{lines[-1]} — {part}") <= room:
            lines[-1] = f"{lines[-1]} — {part}"
        else:
            lines.append(part)
    lines += [aside] if aside else []
    widest = max(width(line) for line in lines)
    return size * min(1.0, room / widest), [(line, "") for line in lines]


def _band(size: float, lines: Sequence[object]) -> float:
    return size * (LEADING * len(lines) + 2 * PAD)


def _extend(page: PageObject, band: float) -> Shape:
    """Grow the page's visible box by `band` on the side seen as the bottom; (the stamp's
    width and height as seen, band included, the corner the stamp's origin goes to, and the
    rotation that turns the stamp upright on the page). The media box becomes that box too,
    so a viewer that shows the media box (not the crop box) sees the same page."""
    turn = _turn(page)
    x0, y0, x1, y1 = _box(page)
    wide, high = (y1 - y0, x1 - x0) if turn in (90, 270) else (x1 - x0, y1 - y0)
    if turn == 0:
        y0 -= band
    elif turn == 90:  # seen turned clockwise: the right edge is the bottom
        x1 += band
    elif turn == 180:
        y1 += band
    else:
        x0 -= band
    page.mediabox = page.cropbox = RectangleObject((x0, y0, x1, y1))
    corner = {0: (x0, y0), 90: (x1, y0), 180: (x1, y1), 270: (x0, y1)}[turn]
    return wide, high + band, corner, turn


def _stamps(shapes: Sequence[Shape], laid: Sequence[tuple[float, list[tuple[str, str]]]]) -> bytes:
    """One PDF of the stamps, a page per stamped page, each as wide and high as that page is
    seen (with its band), the stamp drawn in the band at its foot."""
    out = io.BytesIO()
    canvas = Canvas(out, invariant=1)
    for (wide, high, _, _), (size, lines) in zip(shapes, laid, strict=True):
        canvas.setPageSize((wide, high))
        _draw(canvas, wide, size, lines)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def _draw(canvas: Canvas, wide: float, size: float, lines: list[tuple[str, str]]) -> None:
    band = _band(size, lines)
    # the band was outside the page's box: white, so nothing the page clipped shows through
    canvas.setFillColor(colors.white)
    canvas.rect(0, 0, wide, band, stroke=0, fill=1)
    canvas.setStrokeColor(colors.HexColor("#888888"))
    canvas.setLineWidth(max(size / 16, 0.4))
    canvas.line(size, band - size * 0.3, wide - size, band - size * 0.3)
    canvas.setFillColor(INK)
    canvas.setFont(fonts.BODY, size)
    y = band - size * (PAD + 0.95)
    for left, right in lines:
        canvas.drawString(2 * size, y, cover_text(left))
        if right:
            canvas.drawRightString(wide - 2 * size, y, cover_text(right))
        y -= size * LEADING
