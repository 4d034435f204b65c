"""A named inconsistency of a dispute's case (evidence/case.py), with what to do about it; and
the reason-specific ones that decide what a fraud or duplicate case may argue (issue 44 items 8
and 9: evidence/reason_checks.py). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dispute_evidence.evidence.facts import Charge
from dispute_evidence.evidence.reason_checks import failed_checks, forwarder


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


def fraud_concessions(reason: str, charges: Sequence[Charge], shipping: str) -> list[Contradiction]:
    """What concedes a fraud claim in the merchant's own data (shared spec: "AVS/CVC failures",
    "delivery to an address unrelated to the cardholder's"): an issuer check that failed, and
    a parcel sent to a freight forwarder. Never argued as a match: held for a person."""
    if reason not in ("fraudulent", "unrecognized"):
        return []
    out = []
    failed = failed_checks(charges)
    if failed:
        said = "; ".join(f"charge {f.charge}: {f.what} check {f.result}" for f in failed)
        out.append(Contradiction(
            "card check failed", f"the card issuer's checks failed ({said})",
            "accept the dispute, or approve fighting it on other facts (the address is not "
            "argued as verified)", accept=True))  # fmt: skip
    if name := forwarder(shipping):
        out.append(Contradiction(
            "freight forwarder", f"the order was shipped to a freight forwarder ({name}): "
            f"{shipping}", "accept the dispute, or approve fighting it on other facts (delivery "
            "there is not argued as delivery to the cardholder)", accept=True))  # fmt: skip
    return out
