"""Checks of a case that name what the analyst settles (evidence/case_contradictions.py): a
message whose reading is not certain (issue 44 item 2), and money and words that disagree
(issue 44 item 12). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from dispute_evidence.documents.facts import DocumentFacts, Message
from dispute_evidence.evidence.case_parts import Contradiction
from dispute_evidence.evidence.credits import CENT, Credit
from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.stance import Stance, message_key
from dispute_evidence.evidence.statement import denies_refund
from dispute_evidence.evidence.views import DisputeView

UNSURE_SHOWN = 5  # charges the analyst's note on a duplicate names
STANCE = "message to confirm"  # a reading the analyst decides (engine/prepare/stances.py)
VS_RECORDS = "statement vs records"  # the letter leaves the statement out (letter_facts.py)
OTHER_UNSURE = "other charge not certain"
IN_PART = "delivered in part"
# what holds a dispute for the analyst, whatever the review policy, until approved: the letter
# would argue past it (a reading not certain, a duplicate's other charge not named, a parcel
# not shown delivered under a request for the whole amount)
DECIDES = (STANCE, OTHER_UNSURE, IN_PART)


def to_confirm(stances: Sequence[tuple[DocumentFacts, Message, Stance]]) -> list[Contradiction]:
    """Each message whose reading is not certain: the analyst's to confirm (supports, concedes
    or leave out), neither argued nor conceded until then; never printed for the reviewer."""
    out = []
    for doc, m, st in stances:
        if not st.to_confirm:
            continue
        when = f" on {m.on.isoformat()}" if m.on else ""
        out.append(
            Contradiction(
                STANCE,
                f"{m.author or 'the customer'} wrote{when} ({doc.name}, page {m.quote.page}): "
                f"“{m.quote.text}”; read as {st.kind} ({st.why}), not certain",
                f"confirm it: dispute-evidence stance <this dispute> {message_key(m.quote.text)} "
                "supports|concedes|leave-out (until then the letter neither argues nor concedes it)",
                weakens=False,
                internal=True,
            )
        )
    return out


def other_unsure(unsure: Sequence[str], charge: Charge | None) -> list[Contradiction]:
    """A duplicate claim whose other charge is not certain (evidence/duplicates.py): two or more
    charges of the amount, that day, on the card, are equally near. None is shown to the
    reviewer; the analyst names it (issue 44 item 8)."""
    if not unsure or charge is None:
        return []
    amount = _money(float(charge.payment_amount or 0), charge.currency.upper())
    more = f" and {len(unsure) - UNSURE_SHOWN} more" if len(unsure) > UNSURE_SHOWN else ""
    return [
        Contradiction(
            OTHER_UNSURE,
            f"{len(unsure)} other orders' charges of {amount} on "
            f"{charge.paid_at[:10]} on this card are equally near the disputed "
            f"{charge.payment_id}: {', '.join(unsure[:UNSURE_SHOWN])}{more}; the letter shows no other "
            "purchase",
            "name the charge the cardholder calls the duplicate (its id or order number) in a "
            "merchant statement; the letter then shows the two purchases side by side",
            internal=True,
        )
    ]


def money_against_words(
    credits: tuple[Credit, ...],
    refunded: float,
    currency: str,
    statement: str,
    dispute: DisputeView,
) -> list[Contradiction]:
    """Money and words that disagree (issue 44 item 12): a statement denying any refund beside a
    recorded credit (the letter quotes neither until they agree); a disputed amount of 0."""
    out = []
    if (credits or refunded > 0) and denies_refund(statement):
        out.append(
            Contradiction(
                VS_RECORDS,
                f"the merchant's statement says no refund was issued, but "
                f"{_credit_words(credits, refunded, currency)} is recorded",
                "correct the statement or the refund data; until they agree the letter states the "
                "credit and leaves the statement out",
                internal=True,
            )
        )
    if dispute.amount is not None and abs(dispute.amount) < CENT:
        out.append(
            Contradiction(
                "nothing disputed",
                f"the disputed amount is {_money(0.0, dispute.currency)}",
                "check the dispute's amount in the disputes list; nothing is sent asking for "
                f"{_money(0.0, dispute.currency)}",
                accept=True,
            )
        )
    return out


def statement_against_concession(
    statement: str, found: Sequence[Contradiction]
) -> list[Contradiction]:
    """A merchant statement beside records that concede the claim (issue 44): the letter says it
    does not contest, so it never also prints the statement arguing the dispute; the analyst is
    told which records concede, to correct them or let the dispute go."""
    conceding = [c.fact for c in found if c.accept]
    if not statement.strip() or not conceding or any(c.name == VS_RECORDS for c in found):
        return []
    return [
        Contradiction(
            VS_RECORDS,
            f"the merchant's statement argues the dispute, but your own records concede "
            f"it: {'; '.join(conceding)}",
            "the letter does not contest the dispute and leaves the statement out; if the records "
            "are wrong, correct them and drop the file again",
            internal=True,
        )
    ]


def _credit_words(credits: tuple[Credit, ...], refunded: float, currency: str) -> str:
    if credits:
        return " and ".join(f"a credit of {x.words()}" for x in credits[:3])
    return f"a refund of {_money(refunded, currency)}"


def _money(value: float, currency: str) -> str:
    return f"{value:,.2f} {currency}".strip()
