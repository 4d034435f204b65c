"""A corpus of proofs of delivery in the layouts carriers print (issue 37 item 3): UPS, FedEx,
USPS, DHL, Royal Mail, Canada Post, Australia Post, Delhivery, Blue Dart, India Post and a
courier whose table's text comes out as a block of labels then a block of values. Each is made
here (nothing binary checked in) as a text PDF, a two-column table PDF, or an image (PNG, JPG
or an image-only PDF) read by OCR; each with what a reader must find in it.

Issue 45 item 1 adds the column-ordered ePODs (`COLUMNS`): Blue Dart, DTDC, Aramex, Royal Mail
and Delhivery tables written column by column (a PDF's text is N labels, then N values, with
labels of fields we do not read among them: "Pickup Date", "Relation", "Origin"), each as a
text PDF and as an image read by OCR.

`read_rates` reads them all and gives the share read right per field (date, signer, address,
tracking number): the e2e test asserts on it, and `python -m bench evidence` prints it. A field
read as a label ("Relation" as the signer) is counted wrong and listed apart: never allowed.
Shared by the tests and the bench (issue 47: the bench imports no tests).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from support.docfixtures import columns_pdf, scan_pdf, scan_png, table_pdf, text_pdf

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


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _text(lines: list[str]) -> Callable[[Path], Path]:
    return lambda p: text_pdf(p, [lines])


def _table(title: list[str], rows: list[tuple[str, str]]) -> Callable[[Path], Path]:
    return lambda p: table_pdf(p, title, rows)


def _columns(title: list[str], rows: list[tuple[str, str]]) -> Callable[[Path], Path]:
    return lambda p: columns_pdf(p, title, rows)


def _columns_photo(title: list[str], rows: list[tuple[str, str]]) -> Callable[[Path], Path]:
    return lambda p: scan_png(p, title, table=rows, columns=True)


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


# Issue 45 item 1: column-ordered ePODs, their labels as one column and their values as another
# (the text: every label, then every value), labels of other fields among them.
BLUE_DART = (
    ["Blue Dart Express Ltd", "ePOD - Electronic Proof of Delivery"],
    [
        ("Waybill No", "77312345690"),
        ("Pickup Date", "05/12/2025"),
        ("Origin", "MUMBAI"),
        ("Destination", "BENGALURU"),
        ("Product", "Dart Apex"),
        ("Pieces", "1"),
        ("Status", "DELIVERED"),
        ("Delivered Date", "09/12/2025"),
        ("Delivered Time", "14:32"),
        ("Receiver Name", "Rohith T"),
        ("Relation", "SELF"),
        ("Delivery Address", "12 CMH Road, Indiranagar, Bengaluru 560038"),
    ],
)
DTDC = (
    ["DTDC Express Limited", "Proof of Delivery"],
    [
        ("Consignment No.", "D70212345"),
        ("Booking Date", "02-Dec-2025"),
        ("Origin", "NEW DELHI"),
        ("Destination", "JAIPUR"),
        ("Service Type", "Lite Express"),
        ("Weight", "0.75 Kg"),
        ("Delivery Status", "Delivered"),
        ("Delivery Date", "06-Dec-2025 11:05"),
        ("Receiver", "Sunita Sharma"),
        ("Relationship", "Mother"),
        ("Address", "14 MI Road, Jaipur 302001"),
        ("Remarks", "Delivered to consignee"),
    ],
)
ARAMEX = (
    ["Aramex", "Proof of Delivery"],
    [
        ("Airway Bill No.", "44875523391"),
        ("Shipper Reference", "INV-20931"),
        ("Origin", "Dubai"),
        ("Destination", "Sharjah"),
        ("Pickup Date", "01/12/2025"),
        ("Delivery Date", "04/12/2025"),
        ("Delivery Time", "10:20"),
        ("Received By", "Omar Haddad"),
        ("Delivery Location", "Villa 9, Al Majaz 2, Sharjah"),
        ("Pieces", "1"),
        ("Weight", "0.5 KG"),
        ("Status", "Delivered"),
    ],
)
ROYAL_MAIL = (
    ["Royal Mail", "Special Delivery Guaranteed - Proof of Delivery"],
    [
        ("Tracking number", "TT123456785GB"),
        ("Service", "Special Delivery by 1pm"),
        ("Posted on", "08/12/2025"),
        ("Delivered on", "10/12/2025"),
        ("Time", "11:05"),
        ("Signed for by", "J. Patel"),
        ("Delivery address", "3 High Street, Leeds"),
        ("Postcode", "LS1 4AB"),
        ("Status", "Delivered"),
    ],
)
DELHIVERY = (
    ["Delhivery", "Proof of Delivery"],
    [
        ("Waybill", "1490811239876"),
        ("Order ID", "ORD-77812"),
        ("Pickup Date", "03 Dec 2025"),
        ("Status", "Delivered"),
        ("Delivered On", "07 Dec 2025 16:40"),
        ("Received By", "Kavya Menon"),
        ("Relation", "Sister"),
        ("Delivery Address", "45 Church Street, Bengaluru 560001"),
        ("City", "Bengaluru"),
        ("Pincode", "560001"),
    ],
)
COLUMNS = tuple(
    Layout(name, make(*table), on, signer, street, tracking, dayfirst=True)
    for stem, table, on, signer, street, tracking in (
        (
            "bluedart epod 77312345690",
            BLUE_DART,
            date(2025, 12, 9),
            "Rohith T",
            "12 CMH Road",
            "77312345690",
        ),
        ("dtdc pod", DTDC, date(2025, 12, 6), "Sunita Sharma", "14 MI Road", "D70212345"),
        ("aramex pod", ARAMEX, date(2025, 12, 4), "Omar Haddad", "Villa 9", "44875523391"),
        (
            "royal mail sd pod",
            ROYAL_MAIL,
            date(2025, 12, 10),
            "J. Patel",
            "3 High Street",
            "TT123456785GB",
        ),
        (
            "delhivery epod",
            DELHIVERY,
            date(2025, 12, 7),
            "Kavya Menon",
            "45 Church Street",
            "1490811239876",
        ),
    )
    for name, make in ((f"{stem}.pdf", _columns), (f"{stem} photo.png", _columns_photo))
)
LAYOUTS = LAYOUTS + COLUMNS
# every label of the corpus's tables, plain: a field read as one is a label read as a value
LABELS = frozenset(
    _plain(label)
    for _, rows in (BLUE_DART, DTDC, ARAMEX, ROYAL_MAIL, DELHIVERY)
    for label, _ in rows
)


def right(layout: Layout, facts: DocumentFacts) -> dict[str, bool]:
    """Which fields the reader got right for this layout."""
    d = facts.delivery
    return {
        "date": d is not None and d.on == layout.on,
        "signer": d is not None and _plain(d.signed_by or "") == _plain(layout.signer),
        "address": d is not None and _plain(layout.street) in _plain(d.address or ""),
        "tracking": _plain(layout.tracking) in {_plain(t) for t in facts.tracking_numbers},
    }


def read_corpus(
    folder: Path, chosen: tuple[Layout, ...] | None = None
) -> list[tuple[Layout, DocumentFacts]]:
    """Every layout (or those `chosen`) made in `folder` and read (OCR for the images), each
    with its locale."""
    out = []
    for locale in (None, True):
        layouts = [lay for lay in chosen or LAYOUTS if lay.dayfirst is locale]
        if not layouts:
            continue
        items = [
            ToRead(lay.make(folder / lay.name), lay.name, lay.mime, lay.name) for lay in layouts
        ]
        read = read_documents(items, ReadLimits(dayfirst=locale, seconds=60))
        out += [(lay, read[lay.name]) for lay in layouts]
    return out


def read_rates(folder: Path, layouts: tuple[Layout, ...] | None = None) -> Rates:
    """What reading the corpus (or `layouts`) in `folder` gets right (`summed`)."""
    return summed(read_corpus(folder, layouts))


def summed(results: list[tuple[Layout, DocumentFacts]]) -> Rates:
    """({field: share of layouts read right}, a line per layout and field read wrong, a line
    per field read as a label: "Relation" as the signer is wrong, never merely missing)."""
    wrong, labels = [], []
    counts = dict.fromkeys(FIELDS, 0)
    for layout, facts in results:
        for name, ok in right(layout, facts).items():
            counts[name] += ok
            if ok:
                continue
            got = _what(name, facts)
            wrong.append(f"{layout.name}: {name} read as {got!r}")
            if any(_plain(str(v)) in LABELS for v in _values(got)):
                labels.append(f"{layout.name}: {name} read as the label {got!r}")
    return Rates({k: v / len(results) for k, v in counts.items()}, wrong, labels, len(results))


@dataclass(frozen=True)
class Rates:
    """What `read_rates` measured: the share read right per field, what was read wrong, which
    of those were labels read as values, and how many layouts were read."""

    rates: dict[str, float]
    wrong: list[str]
    labels: list[str]
    layouts: int

    def lines(self) -> list[str]:
        """The figures as printed (the test's output, the bench's)."""
        out = [f"{name:<9} {self.rates[name]:6.1%}" for name in FIELDS]
        out.append(f"labels read as values: {len(self.labels)}")
        return out + [f"wrong: {line}" for line in self.wrong]


def _values(got: object) -> tuple[object, ...]:
    return tuple(got) if isinstance(got, tuple) else (got,)


def _what(field: str, facts: DocumentFacts) -> object:
    d = facts.delivery
    if field == "tracking":
        return facts.tracking_numbers
    if d is None:
        return f"no delivery ({facts.kind}, {facts.read})"
    return {"date": d.on, "signer": d.signed_by, "address": d.address}[field]
