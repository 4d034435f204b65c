"""What an evidence file is, from its name and (for a PDF) its first pages' text.

A reviewer needs particular documents per dispute reason: proof of delivery, a signature, a
receipt, the refund or cancellation policy, the conversation with the customer. The analyst's
file name says which, most of the time ("1043 proof of delivery.pdf"); where it does not
("scan_0007.pdf"), its text may (a PDF's first pages, or OCR of a scan or photo). The words recognised are listed here
and in docs/completeness.md; a file that says none of them is "other": attached and sent, but
it satisfies no particular requirement except a generic explanation document.

Pure: a name and some text in, a kind out. Reading the text (PDF text layer, OCR of images
and scans, bounded in a worker process) is documents/reading.py.
"""

from __future__ import annotations

import re
from pathlib import Path

PROOF_OF_DELIVERY = "proof_of_delivery"
SIGNATURE = "signature"
RECEIPT = "receipt"
POLICY = "policy"
COMMUNICATION = "communication"
SHIPPING = "shipping_document"
OTHER = "other"

# a proof of delivery whose text names only another parcel's tracking number: held, never sent
# (documents/files.py), and said so where the dispute's delivery is (evidence/delivery.py)
ANOTHER_PARCEL = "a proof of delivery for another parcel"

LABELS = {
    PROOF_OF_DELIVERY: "proof of delivery",
    SIGNATURE: "signature",
    RECEIPT: "receipt or invoice",
    POLICY: "refund or cancellation policy",
    COMMUNICATION: "customer communication",
    SHIPPING: "shipping label or tracking",
    OTHER: "other document",
}

# In a file name (words joined by anything that is not a letter): first match wins, so the
# more specific kinds come first ("delivery confirmation label" is proof of delivery).
NAME_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (SIGNATURE, ("signature", "signed", "sig")),
    (
        PROOF_OF_DELIVERY,
        (
            "proof of delivery",
            "pod",
            "epod",
            "delivery confirmation",
            "delivered",
            "delivery proof",
            "proof delivery",
        ),
    ),
    (
        POLICY,
        (
            "policy",
            "terms",
            "tos",
            "terms of service",
            "refund policy",
            "return policy",
            "cancellation",
            "checkout",
        ),
    ),  # a checkout page: where the terms were accepted
    (
        COMMUNICATION,
        (
            "email",
            "e mail",
            "mail",
            "gmail",
            "chat",
            "message",
            "messages",
            "correspondence",
            "conversation",
            "support ticket",
            "ticket",
        ),
    ),
    (RECEIPT, ("receipt", "invoice", "inv", "bill")),
    (SHIPPING, ("label", "tracking", "shipping", "waybill", "shipment", "airbill")),
)

# In a PDF's text: phrases a document of that kind says of itself.
# A proof of delivery usually says who signed too: it is a proof of delivery first.
TEXT_PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        PROOF_OF_DELIVERY,
        (
            "proof of delivery",
            "delivery confirmation",
            "was delivered",
            "delivered on",
            "delivered to",
            "delivered at",
            "date of delivery",
            "signed for by",
            "shipment delivered",
            "item delivered",
        ),
    ),
    (SIGNATURE, ("signed by", "signature of recipient", "recipient signature")),
    (
        POLICY,
        (
            "refund policy",
            "return policy",
            "returns policy",
            "cancellation policy",
            "terms of service",
            "terms and conditions",
        ),
    ),
    (COMMUNICATION, ("subject:", "wrote:", "chat transcript", "support ticket")),
    (RECEIPT, ("receipt", "invoice", "order total", "grand total")),
    (SHIPPING, ("tracking number", "shipping label", "waybill")),
)


# A message in the customer's own voice (e-mail headers or a greeting, and "I"/"my"): it is
# communication whatever its name says ("…_delivery_confirmation.pdf" holding the customer's
# "the carrier says delivered … I want my money back" proves no delivery).
_MESSAGE = re.compile(
    r"^\s{0,3}(?:from|subject)\s{0,2}:|\bwrote:|^\s{0,3}(?:dear|hi|hello)\b|chat transcript"
    r"|^[^<>\n]{1,80}<[^<>\s@]{1,64}@[^<>\s]{1,190}>",  # a mail client's sender line
    re.I | re.M,
)
_FIRST_PERSON = re.compile(r"\bI(?:'m|'ve|'d)?\s(?=[a-z])|\b(?:my|me)\b")


def customer_message(text: str) -> bool:
    """Whether the text is a message written in the customer's own voice."""
    return bool(_MESSAGE.search(text) and _FIRST_PERSON.search(text))


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z]+", text.lower())) + " "


def kind_of(name: str, text: str = "") -> str:
    """The file's kind: from its name's words, else from its text's phrases, else OTHER; a
    customer's message named as a proof of delivery or signature is communication."""
    words = _words(Path(name).stem)
    named = next(
        (
            kind
            for kind, names in NAME_WORDS
            if any(f" {w} " in words or f" {w}s " in words for w in names)
        ),
        None,
    )
    low = " ".join(text.lower().split())
    if named == COMMUNICATION and _says(low, PROOF_OF_DELIVERY) and not customer_message(text):
        return PROOF_OF_DELIVERY  # "Royal Mail 1043.pdf": a carrier's proof, not a message
    if named not in (None, PROOF_OF_DELIVERY, SIGNATURE):
        return named
    if customer_message(text):
        return COMMUNICATION
    if named is not None:
        return named
    return next((kind for kind, _ in TEXT_PHRASES if _says(low, kind)), OTHER)


def _says(low: str, kind: str) -> bool:
    """Whether the text (lowercased, spaces collapsed) says a phrase of the kind."""
    return any(p in low for k, phrases in TEXT_PHRASES if k == kind for p in phrases)
