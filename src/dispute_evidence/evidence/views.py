"""The dispute as one side sees it (the disputes list, or the API's read-back), and where the
two differ. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from dispute_evidence.evidence.delivery import day
from dispute_evidence.evidence.dispute_facts import DisputeFacts


@dataclass(frozen=True)
class DisputeView:
    """One side's view of the dispute: the disputes list's, or the API's."""

    reason: str = ""
    amount: float | None = None
    currency: str = ""
    network_reason_code: str = ""
    opened_on: str = ""  # YYYY-MM-DD (the API's initiated_at), "" when not known


def sheet_view(facts: DisputeFacts) -> DisputeView:
    """The disputes list's view (its reason, else the one a disputed charge gives): what the
    API's is compared with (engine/delivery/api_views.py), and the case's `dispute`."""
    claim = facts.claim
    reason = claim.reason or next((c.dispute_reason for c in facts.charges if c.dispute_reason), "")
    amount = None if claim.amount is None else float(claim.amount)
    return DisputeView(
        reason, amount, claim.currency, claim.network_reason_code, day(claim.opened_on)
    )


# -- the API's view of the dispute against the disputes list's -----------------------------
ZERO_DECIMAL = frozenset(
    [
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "ISK",
        "JPY",
        "KMF",
        "KRW",
        "PYG",
        "RWF",
        "UGX",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    ]
)
THREE_DECIMAL = frozenset(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])


def minor_units(amount: float, currency: str) -> int:
    """A major-unit amount (the disputes list's) in the API's smallest currency unit."""
    code = currency.strip().upper()
    exponent = 0 if code in ZERO_DECIMAL else 3 if code in THREE_DECIMAL else 2
    return int(round(amount * 10**exponent))


def view_mismatch(sheet: DisputeView, api: DisputeView) -> str:
    """Where the API's reason, amount or currency differ from the disputes list's (a value one
    side does not give is no difference); "" when they agree. Amounts: the list's in major
    units, the API's in the smallest unit (its spec)."""
    diffs = []
    if sheet.reason and api.reason and sheet.reason.strip().lower() != api.reason.strip().lower():
        diffs.append(f"reason {api.reason!r} at the API, {sheet.reason!r} in the disputes list")
    same_currency = not (sheet.currency and api.currency) or (
        sheet.currency.strip().upper() == api.currency.strip().upper()
    )
    if not same_currency:
        diffs.append(f"currency {api.currency} at the API, {sheet.currency} in the disputes list")
    elif sheet.amount is not None and api.amount is not None:
        currency = sheet.currency or api.currency
        if minor_units(sheet.amount, currency) != round(api.amount):
            diffs.append(
                f"amount {api.amount:g} (smallest unit) at the API, {sheet.amount:,.2f} "
                f"{currency} in the disputes list".replace("  ", " ")
            )
    return "; ".join(diffs)
