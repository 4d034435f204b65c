"""What an evidence document says: the facts read from its text (PDF text, or OCR of an image
or a scanned PDF), each with the page it stands on, so the letter can quote it and cite it.

This module holds the shared vocabulary only (pure data). Reading a file into `DocumentFacts`
(bounded in time and memory, in a subprocess) lives beside it in `documents/reading.py`; the
case model (`evidence/case_record.py`) and the letter consume these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

# How a document's text was obtained, or why it was not.
ReadHow = Literal[
    "text",  # a PDF's own text layer
    "ocr",  # Tesseract, on an image or an image-only PDF page
    "not_read",  # nothing tried (reading turned off, or a kind we do not read)
    "no_ocr",  # an image or scan, but Tesseract is not installed: sent as a file, not read
    "too_big",  # over the page/byte bound for reading: sent as a file, not read
    "timeout",  # reading exceeded its time or memory budget: sent as a file, not read
    "encrypted",  # password-protected: no reviewer can open it either (a file problem)
    "unreadable",  # damaged or not what its type says
]


OPENING = "opening"  # extra: a document of no kind in its first words (the letter quotes them)


@dataclass(frozen=True)
class Quote:
    """A passage of a document, verbatim (whitespace collapsed), and its 1-based page."""

    text: str
    page: int


@dataclass(frozen=True)
class Delivery:
    """A proof of delivery's own statement: when, to whom (signer), where; or that the parcel
    was not delivered (failed, refused, returned to sender: `delivered` False, its words quoted)."""

    on: date | None
    signed_by: str | None
    address: str | None
    quote: Quote  # the sentence/line that says it
    delivered: bool = True


@dataclass(frozen=True)
class Message:
    """One dated message of a customer communication (the customer's own words, quoted)."""

    on: date | None
    author: str | None  # as the document names them ("From: ..."), never guessed
    quote: Quote


@dataclass(frozen=True)
class DocumentFacts:
    """Everything read from one evidence document. Empty tuples/None mean "not found in it"."""

    name: str  # file name as attached (the label's last part)
    sha256: str
    kind: str  # documents.kinds.* (proof_of_delivery, policy, communication, receipt, ...)
    read: ReadHow
    pages: int | None = None  # page count when known (PDF), 1 for an image
    # Identifiers the text names (used to match a file to its dispute by content).
    order_numbers: tuple[str, ...] = ()
    dispute_ids: tuple[str, ...] = ()
    tracking_numbers: tuple[str, ...] = ()
    # Facts by kind.
    delivery: Delivery | None = None  # proof of delivery
    policy_clause: Quote | None = None  # policy: its clause for no reason in particular
    # policy: per topic (refund, cancellation, defect, shipping: documents/policytext.py) the
    # clause that answers it; the letter quotes the one its dispute's reason needs
    policy_clauses: dict[str, Quote] = field(default_factory=dict)
    messages: tuple[Message, ...] = ()  # communication
    amount: tuple[float, str] | None = None  # receipt/invoice: (total, ISO currency or "")
    # the date the document says it took effect ("Last updated: 1 October 2025"): which
    # version of a store policy was in force at an order's date (engine/prepare/storedocs_intake.py)
    effective: date | None = None
    note: str = ""  # one plain line when read != "text"/"ocr" (why it was not read)
    # pages whose text shows a full card number (cardnumbers.py): never uploaded; every fact
    # above was read from the text with the numbers and security codes covered
    card_pages: tuple[int, ...] = ()
    # the metadata fields (a PDF's Title, Subject, Keywords, XMP; an image's EXIF, PNG text)
    # that hold a full card number: the file is held as one whose pages show one
    card_metadata: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)  # room for more, never required
