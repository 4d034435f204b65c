"""The parts of a case (evidence/case_record.py): an order line, the customer as entered, a dated
event, and a named contradiction with what to do about it. Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    title: str
    quantity: float | None  # None: the export gives none (never stated as 0)
    price: float | None
    currency: str
    price_from: str = ""  # a price the orders export gives none: where it came from


@dataclass(frozen=True)
class Customer:
    """What was entered at checkout (or observed: IP, device), never who the person was."""

    name: str = ""
    email: str = ""
    billing_address: str = ""
    shipping_address: str = ""
    ip: str = ""
    device: str = ""


@dataclass(frozen=True)
class Event:
    on: str  # YYYY-MM-DD
    what: str
    source: str  # a letter source key ("order", "shipments", "files", ...)
    document: str = ""  # the document it stands in (source "files")
    key: bool = False  # never left out of a shortened timeline (the disputed charge, ...)


@dataclass(frozen=True)
class Contradiction:
    """A named inconsistency in the case, with what to do about it."""

    name: str  # "shipped before ordered", "carrier vs document", "order unfulfilled", ...
    fact: str  # the facts, both stated
    todo: str
    accept: bool = False  # the merchant's own data says the cardholder is right: accept
    weakens: bool = True  # the verdict says "weak: ..." (False: stated, the case stands)
    hides: tuple[str, ...] = ()  # dates no page states as fact: "ordered", "shipped", ...
    internal: bool = False  # for the analyst only: no page sent to the reviewer states it

    @property
    def stated(self) -> str:
        """What a page sent to the reviewer says of it: its facts, or, when it withholds dates,
        which dates and why (never their values)."""
        if not self.hides:
            return f"{self.name}: {self.fact}"
        dates = " and ".join(_DATE_WORDS[h] for h in self.hides)
        return f"{self.name}: the {dates} dates are withheld until the records agree"


_DATE_WORDS = {"ordered": "order", "shipped": "ship", "delivered": "delivery"}
