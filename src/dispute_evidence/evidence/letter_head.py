"""The head of a rebuttal letter: the disputed transaction identified (the header block) and
the dispute in plain words. Pure: no I/O."""

from __future__ import annotations

from typing import Any

from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.delivery import day
from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.playbooks import claim_words


def money(amount: Any, currency: Any) -> str:
    """An amount as the letter writes it ("1,234.50 USD"); "" when it is no number."""
    try:
        value = float(amount)
    except (TypeError, ValueError):
        return ""
    return f"{value:,.2f} {currency or ''}".strip()


def header(case: CaseFacts, code: str) -> tuple[tuple[str, str], ...]:
    """The disputed transaction, as a reviewer finds it in their system: the charge (id, date,
    amount), the card, the reason code and its words, the order, the customer as entered."""
    ch = case.disputed_charge or Charge()
    charge = " · ".join(
        x
        for x in (ch.payment_id, day(ch.paid_at), money(ch.payment_amount, ch.currency.upper()))
        if x
    )
    card = " ending ".join(x for x in (ch.card_brand, ch.card_last4) if x)
    words = claim_words(case.reason) or case.reason or ""
    reason = f"{code} ({words})" if code and words else code or words
    customer = " · ".join(x for x in (case.customer.name, case.customer.email) if x)
    ordered = "" if case.hidden("ordered") else case.order_date  # a withheld date stays so
    named = (("ARN", ch.arn), ("authorisation code", ch.authorization_code))
    refs = " · ".join(f"{label} {value}" for label, value in named if value)
    rows = (
        ("Disputed charge", charge),
        ("Network references", refs),
        ("Disputed amount", money(case.dispute.amount, case.dispute.currency)),
        ("Card", card),
        ("Reason", reason),
        ("Order", " · ".join(x for x in (case.order_number, ordered) if x)),
        ("Customer (as entered at checkout)", customer),
    )
    return tuple((label, value) for label, value in rows if value)


def reason_line(reason: str, code: str, brand: str, amount: str = "") -> str:
    """The dispute in plain words, with the network's reason code when an export gives one."""
    words = claim_words(reason)
    head = f"The dispute ({amount})" if amount else "The dispute"
    if words:
        text = f"{head}: {words}."
    elif reason and reason.strip().lower() != "general":
        text = f"{head}: the cardholder disputes this payment (reason given: {reason})."
    else:
        text = f"{head}: the cardholder disputes this payment (no specific reason given)."
    if code:
        network = f"{brand} reason code" if brand else "Network reason code"
        text = text[:-1] + f"; {network} {code}."
    return text
