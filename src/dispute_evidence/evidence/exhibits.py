"""Exhibits: each document of a dispute's response labelled A, B, C… so the reviewer can find it.

The order is the packet's (evidence/packet.py): the documents the letter names, where it first
names them, then the others by file name. The letter cites "(Exhibit A, page 2)", the data
sheet lists each exhibit, and in a packet every page of an exhibit is stamped "Exhibit A —
proof of delivery — page 4 of 7" (evidence/stamps.py). One function decides the order, so
the letter's labels are the stamps' labels in both upload modes.

Pure: names, kinds and page numbers in; labels and words out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from string import ascii_uppercase

from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import OPENING, DocumentFacts
from dispute_evidence.documents.kinds import LABELS, OTHER

PICTURES = (".jpg", ".jpeg", ".png")
CAPTION_CHARS = 80  # of a document's first words, in its caption  # what the packet places as a picture on a page


@dataclass(frozen=True)
class Exhibit:
    label: str  # "A", "B", … "Z", "AA", …
    name: str  # the document's file name (the analyst's; shown on the reviewer's pages only
    # where the document goes as a file of its own, so the reviewer can match it)
    kind: str  # documents.kinds.*
    pages: int | None = None  # its page count, when known
    start: int | None = None  # its first page in the packet (None: not in a packet)

    @property
    def words(self) -> str:
        """What the exhibit is, in words ("proof of delivery"; a picture of no kind: "photo")."""
        if self.kind in LABELS and self.kind != OTHER:
            return LABELS[self.kind]
        return "photo" if self.name.lower().endswith(PICTURES) else LABELS[OTHER]

    def cite(self, page: int | None) -> str:
        """ "Exhibit A, page 2"; "Exhibit A" alone for a one-page exhibit or no page."""
        many = self.pages is None or self.pages > 1
        return f"Exhibit {self.label}, page {page}" if page and many else f"Exhibit {self.label}"


def caption(exhibit: Exhibit, doc: DocumentFacts | None, show_date: bool = True) -> str:
    """What the exhibit shows, from what was read from it (issue 44, item 11): "proof of
    delivery: delivered 2026-10-06 to 12 Elm Street, signed by A. Smith"; its kind alone when
    nothing was read; `show_date` False: the delivery date is withheld (the case's timeline puts
    it out of order), so it is not stated here either."""
    if doc is None:
        return exhibit.words
    shows = ""
    if doc.kind in (K.PROOF_OF_DELIVERY, K.SIGNATURE) and doc.delivery is not None:
        d = doc.delivery
        if d.delivered:
            shows = "delivered" + (f" {d.on.isoformat()}" if d.on and show_date else "")
            shows += (f" to {d.address}" if d.address else "") + (
                f", signed by {d.signed_by}" if d.signed_by else ""
            )
        else:
            shows = "not delivered: " + d.quote.text
    elif doc.messages:
        dated = sorted(m.on.isoformat() for m in doc.messages if m.on)
        n = len(doc.messages)
        shows = f"{n} message{'s' * (n != 1)}" + (
            f", {dated[0]}" + (f" to {dated[-1]}" if dated[-1] != dated[0] else "") if dated else ""
        )
    elif doc.effective is not None and (doc.policy_clauses or doc.policy_clause):
        shows = f"as in force from {doc.effective.isoformat()}"
    elif doc.amount is not None:
        shows = f"{doc.amount[0]:,.2f} {doc.amount[1]}".strip()
    elif said := doc.extra.get(OPENING, ""):  # a document of no kind: what it says first
        short = said if len(said) <= CAPTION_CHARS else said[:CAPTION_CHARS].rsplit(" ", 1)[0]
        return f"document: “{short}{'' if short == said else ' …'}”"
    if doc.tracking_numbers and doc.kind in (K.PROOF_OF_DELIVERY, K.SIGNATURE, K.SHIPPING):
        shows = f"tracking number {doc.tracking_numbers[0]}" + (f", {shows}" if shows else "")
    return f"{exhibit.words}: {shows}" if shows else exhibit.words


def label(index: int) -> str:
    """The label of the exhibit at 0-based `index`: A … Z, then AA, AB, … (as spreadsheets)."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = ascii_uppercase[rest] + out
    return out


def exhibit_order(names: Sequence[str], cited: Sequence[str]) -> list[str]:
    """`names` in the order the letter first names them (`cited`), then the others by name."""
    place = {name: i for i, name in reversed(list(enumerate(cited)))}  # where first named
    return sorted(names, key=lambda n: (place.get(n, len(place)), n))


def exhibits_for(
    documents: Sequence[tuple[str, str, int | None]],
    cited: Sequence[str],
    starts: Mapping[str, int] | None = None,
) -> dict[str, Exhibit]:
    """{file name: its exhibit} for `documents` ((name, kind, page count)), labelled in the
    packet's order; `starts`: each one's first page in the packet, when there is one."""
    known = {name: (kind, pages) for name, kind, pages in reversed(documents)}
    order = list(dict.fromkeys(exhibit_order([name for name, _, _ in documents], cited)))
    starts = starts or {}
    return {
        name: Exhibit(label(i), name, known[name][0], known[name][1], starts.get(name))
        for i, name in enumerate(order)
    }


def stamp_text(exhibit: Exhibit, packet_page: int, total: int) -> str:
    """The stamp on a page of an exhibit: "Exhibit A — proof of delivery — page 4 of 7"."""
    return f"Exhibit {exhibit.label} — {exhibit.words} — page {packet_page} of {total}"


def stamp_aside(exhibit: Exhibit, own_page: int, own_pages: int) -> str:
    """The exhibit's own page, beside the stamp, where the letter's "page 2" needs it."""
    return f"Exhibit {exhibit.label}, page {own_page} of {own_pages}" if own_pages > 1 else ""
