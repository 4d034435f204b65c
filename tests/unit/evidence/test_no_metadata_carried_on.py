"""Our own packet carries no metadata on (issue 45, item 6): a photo placed as it is loses its
EXIF (the camera, a place, a description a person typed: a card number), and a merchant's PDF
its Title, Subject, Keywords and XMP. The picture itself is placed byte for byte."""

from __future__ import annotations

import io

from PIL import Image
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject, StreamObject

from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, build_packet
from support.docfixtures import text_pdf

PAN = "4539148803436467"


def _photo() -> bytes:
    image = Image.new("RGB", (60, 40), (200, 150, 90))
    exif = image.getexif()
    exif[0x010F], exif[0x010E] = "Canon", f"holiday snapshot, card {PAN}"
    buf = io.BytesIO()
    image.save(buf, "JPEG", exif=exif, comment=b"a comment")
    return buf.getvalue()


def _receipt(tmp_path) -> bytes:
    path = text_pdf(tmp_path / "r.pdf", [["Receipt for order #5000"]])
    writer = PdfWriter(clone_from=PdfReader(path))
    writer.add_metadata({"/Title": f"Receipt {PAN}", "/Keywords": "visa card"})
    xmp = f"<x:xmpmeta><dc:title>{PAN}</dc:title></x:xmpmeta>".encode()
    stream = StreamObject()
    stream.set_data(xmp)
    writer.root_object[NameObject("/Metadata")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_the_packet_carries_no_exif_and_no_pdf_metadata_on(tmp_path):
    photo, receipt = _photo(), _receipt(tmp_path)
    assert b"Exif\x00\x00" in photo and PAN.encode() in photo and PAN.encode() in receipt
    docs = [
        Document("photo.jpg", "image/jpeg", photo, "photo"),
        Document("r.pdf", "application/pdf", receipt, "receipt"),
    ]
    front = text_pdf(tmp_path / "front.pdf", [["Letter"]]).read_bytes()
    body = build_packet(lambda _starts: front, docs, PROFILES["visa"]).body
    assert b"Exif\x00\x00" not in body and b"holiday snapshot" not in body
    assert b"a comment" not in body and PAN.encode() not in body
    reader = PdfReader(io.BytesIO(body))
    assert "/Metadata" not in reader.root_object
    assert PAN not in repr(dict(reader.metadata or {}))


def test_a_plain_jpeg_is_the_same_picture():
    from dispute_evidence.evidence.plain_image import plain_jpeg

    photo = _photo()
    plain = plain_jpeg(photo)
    assert plain is not None and b"Exif" not in plain and b"a comment" not in plain
    assert Image.open(io.BytesIO(plain)).tobytes() == Image.open(io.BytesIO(photo)).tobytes()
    assert plain_jpeg(b"not a jpeg") is None
