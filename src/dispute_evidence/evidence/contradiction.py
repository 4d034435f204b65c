"""The reason-specific contradictions (evidence/case_parts.py Contradiction) that decide what a
fraud or duplicate case may argue (issue 44 items 8 and 9: evidence/reason_checks.py). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from dispute_evidence.evidence.case_parts import Contradiction
from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.reason_checks import failed_checks, forwarder


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
        out.append(
            Contradiction(
                "card check failed",
                f"the card issuer's checks failed ({said})",
                "accept the dispute, or approve fighting it on other facts (the address is not "
                "argued as verified)",
                accept=True,
            )
        )
    if name := forwarder(shipping):
        out.append(
            Contradiction(
                "freight forwarder",
                f"the order was shipped to a freight forwarder ({name}): {shipping}",
                "accept the dispute, or approve fighting it on other facts (delivery "
                "there is not argued as delivery to the cardholder)",
                accept=True,
            )
        )
    return out
