"""A credit made before the dispute opened is the answer, not a concession (issue 44 item 1):
the letter leads with it (amount, date, reference) and asks for the whole reversal, whatever
the reason. A credit in another currency is stated for what it is, never subtracted (item 12).
Pure."""

from __future__ import annotations

from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.letter_head import money
from dispute_evidence.evidence.sentence import Sentence

_SOURCE = {"refunds": "refunds", "payments": "payments", "order": "order"}


def credit_lead(case: CaseFacts) -> list[Sentence]:
    """The letter's first point when the disputed amount was credited before the dispute
    opened ([] otherwise)."""
    check, disputed = case.credit_check, case.dispute.amount
    if not check.covers_before(disputed):
        return []
    said = " and ".join(x.words() for x in check.before[:3])
    amount = money(disputed, case.dispute.currency or case.currency)
    return [
        Sentence(
            f"The cardholder was already credited {said}, before the dispute opened on "
            f"{check.opened_on}: the full disputed amount of {amount} was returned, so a chargeback "
            "would pay it a second time.",
            _SOURCE.get(check.before[0].source, "order"),
        )
    ]


def other_currency_credits(case: CaseFacts) -> list[Sentence]:
    """Each credit in another currency than the dispute's, stated and not subtracted."""
    disputed = money(case.dispute.amount, case.dispute.currency) or "the disputed amount"
    return [
        Sentence(
            f"A credit of {x.words()} was also issued on this order; it is in another currency than "
            f"the {disputed} disputed, so this response does not subtract it.",
            _SOURCE.get(x.source, "order"),
        )
        for x in case.credit_check.other[:3]
    ]
