"""What the card networks accept for one dispute's evidence, and the check against it.

A processor forwards a dispute's evidence to the network, which refuses (or charges for) a
packet over its limits after the one-shot submission, when nothing can be fixed. So what would
go out (the packet, or the files and the generated PDF together) is checked before anything is
sent; over a limit, the dispute is held with one line naming the limit, the total and the
largest documents. It is never truncated, never sent over.

A packet is also one file to the API, which takes at most CLIENT_MAX_FILE_BYTES (10 MB) a file
whatever the network allows (Mastercard: 14.5 MB): `over_api_limit` checks that when the packet
is built, so nothing of the dispute goes before a refusal that could only come at the upload.

Default figures (docs/packet.md says where each comes from; `[evidence.limit_profiles]`
overrides them): Stripe's as `default` and for Visa (5 MB a file, about 4.5 MB in all, fewer
than 50 pages a file), Mastercard's 19 pages and 14.5 MB at 300 DPI, Amex's 5 files of 5 MB,
25 MB and 20 pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.payments import disputed_charge
from dispute_evidence.filetypes import CLIENT_MAX_FILE_BYTES
from dispute_evidence.networks import limits_profile
from dispute_evidence.policies import (
    LIMIT_FIGURES,
    PROFILE_NAMES,
    PROFILES,
    LimitProfile,
    PacketPolicy,
    Upload,
    profiles,
)
from dispute_evidence.states import LIMIT_HELD

__all__ = [
    "LIMIT_FIGURES",
    "LIMIT_HELD",
    "PROFILES",
    "PROFILE_NAMES",
    "Item",
    "LimitProfile",
    "PacketPolicy",
    "Upload",
    "card_brand",
    "over_api_limit",
    "over_limit",
    "profile_for",
    "profiles",
]

MB = 1_000_000


def card_brand(facts: DisputeFacts) -> str:
    """The disputed card's brand as the payments export gives it ('' when none does): the
    disputed charge's (evidence/payments.py), not the order's first attempt, which may have
    been another card that was declined."""
    amount = None if facts.claim.amount is None else float(facts.claim.amount)
    charge = disputed_charge(facts.charges, amount, facts.claim.currency)
    return charge.card_brand.strip() if charge else ""


def profile_for(facts: DisputeFacts, choice: str, known: dict[str, LimitProfile]) -> LimitProfile:
    """`choice` ('auto': the card brand's network's, networks.py, else 'default')."""
    if choice != "auto":
        return known[choice]
    return known.get(limits_profile(card_brand(facts)), known["default"])


@dataclass(frozen=True)
class Item:
    """One thing that would go out: a document, the generated PDF, or the packet."""

    name: str
    size: int
    pages: int


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB"


def over_limit(profile: LimitProfile, items: list[Item]) -> str | None:
    """None when `items` fit `profile`; else the one line: limit, total, largest documents."""
    pages, total = sum(i.pages for i in items), sum(i.size for i in items)
    biggest = max(items, key=lambda i: i.size, default=None)
    found: list[str] = []
    if pages > profile.max_pages:
        found.append(f"{pages} pages against at most {profile.max_pages}")
    if total > profile.max_total_bytes:
        found.append(f"{_mb(total)} against at most {_mb(profile.max_total_bytes)} in all")
    if biggest is not None and biggest.size > profile.max_file_bytes:
        found.append(
            f"{biggest.name} is {_mb(biggest.size)}, over {_mb(profile.max_file_bytes)} a file"
        )
    if len(items) > profile.max_files:
        found.append(f"{len(items)} files against at most {profile.max_files}")
    if not found:
        return None
    largest = sorted(items, key=lambda i: (-i.size, -i.pages, i.name))[:3]
    shown = ", ".join(f"{i.name} ({i.pages} p., {_mb(i.size)})" for i in largest)
    return (
        f"{LIMIT_HELD}{profile.name} limit: {'; '.join(found)} "
        f"({pages} pages, {_mb(total)} in all); largest: {shown}; nothing was sent over the limit"
    )


def over_api_limit(size: int, items: list[Item], most: int = CLIENT_MAX_FILE_BYTES) -> str | None:
    """None when a packet of `size` bytes made of `items` (the generated PDF first, then the
    analyst's documents) is one file the API takes; else the one line: its size, the largest
    documents and which to leave out for it to fit."""
    if size <= most:
        return None
    pages = sum(i.pages for i in items)
    docs = sorted(items[1:], key=lambda i: (-i.size, -i.pages, i.name))
    shown = ", ".join(f"{i.name} ({i.pages} p., {_mb(i.size)})" for i in docs[:3])
    return (
        f"{LIMIT_HELD}API's limit: the packet would be {_mb(size)} ({pages} pages), over the "
        f"{_mb(most)} the API takes in one file; largest: {shown}; {_leave_out(size, docs, most)}"
        ' (or set [evidence] upload = "files" to send each document on its own); nothing was '
        "sent over the limit"
    )


def _leave_out(size: int, docs: list[Item], most: int) -> str:
    """Which of the largest documents to leave out for the packet to fit."""
    dropped: list[str] = []
    for doc in docs:
        if size <= most:
            break
        dropped.append(doc.name)
        size -= doc.size
    if size > most or not dropped:  # the generated PDF alone is too big: nothing to drop
        return "compress or split the largest"
    return f"without {' and '.join(dropped)} it would fit"
