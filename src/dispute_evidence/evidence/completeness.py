"""What evidence each dispute reason needs, and whether a payload has it.

The one table of it (REASONS below), from the card networks' and Stripe's public guidance
(shared/spec/evidence-by-reason.md; docs/completeness.md explains each choice). A dispute's
verdict is "complete" when every *core* item is there, else "missing: X, Y" with what to add
in plain words; *also helps* items are listed as suggestions and never make a verdict
incomplete. Items no export can hold (a cancellation policy, customer emails) count as
present when a document is attached to the dispute: we cannot read a PDF's meaning, so the
wording says which document a reviewer expects.

Every item reads the dispute's case (evidence/case_record.py), built once from the payload and the
documents: "delivery confirmed" is the case's one delivery fact (a proof of delivery read from
a document, else the carrier's row), never a test of its own. Files count by kind
(documents/kinds.py); a file of no recognised kind counts only as a generic explanation
document. The case's contradictions that undercut the dispute's own reason (a "not received"
claim the carrier contradicts, a refund recorded against "credit not processed", a cancelled,
fully refunded or never-fulfilled order, dates out of order) make the verdict "weak: …",
whatever else is there.

Pure: a payload (the JSON sent to the API) or a case, the reason, and the files attached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dispute_evidence.documents import kinds as K
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence.case_build import build_case, documents_of_kinds, for_reason
from dispute_evidence.evidence.case_record import CaseFacts
from dispute_evidence.evidence.digital import is_digital
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.playbooks import PLAYBOOKS

Files = Sequence[str | DocumentFacts]  # the files attached: their kinds, or what was read


@dataclass(frozen=True)
class Item:
    key: str
    label: str  # as the verdict names it: "tracking number"
    to_add: str  # what to add, in plain words
    present: Callable[[CaseFacts], bool]
    kinds: tuple[str, ...] = ()  # the document kinds that give it (none: no document, or any)


def _has_document(case: CaseFacts, *wanted: str) -> bool:
    """A file of one of these kinds is attached (none named: any file at all)."""
    return bool(set(case.kinds) & set(wanted)) if wanted else bool(case.documents)


def _document(*wanted: str) -> Callable[[CaseFacts], bool]:
    return lambda case: _has_document(case, *wanted)


def _check_passed(case: CaseFacts, *keys: str) -> bool:
    return any(str(getattr(c, k)).lower() == "pass" for c in case.charges for k in keys)


# What the merchant's statement answers, per reason (shared/spec/rebuttal-by-reason.md)
_STATEMENTS = {
    "refund": "why no refund is owed",
    "cancellation": "that no cancellation was received before the charge",
    "duplicate": "why the two charges differ",
    "return": "what happened to any return request",
}

ITEMS = {
    i.key: i
    for i in (
        Item(
            "products",
            "product description",
            "the order's product lines (orders export)",
            lambda c: bool(c.lines),
        ),
        Item(
            "customer_name",
            "customer name",
            "the customer's name (orders export)",
            lambda c: bool(c.customer.name),
        ),
        Item(
            "customer_email",
            "customer email",
            "the customer's email (orders or payments export)",
            lambda c: bool(c.customer.email),
        ),
        Item(
            "billing_address",
            "billing address",
            "the billing address (orders export)",
            lambda c: bool(c.customer.billing_address),
        ),
        Item(
            "shipping_address",
            "shipping address",
            "the shipping address (orders export)",
            lambda c: bool(c.customer.shipping_address),
        ),
        Item(
            "billing_matches_shipping",
            "billing address = shipping address",
            "a shipping address that matches the billing address (or explain the difference "
            "in a document)",
            lambda c: c.same_address,
        ),
        Item(
            "avs_match",
            "AVS check passed",
            "the payments export with the card's AVS results",
            lambda c: _check_passed(c, "avs_line1_check", "avs_zip_check"),
        ),
        Item(
            "cvc_match",
            "CVC check passed",
            "the payments export with the card's CVC result",
            lambda c: _check_passed(c, "cvc_check"),
        ),
        Item(
            "payment_record",
            "payment record",
            "the payments export for this charge",
            lambda c: bool(c.charges),
        ),
        Item(
            "carrier",
            "carrier",
            "the carrier (shipments sheet)",
            lambda c: any(s.carrier for s in c.shipments),
        ),
        Item(
            "tracking",
            "tracking number",
            "the tracking number (shipments sheet)",
            lambda c: bool(c.tracking_numbers),
        ),
        Item(
            "ship_date",
            "ship date",
            "the ship date (shipments sheet)",
            lambda c: any(s.shipped_on for s in c.shipments),
        ),
        Item(
            "delivered",
            "delivery confirmed",
            "the delivery date or status (shipments sheet); a "
            "delivery confirmation or signature as a PDF",
            lambda c: c.delivery.delivered,
        ),
        Item(
            "refund_record",
            "refund record",
            "the refunded amount (orders export)",
            lambda c: c.refund_recorded,
        ),
        Item(
            "shipping_document",
            "shipping documentation",
            "a shipping label or proof of delivery (PDF/PNG/JPG named with the order number "
            "and 'label', 'tracking' or 'proof of delivery')",
            _document(K.SHIPPING, K.PROOF_OF_DELIVERY, K.SIGNATURE),
            (K.SHIPPING, K.PROOF_OF_DELIVERY, K.SIGNATURE),
        ),
        Item(
            "policy_document",
            "policy document",
            "the refund or cancellation policy and where the customer saw it (once, in the "
            "inbox's store/ folder; or a PDF named with the order number and 'policy')",
            _document(K.POLICY),
            (K.POLICY,),
        ),
        Item(
            "explanation_document",
            "explanation document",
            "a document or merchant statement saying why the charge is valid (for a "
            "duplicate: the other charge's id and how the two differ)",
            lambda c: _has_document(c) or bool(c.statement),
        ),
        Item(
            "listing",
            "product as sold",
            "the product's listing as sold (Shopify's products "
            "export, or a products sheet: SKU or title, description)",
            lambda c: bool(c.as_sold),
        ),
        *(
            Item(
                f"statement_{key}",
                f"merchant statement ({what})",
                f"a merchant statement saying {what} (a Statement column in the disputes list, "
                "or '<order number> statement.txt' in the inbox)",
                lambda c: bool(c.statement),
            )
            for key, what in _STATEMENTS.items()
        ),
        Item(
            "access_log",
            "account use after the purchase",
            "the access or activity log (time, "
            "account, event, IP, device: the download, activation or logins after the "
            "purchase)",
            lambda c: bool(c.activity),
        ),
        Item(
            "communication",
            "customer communication",
            "emails or chat with the customer (PDF named with the order number and 'email' "
            "or 'chat')",
            _document(K.COMMUNICATION),
            (K.COMMUNICATION,),
        ),
    )
}

# reason -> (core items, also helps): each reason's playbook's (evidence/playbooks.py)
REASONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    reason: (p.core, p.helps) for p in PLAYBOOKS for reason in p.reasons
}
GENERAL = "general"
# what a parcel needs: never asked of a licence, a download or an account (evidence/digital.py)
SHIPPING_ITEMS = frozenset(
    {
        "carrier",
        "tracking",
        "ship_date",
        "delivered",
        "shipping_address",
        "billing_matches_shipping",
        "shipping_document",
    }
)


def kinds_needed(reason: str) -> frozenset[str]:
    """The document kinds the reason's items name, core or also-helps (a store document of one
    of them goes to every dispute of the reason; "any document" names no kind)."""
    key = reason.strip().lower()
    core, helps = REASONS[key if key in REASONS else GENERAL]
    return frozenset(k for item in (*core, *helps) for k in ITEMS[item].kinds)


@dataclass(frozen=True)
class Verdict:
    reason: str  # the reason the table was applied for ("general" for an unknown one)
    missing: tuple[str, ...]  # labels of missing core items
    to_add: tuple[str, ...]  # what to add, one line per missing core item
    suggestions: tuple[str, ...]  # also-helps items not present
    against: tuple[str, ...] = ()  # facts that undercut the dispute's reason ("weak: …")
    advice: tuple[str, ...] = ()  # what to do about them

    @property
    def complete(self) -> bool:
        return not self.missing and not self.against

    @property
    def weak(self) -> bool:
        return bool(self.against)

    @property
    def text(self) -> str:
        if self.against:
            return "weak: " + "; ".join(self.against)
        return "complete" if self.complete else "missing: " + ", ".join(self.missing)

    @property
    def what_to_add(self) -> str:
        return "; ".join((*self.advice, *self.to_add))


def assess(facts: DisputeFacts, files: int | Files, reason: str | None = None) -> Verdict:
    """The verdict for one dispute's facts, its reason (default: the disputes list's) and the
    files attached to it (their kinds or facts read; a number: that many files of no known
    kind)."""
    docs: Files = [K.OTHER] * files if isinstance(files, int) else list(files)
    return assess_case(build_case(facts, documents_of_kinds(docs)), reason)


def assess_case(case: CaseFacts, reason: str | None = None) -> Verdict:
    """The verdict for one case (evidence/case_record.py), for its own reason or `reason`."""
    reason = (reason if reason is not None else case.dispute.reason).strip().lower()
    key = reason if reason in REASONS else GENERAL
    case = for_reason(case, key)
    core, helps = _for_goods(case, *REASONS[key])
    missing = [ITEMS[k] for k in core if not ITEMS[k].present(case)]
    extra = [ITEMS[k] for k in helps if not ITEMS[k].present(case)]
    against = case.against
    return Verdict(
        key,
        tuple(i.label for i in missing),
        tuple(_dedupe(i.to_add for i in missing)),
        tuple(_dedupe(i.label for i in extra)),
        tuple(c.fact for c in against),
        tuple(_dedupe(c.todo for c in against)),
    )


def _for_goods(
    case: CaseFacts, core: tuple[str, ...], helps: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A digital order's items: what a parcel needs is replaced by the account's use (the
    access log), core where the parcel's items were."""
    shipped = bool(case.shipments or case.tracking_numbers)
    if not is_digital((x.title for x in case.lines), shipped):
        return core, helps
    kept = tuple(k for k in core if k not in SHIPPING_ITEMS)
    others = tuple(k for k in helps if k not in SHIPPING_ITEMS)
    if len(kept) < len(core):
        return (*kept, "access_log"), others
    return kept, (*others, "access_log")


def _dedupe(values: Any) -> list[str]:
    return list(dict.fromkeys(values))
