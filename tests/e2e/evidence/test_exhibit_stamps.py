"""Exhibits and page stamps (issue 36, finding 10): each document of the packet is an exhibit,
labelled A, B, C… in the order the letter first names it, and each page of the packet says
what it is in a band added under it ("Exhibit A — proof of delivery — page 4 of 7"), laid
over the page (never rasterised), on pages of any size and rotation, covering nothing."""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from pypdf import PdfReader, PdfWriter
from pypdf.generic import RectangleObject
from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfgen.canvas import Canvas

from dispute_evidence.evidence.exhibits import exhibits_for, label
from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, build_packet
from support.docfixtures import pdf_of


def _front(_: dict[str, int]) -> bytes:
    """A stand-in for the letter and data sheet: two A4 pages."""
    return pdf_of(2, "FRONT")


def _texts(body: bytes) -> list[str]:
    return [" ".join((p.extract_text() or "").split()) for p in PdfReader(io.BytesIO(body)).pages]


def _drawing(size: tuple[float, float], words: str, rotate: int = 0) -> bytes:
    """A one-page PDF drawn to its very edges (a frame 4 pt in, text at the foot), its content
    stream ending with a transform it never restores, turned by `rotate` degrees."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=size, invariant=1)
    c.setLineWidth(3)
    c.rect(4, 4, size[0] - 8, size[1] - 8)
    c.setFont("Helvetica", 18)
    c.drawString(30, size[1] - 40, f"{words} TOP")
    c.drawString(30, 12, f"{words} FOOT")
    c.translate(200, 200)  # left in force: the stamp must not be moved by it
    c.showPage()
    c.save()
    if not rotate:
        return buf.getvalue()
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(buf.getvalue())))
    writer.pages[0].rotate(rotate)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _render(pdf: bytes, page: int) -> Image.Image:
    """Page `page` (1-based) as the reviewer's portal shows it: an image, at 72 dpi (1 pt a
    pixel), turned by its /Rotate."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.pdf"
        src.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", "72", "-f", str(page), "-l", str(page), "-png",
                        "-singlefile", str(src), str(Path(tmp) / "out")], check=True)  # fmt: skip
        return Image.open(Path(tmp) / "out.png").convert("L").copy()


def test_labels_run_a_to_z_then_aa():
    assert [label(i) for i in (0, 1, 25, 26, 27, 51, 52)] == ["A", "B", "Z", "AA", "AB", "AZ", "BA"]


def test_exhibits_are_labelled_in_the_order_the_letter_first_names_them_then_by_name():
    docs = [("a_receipt.pdf", "receipt", 2), ("b_photo.jpg", "other", 1),
            ("z_pod.pdf", "proof_of_delivery", 1), ("c_policy.pdf", "policy", 3)]  # fmt: skip
    got = exhibits_for(docs, cited=["z_pod.pdf", "c_policy.pdf", "z_pod.pdf"])
    assert {n: x.label for n, x in got.items()} == {
        "z_pod.pdf": "A", "c_policy.pdf": "B", "a_receipt.pdf": "C", "b_photo.jpg": "D"
    }  # fmt: skip
    assert got["z_pod.pdf"].words == "proof of delivery"
    assert got["c_policy.pdf"].cite(2) == "Exhibit B, page 2"
    assert got["z_pod.pdf"].cite(1) == "Exhibit A"  # a one-page exhibit needs no page


def test_every_page_of_the_packet_is_stamped_with_its_exhibit_kind_and_packet_page():
    docs = [
        Document("receipt.pdf", "application/pdf", pdf_of(2, "RECEIPT"), "receipt"),
        Document("pod.pdf", "application/pdf", pdf_of(1, "DELIVERY"), "proof_of_delivery"),
        Document("terms.pdf", "application/pdf", pdf_of(2, "TERMS"), "policy"),
    ]
    packet = build_packet(_front, docs, PROFILES["visa"], cited=["pod.pdf", "terms.pdf"])
    pages = _texts(packet.body)
    assert packet.pages == len(pages) == 7
    assert {n: (x.label, x.start) for n, x in packet.exhibits.items()} == {
        "pod.pdf": ("A", 3), "terms.pdf": ("B", 4), "receipt.pdf": ("C", 6)
    }  # fmt: skip
    assert "Response to the dispute — page 1 of 7" in pages[0]
    assert "Response to the dispute — page 2 of 7" in pages[1]
    assert pages[2].startswith("DELIVERY page 1")  # the page's own content, as it was
    assert "Exhibit A — proof of delivery — page 3 of 7" in pages[2]
    assert "Exhibit B — refund or cancellation policy — page 4 of 7" in pages[3]
    assert "Exhibit B, page 1 of 2" in pages[3] and "Exhibit B, page 2 of 2" in pages[4]
    assert pages[5].startswith("RECEIPT page 1")
    assert "Exhibit C — receipt or invoice — page 6 of 7" in pages[5]
    assert "Exhibit C — receipt or invoice — page 7 of 7" in pages[6]
    again = build_packet(_front, docs, PROFILES["visa"], cited=["pod.pdf", "terms.pdf"])
    assert again.body == packet.body  # deterministic: a rerun makes no new version


@pytest.mark.e2e  # renders pages with pdftoppm (a process)
@pytest.mark.parametrize(
    ("size", "rotate"),
    [
        (A4, 0),
        (landscape(A4), 0),
        (A4, 90),
        (A4, 180),
        (A4, 270),
        (landscape(A4), 90),
        ((200, 300), 0),
    ],  # fmt: skip
)
def test_the_stamp_is_added_under_the_page_as_seen_and_covers_none_of_it(size, rotate):
    """Rendered as a portal shows it, the stamped page is the original page, pixel for pixel,
    with a band under it (on the side seen as the bottom, whatever its rotation) holding the
    stamp: the frame drawn to the page's edges and the text at its foot are all still seen."""
    original = _drawing(size, "PAGE", rotate)
    packet = build_packet(_front, [Document("p.pdf", "application/pdf", original, "receipt")],
                          PROFILES["visa"])  # fmt: skip
    before, after = _render(original, 1), _render(packet.body, 3)
    assert after.width == before.width and after.height > before.height + 20
    top = after.crop((0, 0, before.width, before.height - 1))
    diff = ImageChops.difference(top, before.crop((0, 0, before.width, before.height - 1)))
    assert diff.getbbox() is None, (size, rotate, diff.getbbox())  # nothing of it covered
    band = after.crop((0, before.height + 1, after.width, after.height))
    assert band.getextrema()[0] < 128  # ink in the band: the stamp
    text = _texts(packet.body)[2]
    assert "PAGE TOP" in text and "PAGE FOOT" in text
    stamp = "Exhibit A — receipt or invoice — page 3 of 3"
    if size[0] < 300:  # a narrow page: the stamp is broken at its dashes, not shrunk away
        assert "Exhibit A — receipt or invoice page 3 of 3" in text
    else:
        assert stamp in text
    page = PdfReader(io.BytesIO(packet.body)).pages[2]
    placed = [x.get_object()["/Subtype"] for x in page["/Resources"]["/XObject"].values()]
    assert placed == ["/Form"]  # the stamp, drawn: never rasterised, no image over the page
    own = PdfReader(io.BytesIO(original)).pages[0]["/Contents"].get_object()._data
    kept = [c.get_object()._data for c in page.get_object().raw_get("/Contents").get_object()]
    assert own in kept  # the page's own content stream, byte for byte (still compressed)


@pytest.mark.e2e  # renders pages with pdftoppm (a process)
def test_a_crop_box_is_kept_and_what_it_hid_stays_hidden():
    """A page showing only part of its media box: the band is added under what is shown, and
    the media box becomes the shown area, so every viewer (crop box or media box) shows the
    same page, and nothing the crop hid (a black box under it) shows in the band."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=A4, invariant=1)
    c.drawString(100, 600, "SHOWN")
    c.rect(380, 20, 160, 28, stroke=0, fill=1)  # under the crop box's foot (y 50): hidden
    c.showPage()
    c.save()
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(buf.getvalue())))
    writer.pages[0].cropbox = RectangleObject((50, 50, 545, 700))
    buf = io.BytesIO()
    writer.write(buf)
    packet = build_packet(_front, [Document("c.pdf", "application/pdf", buf.getvalue())],
                          PROFILES["visa"])  # fmt: skip
    page = PdfReader(io.BytesIO(packet.body)).pages[2]
    shown, media = page.cropbox, page.mediabox
    assert (float(shown.left), float(shown.right), float(shown.top)) == (50, 545, 700)
    assert float(shown.bottom) < 20 and list(shown) == list(media)
    image = _render(packet.body, 3)
    assert image.height > 650 + 20
    hidden = image.crop((330 + 2, 651, 490 - 2, image.height))  # where the black box lies
    assert hidden.getextrema()[0] > 100, hidden.getextrema()  # white band: no black shows
    assert "Exhibit A — other document — page 3 of 3" in _texts(packet.body)[2]


def test_an_image_page_is_stamped_too():
    png = io.BytesIO()
    Image.new("RGB", (800, 500), (90, 140, 200)).save(png, "PNG")
    docs = [Document("parcel.png", "image/png", png.getvalue(), "shipping_document")]
    pages = _texts(build_packet(_front, docs, PROFILES["visa"]).body)
    assert "Exhibit A — shipping label or tracking — page 3 of 3" in pages[2]
