"""A corpus of proofs of delivery in the layouts carriers print (issue 37 item 3): UPS, FedEx,
USPS, DHL, Royal Mail, Canada Post, Australia Post, Delhivery, Blue Dart, India Post and a
courier whose table's text comes out as a block of labels then a block of values. Each is made
here (nothing binary checked in) as a text PDF, a two-column table PDF, or an image (PNG, JPG
or an image-only PDF) read by OCR; each with what a reader must find in it.

`read_rates` reads them all and gives the share read right per field (date, signer, address,
tracking number): the test asserts on it, and `python -m bench evidence` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from support.docfixtures import scan_pdf, scan_png, table_pdf, text_pdf

FIELDS = ("date", "signer", "address", "tracking")


@dataclass(frozen=True)
class Layout:
    name: str  # the file's name (a carrier's, never an order's: read by its text)
    make: Callable[[Path], Path]
    on: date
    signer: str
    street: str  # the address's first line, as the export would give it
    tracking: str
    dayfirst: bool | None = None  # the merchant's locale ([ingest] locale)

    @property
    def mime(self) -> str:
        return {".png": "image/png", ".jpg": "image/jpeg"}.get(
            Path(self.name).suffix, "application/pdf"
        )


def _text(lines: list[str]) -> Callable[[Path], Path]:
    return lambda p: text_pdf(p, [lines])


def _table(title: list[str], rows: list[tuple[str, str]]) -> Callable[[Path], Path]:
    return lambda p: table_pdf(p, title, rows)


def _photo(
    lines: list[str], rows: list[tuple[str, str]] | None = None, dpi: int = 200
) -> Callable[[Path], Path]:
    return lambda p: scan_png(p, lines, dpi=dpi, table=rows)


LAYOUTS = (
    Layout("ups pod.pdf", _text([
        "UPS", "Proof of Delivery", "Dear Customer,",
        "This notice serves as proof of delivery for the shipment listed below.",
        "Tracking Number: 1Z999AA10123456784", "Service: UPS Ground",
        "Delivered On: 12/10/2025 2:15 P.M.", "Delivered To: 12 Elm Street, BOSTON, MA, US",
        "Received By: SMITH", "Left At: Front Door",
    ]), date(2025, 12, 10), "SMITH", "12 Elm Street", "1Z999AA10123456784"),
    Layout("fedex pod.pdf", _table(["FedEx", "Proof of Delivery"], [
        ("Tracking number", "794612345678"), ("Status", "Delivered"),
        ("Delivery date", "Dec 10, 2025 14:32"), ("Signed for by", "J.MORALES"),
        ("Delivery address", "40 Oak Avenue, Denver, CO 80202 US"), ("Service type", "FedEx Ground"),
    ]), date(2025, 12, 10), "J.MORALES", "40 Oak Avenue", "794612345678"),
    Layout("usps pod.pdf", _text([
        "USPS Tracking - Proof of Delivery", "Tracking Number: 9400 1000 0000 0000 0000 00",
        "Your item was delivered to an individual at the address at 2:15 pm on "
        "December 10, 2025 in BROOKLYN, NY 11201.",
        "Signature of Recipient: MARIA LOPEZ",
        "Address of Recipient: 7 Pine Road, Brooklyn, NY 11201",
    ]), date(2025, 12, 10), "MARIA LOPEZ", "7 Pine Road", "9400100000000000000000"),
    Layout("dhl pod.png", _photo(["DHL Express", "Proof of Delivery"], [
        ("Waybill", "1234567890"), ("Status", "Delivered"),
        ("Delivery date", "10.12.2025 14:32 CET"), ("Signed for by", "K. Mueller"),
        ("Delivery address", "Hauptstrasse 5, 10115 Berlin"),
    ]), date(2025, 12, 10), "K. Mueller", "Hauptstrasse 5", "1234567890"),
    Layout("royal mail pod.pdf", _text([
        "Royal Mail Signed For", "Tracking reference: AB123456789GB",
        "Delivered on 10/12/2025 at 11:05", "Signed for by: PATEL",
        "Delivered to: 3 High Street, Leeds LS1 4AB",
    ]), date(2025, 12, 10), "PATEL", "3 High Street", "AB123456789GB", dayfirst=True),
    Layout("canada post pod.jpg", _photo(["Canada Post", "Delivery confirmation"], [
        ("Tracking number", "7023 2106 4001 5839"), ("Item delivered", "2025-12-10 10:14 ET"),
        ("Signatory name", "L. TREMBLAY"),
        ("Delivery address", "88 King Street West, Toronto ON M5H 1J9"),
    ]), date(2025, 12, 10), "L. TREMBLAY", "88 King Street West", "7023210640015839"),
    Layout("australia post pod.pdf", _text([
        "Australia Post", "Proof of delivery", "Consignment number: 33XYZ500012345",
        "Delivered 10 Dec 2025 2:14pm AEDT", "Signed by: T. NGUYEN",
        "Delivered to: 14 George Street, Sydney NSW 2000",
    ]), date(2025, 12, 10), "T. NGUYEN", "14 George Street", "33XYZ500012345", dayfirst=True),
    Layout("delhivery pod.pdf", _text([  # issue 37's: each value on the line below its label
        "Delhivery", "Proof of Delivery", "AWB / Waybill No.", "1490811234567", "Received by",
        "R. Thomas (Security)", "Delivered on", "10-Dec-2025 14:32 IST", "Delivery Address",
        "221 MG Road, Indiranagar, Bengaluru 560038", "Status", "Delivered",
    ]), date(2025, 12, 10), "R. Thomas (Security)", "221 MG Road", "1490811234567", dayfirst=True),
    Layout("delhivery table.pdf", _table(["Delhivery", "Proof of Delivery"], [
        ("AWB / Waybill No.", "1490811234568"), ("Received by", "S. Iyer"),
        ("Delivered on", "11-Dec-2025 09:05 IST"),
        ("Delivery Address", "18 Residency Road, Bengaluru 560025"),
    ]), date(2025, 12, 11), "S. Iyer", "18 Residency Road", "1490811234568", dayfirst=True),
    Layout("blue dart pod.jpg", _photo(["Blue Dart Express", "Proof of Delivery"], [
        ("AWB No", "50412345678"), ("Status", "DELIVERED"),
        ("Delivery Date & Time", "10/12/2025 14:32 IST"), ("Receiver Name", "ANIL KUMAR"),
        ("Consignee Address", "12 Park Street, Kolkata 700016"),
    ]), date(2025, 12, 10), "ANIL KUMAR", "12 Park Street", "50412345678", dayfirst=True),
    Layout("india post pod.png", _photo([
        "India Post - Speed Post", "Article Number: EE123456789IN",
        "Delivered on 10 Dec 2025 12:30", "Receiver name: MEENA RAO",
        "Delivery address: 5 MG Road, Pune 411001",
    ]), date(2025, 12, 10), "MEENA RAO", "5 MG Road", "EE123456789IN", dayfirst=True),
    Layout("courier pod.pdf", _text([  # a table whose text comes out column by column
        "Proof of Delivery", "Shipment No.", "Delivery date", "Received by", "Delivery address",
        "SHP40012345", "Dec 10, 2025 16:02", "B. Okafor", "9 Marina Road, Lagos 101241",
    ]), date(2025, 12, 10), "B. Okafor", "9 Marina Road", "SHP40012345"),
    Layout("fedex photo.jpg", _photo(["FedEx", "Proof of Delivery"], [  # a coarser photo
        ("Tracking number", "794612345690"), ("Status", "Delivered"),
        ("Delivery date", "Dec 11, 2025 09:41"), ("Signed for by", "D.WONG"),
        ("Delivery address", "301 Market Street, San Francisco, CA 94105 US"),
    ], dpi=150), date(2025, 12, 11), "D.WONG", "301 Market Street", "794612345690"),
    Layout("royal mail photo.jpg", _photo([
        "Royal Mail Tracked 24", "Tracking reference: AB987654321GB",
        "Delivered on 11/12/2025 at 09:12", "Signed for by: O'BRIEN",
        "Delivered to: 21 Station Road, Bristol BS1 6QF",
    ], dpi=150), date(2025, 12, 11), "O'BRIEN", "21 Station Road", "AB987654321GB", dayfirst=True),
    Layout("ups scan.pdf", lambda p: scan_pdf(p, [
        "UPS Proof of Delivery", "Tracking Number: 1Z999AA10123456791",
        "Delivered On: Dec 10, 2025 11:20 A.M.", "Signed for by: HARRIS",
        "Delivered To: 55 Lake Drive, Chicago, IL 60601",
    ]), date(2025, 12, 10), "HARRIS", "55 Lake Drive", "1Z999AA10123456791"),
)  # fmt: skip


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def right(layout: Layout, facts: DocumentFacts) -> dict[str, bool]:
    """Which fields the reader got right for this layout."""
    d = facts.delivery
    return {
        "date": d is not None and d.on == layout.on,
        "signer": d is not None and _plain(d.signed_by or "") == _plain(layout.signer),
        "address": d is not None and _plain(layout.street) in _plain(d.address or ""),
        "tracking": _plain(layout.tracking) in {_plain(t) for t in facts.tracking_numbers},
    }


def read_corpus(folder: Path) -> list[tuple[Layout, DocumentFacts]]:
    """Every layout made in `folder` and read (OCR for the images), each with its locale."""
    out = []
    for locale in (None, True):
        layouts = [lay for lay in LAYOUTS if lay.dayfirst is locale]
        items = [
            ToRead(lay.make(folder / lay.name), lay.name, lay.mime, lay.name) for lay in layouts
        ]
        read = read_documents(items, ReadLimits(dayfirst=locale, seconds=60))
        out += [(lay, read[lay.name]) for lay in layouts]
    return out


def read_rates(folder: Path) -> tuple[dict[str, float], list[str]]:
    """({field: share of layouts read right}, a line per layout and field read wrong)."""
    results = read_corpus(folder)
    wrong = []
    counts = dict.fromkeys(FIELDS, 0)
    for layout, facts in results:
        for name, ok in right(layout, facts).items():
            counts[name] += ok
            if not ok:
                wrong.append(f"{layout.name}: {name} read as {_what(name, facts)!r}")
    return {k: v / len(results) for k, v in counts.items()}, wrong


def _what(field: str, facts: DocumentFacts) -> object:
    d = facts.delivery
    if field == "tracking":
        return facts.tracking_numbers
    if d is None:
        return f"no delivery ({facts.kind}, {facts.read})"
    return {"date": d.on, "signer": d.signed_by, "address": d.address}[field]
