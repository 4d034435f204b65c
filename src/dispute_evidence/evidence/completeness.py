"""What evidence each dispute reason needs, and whether a payload has it.

The one table of it (REASONS below), from the card networks' and Stripe's public guidance
(shared/spec/evidence-by-reason.md; docs/completeness.md explains each choice). A dispute's
verdict is "complete" when every *core* item is there, else "missing: X, Y" with what to add
in plain words; *also helps* items are listed as suggestions and never make a verdict
incomplete. Items no export can hold (a cancellation policy, customer emails) count as
present when a document is attached to the dispute: we cannot read a PDF's meaning, so the
wording says which document a reviewer expects.

Files count by kind (evidence/kinds.py): a proof of delivery or a signature confirms delivery,
a policy document is a file that is one, and so on; a file of no recognised kind counts only as
a generic explanation document. Facts that undercut the dispute's own reason (a "not received"
claim whose only shipment is in transit, a refund recorded against "credit not processed", a
cancelled order) make the verdict "weak: …", whatever else is there.

Pure: a payload (the JSON sent to the API), the reason, and the kinds of the files attached.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dispute_evidence.evidence import kinds as K

Payload = dict[str, Any]
Files = Sequence[str]  # the kinds of the files attached (evidence/kinds.py)


@dataclass(frozen=True)
class Item:
    key: str
    label: str  # as the verdict names it: "tracking number"
    to_add: str  # what to add, in plain words
    present: Callable[[Payload, Files], bool]


def _extra(p: Payload) -> dict[str, Any]:
    return dict(p.get("additional_evidence") or {})


def _shipments(p: Payload) -> list[dict[str, Any]]:
    return list(_extra(p).get("shipments") or [])


def _payments(p: Payload) -> list[dict[str, Any]]:
    return list(_extra(p).get("payments") or [])


def _norm(text: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


_NOT_DELIVERED = re.compile(r"\b(un|not\s+|out\s+for\s+|attempted\s+)deliver", re.I)


def status_says_delivered(status: object) -> bool:
    """'Delivered', 'delivered to mailbox' — not 'Undelivered', 'Out for delivery', 'Not
    delivered' or 'Delivery attempted'."""
    text = str(status or "")
    return bool(re.search(r"\bdelivered\b", text, re.I)) and not _NOT_DELIVERED.search(text)


def shipment_delivered(s: dict[str, Any]) -> bool:
    return bool(s.get("delivered_at")) or status_says_delivered(s.get("delivery_status"))


def _delivered(p: Payload, files: Files = ()) -> bool:
    return any(map(shipment_delivered, _shipments(p))) or bool(
        {K.PROOF_OF_DELIVERY, K.SIGNATURE} & set(files)
    )


def _avs_match(p: Payload) -> bool:
    return any(
        str(c.get("avs_line1_check", "")).lower() == "pass"
        or str(c.get("avs_zip_check", "")).lower() == "pass"
        for c in _payments(p)
    )


def _has(field: str) -> Callable[[Payload, Files], bool]:
    return lambda p, _files: bool(_extra(p).get(field))


def _document(*wanted: str) -> Callable[[Payload, Files], bool]:
    """A file of one of these kinds is attached (none named: any file at all)."""
    return lambda _p, files: bool(set(files) & set(wanted)) if wanted else bool(files)


ITEMS = {
    i.key: i
    for i in (
        Item("products", "product description", "the order's product lines (orders export)",
             lambda p, _: bool(p.get("products"))),
        Item("customer_name", "customer name", "the customer's name (orders export)",
             _has("customer_name")),
        Item("customer_email", "customer email", "the customer's email (orders or payments export)",
             lambda p, _: bool(_extra(p).get("customer_email")
                               or any(c.get("customer_email") for c in _payments(p)))),
        Item("billing_address", "billing address", "the billing address (orders export)",
             _has("billing_address")),
        Item("shipping_address", "shipping address", "the shipping address (orders export)",
             _has("shipping_address")),
        Item("billing_matches_shipping", "billing address = shipping address",
             "a shipping address that matches the billing address (or explain the difference "
             "in a document)",
             lambda p, _: bool(_extra(p).get("billing_address"))
             and _norm(_extra(p).get("billing_address")) == _norm(_extra(p).get("shipping_address"))),
        Item("avs_match", "AVS check passed", "the payments export with the card's AVS results",
             lambda p, _: _avs_match(p)),
        Item("cvc_match", "CVC check passed", "the payments export with the card's CVC result",
             lambda p, _: any(str(c.get("cvc_check", "")).lower() == "pass" for c in _payments(p))),
        Item("payment_record", "payment record", "the payments export for this charge",
             lambda p, _: bool(_payments(p))),
        Item("carrier", "carrier", "the carrier (shipments sheet)",
             lambda p, _: any(s.get("carrier") for s in _shipments(p))),
        Item("tracking", "tracking number", "the tracking number (shipments sheet)",
             lambda p, _: bool(p.get("shipping_tracking_numbers"))),
        Item("ship_date", "ship date", "the ship date (shipments sheet)",
             lambda p, _: any(s.get("shipped_at") for s in _shipments(p))),
        Item("delivered", "delivery confirmed", "the delivery date or status (shipments sheet); a "
             "delivery confirmation or signature as a PDF", _delivered),
        Item("refund_record", "refund record", "the refunded amount (orders export)",
             lambda p, _: "refunded_amount" in _extra(p)),
        Item("shipping_document", "shipping documentation",
             "a shipping label or proof of delivery (PDF/PNG/JPG named with the order number "
             "and 'label', 'tracking' or 'proof of delivery')",
             _document(K.SHIPPING, K.PROOF_OF_DELIVERY, K.SIGNATURE)),
        Item("policy_document", "policy document",
             "the refund or cancellation policy and where the customer saw it (PDF named with "
             "the order number and 'policy' or 'terms')", _document(K.POLICY)),
        Item("explanation_document", "explanation document",
             "a document saying why the charge is valid (for a duplicate: the other charge's "
             "id and how the two differ)", _document()),
        Item("communication", "customer communication",
             "emails or chat with the customer (PDF named with the order number and 'email' "
             "or 'chat')", _document(K.COMMUNICATION)),
    )
}  # fmt: skip

_FRAUD = (
    ("billing_address", "shipping_address", "billing_matches_shipping", "avs_match",
     "carrier", "tracking", "ship_date"),
    ("cvc_match", "delivered", "customer_email", "customer_name", "communication"),
)  # fmt: skip

# reason -> (core items, also helps)
REASONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "fraudulent": _FRAUD,
    "unrecognized": _FRAUD,
    "product_not_received": (
        ("carrier", "tracking", "ship_date", "shipping_address", "delivered"),
        ("shipping_document", "customer_email", "communication"),
    ),
    "product_unacceptable": (
        ("products", "policy_document"),
        ("communication", "refund_record", "customer_email"),
    ),
    "subscription_canceled": (
        ("policy_document", "customer_email"),
        ("communication", "payment_record"),
    ),
    "duplicate": (
        ("explanation_document", "payment_record"),
        ("shipping_document", "communication"),
    ),
    "credit_not_processed": (
        ("policy_document", "refund_record"),
        ("communication", "customer_email"),
    ),
    "general": (
        ("products", "customer_name", "customer_email"),
        ("billing_address", "communication"),
    ),
}
GENERAL = "general"


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


def reason_of(payload: Payload) -> str:
    return str((_extra(payload).get("dispute") or {}).get("reason") or "")


def assess(payload: Payload, files: int | Files, reason: str | None = None) -> Verdict:
    """The verdict for one dispute's payload, its reason (default: the payload's) and the files
    attached to it (their kinds; a number means that many files of no recognised kind)."""
    kinds: Files = [K.OTHER] * files if isinstance(files, int) else list(files)
    reason = (reason if reason is not None else reason_of(payload)).strip().lower()
    key = reason if reason in REASONS else GENERAL
    core, helps = REASONS[key]
    missing = [ITEMS[k] for k in core if not ITEMS[k].present(payload, kinds)]
    extra = [ITEMS[k] for k in helps if not ITEMS[k].present(payload, kinds)]
    against = contradictions(payload, kinds, key)
    return Verdict(
        key,
        tuple(i.label for i in missing),
        tuple(_dedupe(i.to_add for i in missing)),
        tuple(_dedupe(i.label for i in extra)),
        tuple(fact for fact, _ in against),
        tuple(_dedupe(todo for _, todo in against)),
    )


def _money(value: Any, currency: Any) -> str:
    return f"{float(value):.2f} {currency or ''}".strip()


def contradictions(p: Payload, files: Files, reason: str) -> list[tuple[str, str]]:
    """(fact, what to do) for each fact in the merchant's own records that undercuts the case
    for this reason. Never a guess: only what the payload states."""
    out: list[tuple[str, str]] = []
    extra = _extra(p)
    ships = _shipments(p)
    shown = sorted({str(s.get("delivery_status") or "").strip().lower() for s in ships} - {""})
    if reason == "product_not_received" and shown and not _delivered(p, files):
        out.append((f"carrier shows {', '.join(shown)}",
                    "proof of delivery (a delivery confirmation or signature), or consider "
                    "accepting the dispute"))  # fmt: skip
    refunded = extra.get("refunded_amount") or 0
    currency = extra.get("order_currency") or ""
    total = extra.get("order_total")
    if reason == "credit_not_processed" and refunded > 0:
        out.append((f"a refund of {_money(refunded, currency)} is recorded",
                    "if the refund covers the disputed amount, send its receipt (date and "
                    "reference) or accept the dispute: a refund and a lost dispute pay twice"))  # fmt: skip
    elif refunded > 0 and total and refunded >= total:
        out.append((f"the order was fully refunded ({_money(refunded, currency)})",
                    "accept the dispute, or send the refund receipt showing it was refunded "
                    "before the dispute"))  # fmt: skip
    if cancelled := extra.get("cancelled_at"):
        out.append((f"the order was cancelled on {str(cancelled)[:10]}",
                    "check whether the charge should stand; if not, accept the dispute"))  # fmt: skip
    return out


def _dedupe(values: Any) -> list[str]:
    return list(dict.fromkeys(values))
