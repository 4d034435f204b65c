"""What store/ holds back (issue 45, item 7): store/ is for the store's own documents (a policy,
terms, a checkout screenshot), each sent to every dispute whose reason needs it. A document of
one order or one customer (a proof of delivery, a customer's message, an invoice, anything whose
name or text names a dispute or an order of the disputes) would go to every other customer's
dispute from there: it is held, with a line saying what it is and where it goes instead. And
the lines about a kept version: dated after today, or a row of the state that cannot be read.
Pure: a name, what was read and the disputes in, a line out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.files import ContentIndex, name_tokens

# what a file of each order's kind is, and the name it goes under in the inbox instead
ORDERS_KINDS: dict[str, tuple[str, str]] = {
    K.PROOF_OF_DELIVERY: ("an order's proof of delivery", "1041 proof of delivery.pdf"),
    K.SIGNATURE: ("an order's delivery signature", "1041 signature.pdf"),
    K.COMMUNICATION: ("a customer's message", "1041 customer email.pdf"),
    K.RECEIPT: ("an order's receipt or invoice", "1041 invoice.pdf"),
    K.SHIPPING: ("an order's shipping label or tracking", "1041 tracking.pdf"),
}
WHERE = (
    "store/ is for the store's own policies, terms and checkout screenshots, which go to every "
    "dispute; move it out of store/ into the inbox, named for its order or dispute (e.g. '{e}'), "
    "and it goes to that dispute only"
)


@dataclass(frozen=True)
class Owners:
    """The disputes a store file's name or text may name (dispute ids and order numbers)."""

    by_token: dict[str, set[str]]
    index: ContentIndex

    @classmethod
    def of(cls, disputes: Mapping[str, str]) -> Owners:
        by_token: dict[str, set[str]] = {}
        for pid, order in disputes.items():
            by_token.setdefault(pid, set()).add(pid)
            if order:
                by_token.setdefault(order, set()).add(pid)
                by_token.setdefault(order.lstrip("#"), set()).add(pid)
        return cls(by_token, ContentIndex.of(dict(disputes), None))

    def named(self, stem: str, facts: DocumentFacts | None) -> list[str]:
        """What of the disputes the file names ("order 1041", "dispute dp_…"), name first."""
        said = [f"{t} (its name)" for t in sorted(name_tokens(stem)) if t in self.by_token]
        if facts is not None:
            said += sorted({w for ws in self.index.owners(facts).values() for w in ws})
        return said


def not_the_stores(kind: str, named: list[str]) -> str:
    """Why a file in store/ is held ('' when it is the store's own): its kind is one order's,
    or it names a dispute or an order of the disputes."""
    if kind in ORDERS_KINDS:
        what, example = ORDERS_KINDS[kind]
        return (
            f"held, sent to no dispute: it reads as {what}, not the store's own document; "
            + WHERE.format(e=example)
        )
    if named:
        return (
            f"held, sent to no dispute: it names {', '.join(named[:3])}, so it is one "
            "order's document, not the store's own; " + WHERE.format(e="1041 invoice.pdf")
        )
    return ""


def dated_later(effective: date) -> str:
    """The line of a policy whose own date is after today."""
    return (
        f"sent to no dispute yet: it says it takes effect on {effective.isoformat()}, after "
        "today, and no order placed before that date was under it; it goes to disputes of orders "
        "placed from that date. If that date is a typo, correct it in the document and drop it "
        "again under the same name"
    )


def damaged_row(exc: Exception) -> str:
    """The line of a kept version the state cannot read back."""
    why = " ".join(str(exc).split())[:160]
    return (
        f"a version of it kept in the state store cannot be read ({why}) and goes to no dispute; "
        "drop the document again into store/ under a new name to keep it afresh, or restore the "
        "state from a backup"
    )
