"""Render one example packet (what the issuer's reviewer sees in `[evidence] upload = "packet"`
mode) into docs/letters/packet.pdf, with PNGs of its pages: `python docs/letters/make_packet.py`
(needs pdftoppm for the PNGs). The documents are made here: a 2-page receipt, a delivery
proof, and a photo of the parcel; the facts are invented, as in make_letters.py."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageDraw
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, build_packet
from dispute_evidence.evidence.summary_pdf import summary_pdf

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from make_letters import DELIVERED, SOURCES, _payload  # noqa: E402


def _pdf(lines_per_page: list[list[str]]) -> bytes:
    buf = io.BytesIO()
    canvas = Canvas(buf, pagesize=A4, invariant=1)
    for lines in lines_per_page:
        for k, line in enumerate(lines):
            canvas.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 14 if k == 0 else 11)
            canvas.drawString(72, 760 - 22 * k, line)
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _photo() -> bytes:
    image = Image.new("RGB", (1600, 1200), (214, 196, 160))
    draw = ImageDraw.Draw(image)
    draw.rectangle((350, 300, 1250, 900), fill=(160, 120, 70), outline=(90, 60, 30), width=12)
    draw.rectangle((700, 300, 900, 900), fill=(200, 190, 170))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


DOCUMENTS = [
    Document("1041 delivery-proof.pdf", "application/pdf", _pdf([[
        "UPS Proof of Delivery", "Tracking number: 1Z999AA10123456784",
        "Delivered: 2026-10-06 16:40, front door", "Signed by: A. SMITH"]])),
    Document("1041 receipt.pdf", "application/pdf", _pdf([
        ["Acme Outfitters - Receipt #1041", "2 x Linen shirt - Blue / M   99.00 USD",
         "1 x Leather belt - Brown       25.00 USD", "Shipping                       5.00 USD"],
        ["Acme Outfitters - Receipt #1041 (page 2)", "Total paid: 129.00 USD (Visa ...4242)",
         "Returns accepted within 30 days of delivery."]])),
    Document("1041 parcel-photo.jpg", "image/jpeg", _photo()),
]  # fmt: skip


def main() -> None:
    payload = _payload("product_not_received", "13.1", shipments=[DELIVERED])
    names = [d.name for d in DOCUMENTS]
    packet = build_packet(
        lambda pages: summary_pdf("dp_example_packet", payload, names, SOURCES, pages=pages),
        DOCUMENTS,
        PROFILES["visa"],
    )
    assert packet.over is None, packet.over
    pdf = HERE / "packet.pdf"
    pdf.write_bytes(packet.body)
    for old in HERE.glob("packet-*.png"):
        old.unlink()
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "50", str(pdf), str(HERE / "packet")], check=True)


if __name__ == "__main__":
    main()
