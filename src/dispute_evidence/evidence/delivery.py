"""Delivery, as the carrier's rows and the proofs of delivery say it: one fact per source,
never more than its words show (a status that says returned, attempted or out for delivery is
no delivery; a proof whose text says not delivered is none either), and whether a proof names
this dispute's parcel or another's. Pure: no I/O. The case (evidence/case_record.py) picks the one
delivery fact every page states."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence.dispute_facts import ShipmentRow
from dispute_evidence.evidence.places import place_parts

DeliveryState = Literal["delivered", "not_delivered", "unknown"]
_NEGATIVE = re.compile(
    r"\b(not|un|non)[ -]?deliver|fail|return|attempt|exception|lost|refused|undeliverable"
    r"|out for delivery|cancel",
    re.I,
)
READ = ("text", "ocr")  # a document whose text we read: its facts (or their absence) count


@dataclass(frozen=True)
class DeliveryFact:
    """Whether the goods were delivered, when, where, who signed, and what says so."""

    state: DeliveryState
    on: str = ""  # YYYY-MM-DD, "" when not stated
    where: str = ""
    signed_by: str = ""
    source: str = ""  # "shipments" (a carrier row) or "files" (a document)
    document: str = ""  # the document's file name (source "files")
    page: int | None = None
    status: str = ""  # the carrier's own words, lowercased ("returned to sender")
    tracking_number: str = ""
    quote: str = ""  # the document's own sentence

    @property
    def delivered(self) -> bool:
        return self.state == "delivered"

    @property
    def cite(self) -> str:
        """Where it stands: "proof of delivery.pdf, page 1" or "the shipments sheet"."""
        if self.source != "files":
            return "the shipments sheet" if self.source else ""
        return f"{self.document}, page {self.page}" if self.page else self.document

    @property
    def words(self) -> str:
        """The one wording of it, for the data sheet, the page and disputes.xlsx (a case that
        withholds its date says `CaseFacts.delivery_words`)."""
        return self.worded()

    def worded(self, withheld: str = "") -> str:
        """Its words; `withheld`: why its date is not stated (the date is then left out)."""
        if self.delivered:
            if withheld and self.on:
                text = f"delivered, date withheld ({withheld})"
            else:
                text = "delivered" + (f" {self.on}" if self.on else "")
            if self.signed_by:
                text += f", signed by {self.signed_by}"
            if self.source == "files":
                text += f" (per {self.cite})"
            elif self.status and not self.on:
                text += f" (carrier status: {self.status})"
            return text
        said = f" (carrier status: {self.status})" if self.status else ""
        if self.source == "files":
            said = f" (per {self.cite})"
        return ("not delivered" if self.state == "not_delivered" else "not confirmed") + said


UNKNOWN = DeliveryFact("unknown")


@dataclass(frozen=True)
class Shipment:
    tracking_number: str
    carrier: str
    shipped_on: str  # YYYY-MM-DD or ""
    delivery: DeliveryFact  # what this carrier row says


def day(value: Any) -> str:
    text = str(value or "").strip()
    return text[:10] if re.match(r"\d{4}-\d{2}-\d{2}", text) else ""


def carrier_delivery(row: ShipmentRow) -> DeliveryFact:
    """What one carrier row says: its status words decide; a date alone means delivered."""
    status = " ".join(row.delivery_status.split()).lower()
    on, track = day(row.delivered_at), row.tracking_number
    if status and _NEGATIVE.search(status):
        return DeliveryFact(
            "not_delivered", status=status, source="shipments", tracking_number=track
        )
    if re.search(r"\bdelivered\b", status) or (on and not status):
        return DeliveryFact(
            "delivered", on, status=status, source="shipments", tracking_number=track
        )
    if status:
        return DeliveryFact("unknown", status=status, source="shipments", tracking_number=track)
    return UNKNOWN


def document_delivery(doc: DocumentFacts) -> DeliveryFact | None:
    """A proof of delivery's own statement; an unread one (a scan, reading off) stands as the
    analyst named it, with nothing quoted; a read one that states no delivery says nothing."""
    if doc.kind not in (K.PROOF_OF_DELIVERY, K.SIGNATURE):
        return None
    if (d := doc.delivery) and not d.delivered:
        return DeliveryFact(
            "not_delivered",
            source="files",
            document=doc.name,
            page=d.quote.page,
            quote=d.quote.text,
        )
    if d:
        return DeliveryFact(
            "delivered",
            d.on.isoformat() if d.on else "",
            d.address or "",
            d.signed_by or "",
            "files",
            doc.name,
            d.quote.page,
            quote=d.quote.text,
        )
    if doc.read in READ:
        return None
    return DeliveryFact("delivered", source="files", document=doc.name)


def shipments_of(rows: Sequence[ShipmentRow]) -> tuple[Shipment, ...]:
    """Each shipment row with what its carrier says of the delivery."""
    return tuple(
        Shipment(s.tracking_number, s.carrier, day(s.shipped_at), carrier_delivery(s)) for s in rows
    )


def one_delivery(
    shipments: Sequence[Shipment], documents: Sequence[DocumentFacts]
) -> tuple[DeliveryFact, DeliveryFact]:
    """(the case's delivery fact, the carrier's): a document's proof wins over the carrier: a
    read proof that dates or signs the delivery is third-party proof, quoted even when our
    shipment record says delivered too (issue 44, item 5)."""
    carrier = [s.delivery for s in shipments]
    said = (
        next((d for d in carrier if d.delivered), None)
        or next((d for d in carrier if d.state == "not_delivered"), None)
        or next((d for d in carrier if d.status), None)
        or UNKNOWN
    )
    stated = [p for doc in documents if (p := document_delivery(doc))]
    proofs = [p for p in stated if p.delivered]
    proof = next((p for p in proofs if p.on or p.signed_by), proofs[0] if proofs else None)
    if proof is None and not said.delivered:  # the document's own "not delivered" is said
        proof = next(iter(stated), None)
    if proof and proof.delivered and (proof.on or proof.signed_by):
        return proof, said
    return (proof if proof and not said.delivered else said), said


def in_part(said: str, delivery: DeliveryFact, shipments: Sequence[Shipment]) -> str:
    """The case's delivery in words when the carrier shows only some of its parcels delivered
    ("delivered in part, 1 of 2 parcels: …; not delivered: 1Z…2 (in transit)"); "" when it is
    not so (one parcel, all delivered, or a document's proof, which names no parcel)."""
    parcels = [s for s in shipments if s.tracking_number]
    open_ = [s for s in parcels if not s.delivery.delivered]
    if not (delivery.delivered and delivery.source != "files" and open_ and len(parcels) > 1):
        return ""
    left = ", ".join(
        f"{s.tracking_number} ({s.delivery.status or 'no delivery recorded'})" for s in open_
    )
    done = f"{delivery.tracking_number} {said}" if delivery.tracking_number else said
    return (
        f"delivered in part, {len(parcels) - len(open_)} of {len(parcels)} parcels: {done}; "
        f"not delivered: {left}"
    )


def with_held_proofs(words: str, files: Sequence[str]) -> str:
    """The Delivery column's words, and each proof of delivery named for the dispute but held
    as another parcel's (documents/files.py: another_parcel): why it confirms nothing."""
    held = "; ".join(f"{f}: {K.ANOTHER_PARCEL}, not sent" for f in files)
    return "; ".join(w for w in (words or ("not confirmed" if held else ""), held) if w)


def _plain_id(value: str) -> str:
    return re.sub(r"[\s\-]", "", value).upper()


def _street(address: str) -> str:
    """An address's first line, normalised, when it has a house number ("" otherwise)."""
    parts = place_parts(address)
    return parts[0] if parts and any(c.isdigit() for c in parts[0]) else ""


def other_parcel(doc: DocumentFacts, tracking: Sequence[str], address: str) -> str:
    """What a proof of delivery names that is not this dispute's shipment ("" when it names
    this one's, or nothing to compare): its tracking numbers, else its street address."""
    if doc.kind not in (K.PROOF_OF_DELIVERY, K.SIGNATURE) or doc.read not in READ:
        return ""
    ours = {_plain_id(t) for t in tracking if t}
    named = [t for t in doc.tracking_numbers if t]
    if named and ours:
        if ours & {_plain_id(t) for t in named}:
            return ""
        return f"tracking number {', '.join(named)} (this dispute's: {', '.join(sorted(ours))})"
    where = doc.delivery.address if doc.delivery else ""
    theirs, mine = _street(where or ""), _street(address)
    if theirs and mine and theirs not in mine and mine not in theirs:
        whole = "".join(place_parts(where or ""))
        if mine not in whole:
            return f"the address {where} (this dispute's: {address})"
    return ""
