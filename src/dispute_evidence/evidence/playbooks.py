"""One playbook per reason family: everything the product knows about arguing a reason, in
one record (issue 44, item 3; shared spec rebuttal-by-reason.md and evidence-by-reason.md).

A playbook holds the API reasons it covers and the claim each makes in plain words, the
network reason codes behind them, the facts that answer the claim in order of strength (the
letter's arguments, evidence/letter_facts.py), the thesis it tries first (evidence/thesis.py),
the policy clause topics that answer it, what concedes it, the evidence a reviewer expects
(evidence/completeness.py's items), the cautious starting P(win) (evidence/advice.py) and the
request. Nothing else in the code keys data on a reason: a new reason is one record here, and
tests/unit/evidence/test_playbooks.py fails when a reason the API can send has none, or when
a playbook names an argument, thesis or item that does not exist.

Pure data: imports nothing of the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Family names (the keys other modules compare with: never a raw reason string)
FRAUD = "fraud"
NOT_RECEIVED = "not_received"
NOT_AS_DESCRIBED = "not_as_described"
CREDIT_NOT_PROCESSED = "credit_not_processed"
SUBSCRIPTION = "subscription_canceled"
DUPLICATE = "duplicate"
GENERAL = "general"

# When the customer's own conceding words make the advice "accept" (case.py _words_against):
# always; unless another message of theirs supports the merchant; unless a credit was made;
# never (the rest of the case answers the claim)
WordsConcede = Literal["always", "unless_supported", "unless_credited", "never"]

# Policy clause topics (documents/policytext.py TOPICS' keys), named here so this module
# imports nothing
REFUND, RETURN_WINDOW, CANCELLATION, DEFECT, SHIPPING = (
    "refund",
    "return_window",
    "cancellation",
    "defect",
    "shipping",
)

# What a customer's message cue (evidence/messages.py) says of each family's claim: (stance,
# why); a cue a family does not list is neutral (evidence/stance.py reads them)
StanceKind = Literal["supports", "concedes", "neutral"]
Signals = dict[str, tuple[StanceKind, str]]
_S: StanceKind = "supports"
_C: StanceKind = "concedes"
_ARRIVED: Signals = {
    "receipt": (_S, "confirms the goods arrived"),
    "non_receipt": (_C, "says the goods never arrived"),
    "fine": (_S, "says they are happy with the goods"),
    "unhappy": (_C, "says they are not happy with the goods"),
    "defect": (_S, "confirms the goods arrived (and complains of them)"),
}


@dataclass(frozen=True)
class Codes:
    """The network reason codes behind a family (evidence-by-reason.md's table)."""

    visa: tuple[str, ...]
    mastercard: tuple[str, ...]
    amex: tuple[str, ...]

    def all(self) -> tuple[str, ...]:
        return (*self.visa, *self.mastercard, *self.amex)


@dataclass(frozen=True)
class Playbook:
    family: str
    # API reason -> the claim in plain words (what the cardholder says, never our claim)
    claims: dict[str, str]
    codes: Codes
    # the letter's arguments (evidence/letter_facts.py Facts' methods), strongest first
    decisive: tuple[str, ...]
    # the thesis makers tried in order (evidence/thesis.py THESES' keys); the first that has its
    # fact opens the letter's body
    thesis: tuple[str, ...]
    concedes: str  # what concedes the claim, in words
    words_concede: WordsConcede
    # policy clause topics that answer the claim, best first; () quotes no clause (a general
    # letter quotes the policy's general clause)
    policy_topics: tuple[str, ...]
    core: tuple[str, ...]  # completeness items a reviewer expects (evidence/completeness.py)
    helps: tuple[str, ...]  # items that also help
    prior: float  # the cautious starting P(win) of the advice (not a measured rate)
    signals: Signals  # what each message cue says of this claim
    request: str = (
        "For these reasons we ask that the dispute be reversed and the payment of {amount} stand."
    )

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(self.claims)


_FRAUD_CORE = (
    "billing_address",
    "shipping_address",
    "billing_matches_shipping",
    "avs_match",
    "carrier",
    "tracking",
    "ship_date",
)

PLAYBOOKS: tuple[Playbook, ...] = (
    Playbook(
        FRAUD,
        {
            "fraudulent": "the cardholder says they did not authorise this payment (fraud)",
            "unrecognized": "the cardholder does not recognise this payment",
        },
        Codes(("10.4",), ("4837",), ("F29",)),
        decisive=(
            "avs_rule",
            "ce3",
            "messages",
            "delivered_to_verified_address",
            "card_checks",
            "same_address",
            "customer",
            "use_after_purchase",
            "shipped",
            "delivery",
            "files",
        ),
        thesis=(
            "avs_rule",
            "ce3",
            "customer_words",
            "verified_delivery",
            "signed_delivery",
            "digital_delivery",
        ),
        concedes="delivery to an address unrelated to the cardholder's; AVS or CVC failures; "
        "the customer reporting the card stolen",
        words_concede="never",
        policy_topics=(),
        core=_FRAUD_CORE,
        helps=("cvc_match", "delivered", "customer_email", "customer_name", "communication"),
        prior=0.20,
        signals={
            **{k: v for k, v in _ARRIVED.items() if k != "non_receipt"},
            "not_me": (_C, "says they did not make the order"),
            "household": (_S, "says someone in their household made the order"),
        },
    ),
    Playbook(
        NOT_RECEIVED,
        {"product_not_received": "the cardholder says the goods were not received"},
        Codes(("13.1",), ("4855",), ("C08",)),
        decisive=(
            "proof_of_delivery",
            "messages",
            "delivery",
            "shipped",
            "use_after_purchase",
            "files",
        ),
        thesis=("signed_delivery", "digital_delivery", "customer_words", "carrier_delivery"),
        concedes="a parcel still in transit or returned; a proof of delivery for another "
        "parcel; the customer saying nothing arrived with no proof against it",
        words_concede="never",
        policy_topics=(SHIPPING,),
        core=("carrier", "tracking", "ship_date", "shipping_address", "delivered"),
        helps=("shipping_document", "customer_email", "communication"),
        prior=0.40,
        signals=_ARRIVED,
    ),
    Playbook(
        NOT_AS_DESCRIBED,
        {
            "product_unacceptable": "the cardholder says the goods were not as described or "
            "were defective"
        },
        Codes(("13.3",), ("4853",), ("C31",)),
        decisive=("messages", "as_sold", "policy", "delivery", "files"),
        thesis=("customer_words", "as_sold"),
        concedes="the customer describing a defect or damage with no rebuttal; a return the "
        "merchant received and did not credit",
        words_concede="unless_supported",
        policy_topics=(DEFECT, RETURN_WINDOW, REFUND),
        core=("products", "policy_document"),
        helps=("listing", "statement_return", "communication", "refund_record", "customer_email"),
        prior=0.30,
        signals={
            "defect": (_C, "says the goods were defective or not as described"),
            "fine": (_S, "says the goods are fine"),
            "changed_mind": (_S, "says they changed their mind"),
            "unhappy": (_C, "says they still want to return the goods"),
            "no_defect": (_S, "denies saying the goods were defective"),
        },
    ),
    Playbook(
        CREDIT_NOT_PROCESSED,
        {
            "credit_not_processed": "the cardholder says a refund or credit they were owed was "
            "not processed"
        },
        Codes(("13.6",), ("4853",), ("C02",)),
        decisive=("refund", "messages", "policy", "delivery", "files"),
        thesis=("credit", "return_window", "policy_refusal", "customer_words"),
        concedes="the customer saying she returned it with no proof against it; a policy that "
        "entitles her to the refund",
        words_concede="unless_credited",
        policy_topics=(RETURN_WINDOW, REFUND),
        core=("policy_document", "refund_record"),
        helps=("statement_refund", "communication", "customer_email"),
        prior=0.30,
        signals={
            "returned": (_C, "says the goods were sent back"),
            "refund_ask": (_C, "asks for the refund"),
            "refund_got": (_S, "says the refund was received"),
            "not_returned": (_S, "says the goods were not sent back"),
        },
    ),
    Playbook(
        SUBSCRIPTION,
        {
            "subscription_canceled": "the cardholder says they were charged after cancelling a "
            "subscription"
        },
        Codes(("13.2", "13.7"), ("4841",), ("C28",)),
        decisive=(
            "renewal",
            "no_cancellation",
            "use_after_cancellation",
            "messages",
            "policy",
            "use_after_purchase",
            "descriptions",
            "customer",
            "files",
        ),
        thesis=("customer_words", "uncancelled_renewal", "policy_terms"),
        concedes="a cancellation message dated before the disputed charge",
        words_concede="always",
        policy_topics=(CANCELLATION, REFUND),
        core=("policy_document", "customer_email"),
        helps=("statement_cancellation", "communication", "payment_record"),
        prior=0.25,
        signals={
            "cancel": (_C, "asks to cancel before the disputed charge"),
            "no_cancel": (_S, "says they did not cancel"),
        },
    ),
    Playbook(
        DUPLICATE,
        {
            "duplicate": "the cardholder says they were charged more than once for one purchase",
        },
        Codes(("12.6.1",), ("4834",), ("P08",)),
        decisive=(
            "two_purchases",
            "paid_in_parts",
            "distinct_charges",
            "statement_answers",
            "files",
        ),
        thesis=("two_purchases", "distinct_charges"),
        concedes="two charges of the same amount on the same card, order and day with one delivery",
        words_concede="never",
        policy_topics=(),
        core=("explanation_document", "payment_record"),
        helps=("statement_duplicate", "shipping_document", "communication"),
        prior=0.40,
        signals={},
    ),
    Playbook(
        GENERAL,
        {"general": "the cardholder disputes this payment (no specific reason given)"},
        Codes((), (), ()),
        decisive=(
            "proof_of_delivery",
            "messages",
            "delivery",
            "shipped",
            "use_after_purchase",
            "customer",
            "policy",
            "files",
        ),
        thesis=("signed_delivery", "digital_delivery", "customer_words", "carrier_delivery"),
        concedes="nothing fixed: what our own records concede (a cancelled or refunded order)",
        words_concede="never",
        policy_topics=(REFUND, RETURN_WINDOW, DEFECT),
        core=("products", "customer_name", "customer_email"),
        helps=("billing_address", "communication"),
        prior=0.25,
        signals=_ARRIVED,
    ),
)

BY_FAMILY: dict[str, Playbook] = {p.family: p for p in PLAYBOOKS}
BY_REASON: dict[str, Playbook] = {r: p for p in PLAYBOOKS for r in p.reasons}


def playbook_for(reason: str) -> Playbook:
    """The playbook of an API reason; a reason the API's list does not name is argued as
    "general" (the API may add reasons; the guard test names every one it sends today)."""
    return BY_REASON.get(reason.strip().lower(), BY_FAMILY[GENERAL])


def signals_of(family: str) -> Signals:
    """What each message cue says of a family's claim ({} for a family no playbook names)."""
    p = BY_FAMILY.get(family)
    return p.signals if p else {}


def family_of(reason: str) -> str:
    return playbook_for(reason).family


def claim_words(reason: str) -> str | None:
    """The claim in plain words, or None for a reason no playbook names."""
    p = BY_REASON.get(reason.strip().lower())
    return p.claims[reason.strip().lower()] if p else None


FRAUD_REASONS = frozenset(BY_FAMILY[FRAUD].reasons)
