"""The packet: one PDF per dispute holding what the issuer's reviewer will see, in order.

The generated PDF (the letter and the data sheet) comes first, then every matched document,
in the order the letter first names them, then the ones it does not name, by file name: a
PDF's own pages, an image placed on an A4 page under its file name; then, at the very end,
the sources of the letter's statements (for the merchant's records, out of the reviewer's
reading path). Each document is an exhibit, labelled A, B, C… in that order
(evidence/exhibits.py), and every page of the packet is stamped in a band added under it,
"Exhibit A — proof of delivery — page 4 of 7" (evidence/stamps.py). That order is
known before any page is numbered (the letter's wording, not its page numbers, decides it),
so the front is rendered once the documents' page counts are known. The front is
given each document's first page in the packet: the letter cites each document by its
exhibit label, and the data sheet's list of exhibits gives each first page. The packet must
fit the dispute's limit profile (evidence/limits.py): images larger than the profile allows are
downscaled; when the packet is still too big, every image is recompressed step by step
(JPEG quality 80, then 60 at 2000 px, then 40 at 1200 px, as Gumroad does). A packet that still
does not fit is never truncated: it comes back with the one line saying why, and is not sent.

Every PDF it writes is inert (evidence/inert_pdf.py): a document's scripts, /Launch and other
actions, embedded files and XFA forms are removed, its pages kept.

Deterministic: the same inputs give the same bytes (reportlab's invariant mode, Pillow's JPEG
encoder, a fixed document id), so a rerun makes no new version.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from PIL import Image, ImageOps
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, ByteStringObject, NameObject
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from dispute_evidence.cardnumbers import cover_text
from dispute_evidence.documents.kinds import kind_of
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.evidence import fonts
from dispute_evidence.evidence.exhibits import (
    Exhibit,
    exhibit_order,
    exhibits_for,
    stamp_aside,
    stamp_text,
)
from dispute_evidence.evidence.inert_pdf import make_inert, strip_metadata
from dispute_evidence.evidence.limits import Item, LimitProfile, over_api_limit, over_limit
from dispute_evidence.evidence.plain_image import plain_jpeg
from dispute_evidence.evidence.stamps import Mark, stamp_pages
from dispute_evidence.exits import EXIT_NEEDS_YOU
from dispute_evidence.filetypes import CLIENT_MAX_FILE_BYTES

# (longest side in pixels or None for the profile's own, JPEG quality or None to keep as is)
IMAGE_STEPS: tuple[tuple[int | None, int | None], ...] = (
    (None, None),
    (None, 80),
    (2000, 60),
    (1200, 40),
)
# a packet made another way: a new PACKET_VERSION (evidence/pdf_layouts.py), part of its input hash
MAX_DECODE_PIXELS = 60_000_000  # a larger image is refused, not decoded (a decompression bomb)
FRONT_PAGES_GUESS = 2  # the letter and data sheet's usual length: a right guess costs one render
FRONT_STAMP = "Response to the dispute — page {page} of {total}"
BACK_STAMP = "For the merchant's records: sources — page {page} of {total}"
IMAGE_MIMES = frozenset({"image/png", "image/jpeg"})


class PacketError(DisputeEvidenceError):
    """A document that cannot be placed in the packet (an unreadable PDF or image)."""

    exit_code = EXIT_NEEDS_YOU  # that dispute's packet is left for a person; the run goes on


@dataclass(frozen=True)
class Document:
    name: str
    mime: str
    content: bytes
    kind: str = ""  # documents.kinds.*: what its exhibit stamp says it is ("": from its name)


@dataclass
class Packet:
    body: bytes
    pages: int
    starts: dict[str, int]  # each document's first page in the packet
    recompressed: list[str] = field(default_factory=list)  # images made smaller to fit
    over: str | None = None  # the one line when it does not fit its profile (then: not sent)
    items: list[Item] = field(default_factory=list)  # the front, then each document placed
    exhibits: dict[str, Exhibit] = field(default_factory=dict)  # {file name: its exhibit}
    front_pages: int = 0  # the generated PDF's pages (the letter and the data sheet)


def count_pages(body: bytes) -> int:
    return len(PdfReader(io.BytesIO(body)).pages)


fonts.register()


def packet_order(docs: Sequence[Document], cited: Sequence[str]) -> list[Document]:
    """`docs` in the order the letter first names them (`cited`), then the others by name:
    the exhibits' order (evidence/exhibits.py), so a label is the same in letter and stamp."""
    at = {name: i for i, name in enumerate(exhibit_order([d.name for d in docs], cited))}
    return sorted(docs, key=lambda d: at[d.name])


def build_packet(
    front: Callable[[dict[str, int]], bytes],
    docs: Sequence[Document],
    profile: LimitProfile,
    *,
    cited: Sequence[str] = (),
    lenient: bool = False,
    api_max_bytes: int | None = CLIENT_MAX_FILE_BYTES,
    back: bytes | None = None,
    stamped: bool = True,
) -> Packet:
    """The packet: `front(first pages)` (the generated PDF), then `docs` in the order the letter
    names them (`cited`: the letter's documents, as it first names them), then the others by
    name, then `back` (the sources, for the merchant's records); with `stamped`, every page
    says what it is in a band under it ("Exhibit A — proof of delivery — page 4 of 7").

    Raises PacketError for a document that cannot be placed; `lenient` (a packet shown for
    review while the files go on their own) puts a page saying so in its place instead.
    `api_max_bytes`: what the API takes in one file, checked with the profile (None: the packet
    is never uploaded)."""
    docs = packet_order(docs, cited)
    made: dict[tuple[tuple[str, int], ...], bytes] = {}

    def front_once(starts: dict[str, int]) -> bytes:  # the same numbers at every step
        key = tuple(sorted(starts.items()))
        if key not in made:
            made[key] = front(starts)
        return made[key]

    one_file = min(profile.max_total_bytes, profile.max_file_bytes)
    fits = replace(profile, max_total_bytes=one_file, max_file_bytes=one_file, max_files=10**6)
    packet = None
    images = any(d.mime in IMAGE_MIMES for d in docs)
    for side, quality in IMAGE_STEPS if images else IMAGE_STEPS[:1]:
        limit = min(side or profile.max_image_side, profile.max_image_side)
        parts = [_placed(d, limit, quality, lenient) for d in docs]
        packet, items = _assemble(front_once, docs, parts, back, stamped)
        packet.recompressed = [d.name for d, p in zip(docs, parts, strict=True) if p[2]]
        packet.over = over_limit(fits, items) or _over_api(len(packet.body), items, api_max_bytes)
        packet.items = items
        if packet.over is None or packet.pages > fits.max_pages:
            break  # it fits; or it has too many pages, which smaller images never change
    assert packet is not None
    return packet


def _over_api(size: int, items: list[Item], most: int | None) -> str | None:
    return None if most is None else over_api_limit(size, items, most)


def _assemble(
    front: Callable[[dict[str, int]], bytes],
    docs: Sequence[Document],
    parts: list[tuple[bytes, int, bool]],
    back: bytes | None,
    stamped: bool,
) -> tuple[Packet, list[Item]]:
    counts = [p[1] for p in parts]
    front_pages = FRONT_PAGES_GUESS  # the letter and the data sheet: one render
    for _ in range(3):  # numbered as if it had front_pages pages, until it does
        starts = _starts(docs, counts, front_pages)
        body = front(starts)
        first = PdfReader(io.BytesIO(body))  # read once: counted, then placed
        if (actual := len(first.pages)) == front_pages:
            break
        front_pages = actual
    writer = PdfWriter()
    writer.append(first)
    for part, _, _ in parts:
        writer.append(PdfReader(io.BytesIO(part)))
    back_size, back_pages = 0, 0
    if back:
        last = PdfReader(io.BytesIO(back))
        back_size, back_pages = len(back), len(last.pages)
        writer.append(last)
    exhibits = exhibits_for(
        [(d.name, d.kind or kind_of(d.name), n) for d, n in zip(docs, counts, strict=True)],
        [d.name for d in docs],
        starts,
    )
    if stamped:
        stamp_pages(
            writer, _marks(front_pages, [exhibits[d.name] for d in docs], counts, len(writer.pages))
        )
    merged = _write(writer)
    items = [Item("the letter and data sheet", len(body) + back_size, front_pages + back_pages)]
    items += [Item(d.name, len(p[0]), p[1]) for d, p in zip(docs, parts, strict=True)]
    packet = Packet(merged, len(writer.pages), starts, exhibits=exhibits, front_pages=front_pages)
    return packet, items


def _marks(front: int, exhibits: list[Exhibit], counts: list[int], total: int) -> list[Mark]:
    """Each page's stamp: the front's, each exhibit's (and its own page when it has several),
    then the sources' at the back."""
    marks: list[Mark] = [(FRONT_STAMP.format(page=n, total=total), "") for n in range(1, front + 1)]
    for exhibit, count in zip(exhibits, counts, strict=True):
        first = len(marks) + 1
        marks += [
            (stamp_text(exhibit, first + own - 1, total), stamp_aside(exhibit, own, count))
            for own in range(1, count + 1)
        ]
    marks += [
        (BACK_STAMP.format(page=n, total=total), "") for n in range(len(marks) + 1, total + 1)
    ]
    return marks


def _starts(docs: Sequence[Document], counts: list[int], front_pages: int) -> dict[str, int]:
    out, page = {}, front_pages + 1
    for d, n in zip(docs, counts, strict=True):
        out[d.name] = page
        page += n
    return out


def _write(writer: PdfWriter) -> bytes:
    """The merged bytes, with a document id made from the content (no random id), and no
    active content and no metadata (evidence/inert_pdf.py), whatever a document brought.

    Written once with a placeholder id, which is then replaced in place by the digest of those
    bytes (the same length: every offset stays right)."""
    make_inert(writer)
    strip_metadata(writer)
    writer._ID = ArrayObject([ByteStringObject(NO_ID), ByteStringObject(NO_ID)])
    out = io.BytesIO()
    writer.write(out)
    body = out.getvalue()
    placeholder = f"/ID [ <{NO_ID.hex()}> <{NO_ID.hex()}> ]".encode()
    at = body.rfind(placeholder)
    if (
        at < 0
    ):  # never seen: pypdf wrote the trailer otherwise; the id is then made by writing again
        writer._ID = ArrayObject([ByteStringObject(_digest(body))] * 2)
        again = io.BytesIO()
        writer.write(again)
        return again.getvalue()
    digest = _digest(body).hex().encode()
    made = f"/ID [ <{digest.decode()}> <{digest.decode()}> ]".encode()
    return body[:at] + made + body[at + len(placeholder) :]


def _digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()[:16]


NO_ID = bytes(16)  # the placeholder id the digest replaces


def _placed(
    doc: Document, side: int, quality: int | None, lenient: bool
) -> tuple[bytes, int, bool]:
    try:
        return _part(doc, side, quality)
    except PacketError as exc:
        if not lenient:
            raise
        return (
            _note_page(
                doc.name, f"Not shown here: {exc}. It goes to the API as its own file, as it is."
            ),
            1,
            False,
        )


def _note_page(title: str, text: str) -> bytes:
    buf = io.BytesIO()
    canvas = Canvas(buf, pagesize=A4, invariant=1)
    canvas.setFont(fonts.BODY, 10)
    canvas.drawString(15 * mm, A4[1] - 15 * mm, cover_text(title[:120]))
    canvas.setFont(fonts.BODY, 9)
    canvas.drawString(15 * mm, A4[1] - 22 * mm, cover_text(text[:150]))
    canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _part(doc: Document, side: int, quality: int | None) -> tuple[bytes, int, bool]:
    """(one PDF of the document's pages, its page count, whether an image was re-encoded)."""
    if doc.mime in IMAGE_MIMES:
        return _image_page(doc, side, quality)
    # its notes on a damaged file ("EOF marker not found") are ours to report, not the terminal's
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(doc.content))
        if reader.is_encrypted:
            raise PacketError(f"{doc.name} is password-protected: no reviewer could open it")
        if not reader.pages:  # damaged page tree: placed, it would add nothing to the packet
            raise PacketError(f"{doc.name} has no page that can be shown")
        writer = PdfWriter()
        writer.append(reader)
        for page in writer.pages:  # an annotation or form may point back at the source file
            page[NameObject("/Annots")] = ArrayObject()
        make_inert(writer)  # scripts, launches, attachments: never placed before a reviewer
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue(), len(reader.pages), False
    except PacketError:
        raise
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise PacketError(f"{doc.name} cannot be read as a PDF ({type(exc).__name__})") from exc


def _image_page(doc: Document, side: int, quality: int | None) -> tuple[bytes, int, bool]:
    image, data, changed = _fitted_image(doc, side, quality)
    buf = io.BytesIO()
    canvas = Canvas(buf, pagesize=A4, invariant=1)
    width, height = A4
    margin = 15 * mm
    canvas.setFont(fonts.BODY, 9)
    canvas.drawString(margin, height - margin, cover_text(doc.name[:120]))
    box_w, box_h = width - 2 * margin, height - 2 * margin - 8 * mm
    scale = min(box_w / image.width, box_h / image.height, 1.0 if image.width > 1200 else 2.0)
    w, h = image.width * scale, image.height * scale
    top = height - margin - 6 * mm
    canvas.drawImage(ImageReader(io.BytesIO(data)), margin, top - h, w, h, mask="auto")
    canvas.showPage()
    canvas.save()
    return buf.getvalue(), 1, changed


def _fitted_image(doc: Document, side: int, quality: int | None) -> tuple[Image.Image, bytes, bool]:
    """(the image, the bytes to embed, whether they were re-encoded): within `side` pixels,
    at JPEG `quality` (None: as it is when it already fits)."""
    try:
        source = Image.open(io.BytesIO(doc.content))
        if source.width * source.height > MAX_DECODE_PIXELS:
            raise PacketError(
                f"{doc.name} is {source.width}x{source.height} pixels, too large to place"
            )
        if source.format == "PNG":
            _check_png(doc)
        largest, turned = max(source.size), source.getexif().get(0x0112, 1) not in (None, 1)
        if source.format == "JPEG":
            source.draft("RGB", (side, side))  # decode at a reduced size when that is enough
        image: Image.Image = ImageOps.exif_transpose(source)
        image.load()
    except PacketError:
        raise
    except Exception as exc:  # Pillow raises many kinds on a damaged image
        raise PacketError(f"{doc.name} cannot be read as an image ({type(exc).__name__})") from exc
    if quality is None and largest <= side and not turned:
        # embedded byte for byte: a JPEG without its metadata (no EXIF carried on)
        plain = plain_jpeg(doc.content) if source.format == "JPEG" else doc.content
        if plain is not None:
            return image, plain, False
    if image.mode not in ("RGB", "L"):
        flat = Image.new("RGB", image.size, "white")
        flat.paste(image.convert("RGBA"), mask=image.convert("RGBA").getchannel("A"))
        image = flat
    if max(image.size) > side:
        image.thumbnail((side, side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality or 85, optimize=True)
    return image, out.getvalue(), True


def _check_png(doc: Document) -> None:
    """Refuse a PNG whose chunks fail their checksums: Pillow decodes a damaged body (bytes
    flipped or zeroed in its image data) as noise without a word, and a reviewer would see
    that noise as the merchant's evidence."""
    try:
        Image.open(io.BytesIO(doc.content)).verify()
    except Exception as exc:  # Pillow says SyntaxError("broken PNG file"), or OSError, ...
        raise PacketError(f"{doc.name} is a damaged PNG (its checksums do not match)") from exc
