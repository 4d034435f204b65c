"""What evidence each dispute reason needs, and whether a payload has it.

The one table of it (REASONS below), from the card networks' and Stripe's public guidance
(shared/spec/evidence-by-reason.md; docs/completeness.md explains each choice). A dispute's
verdict is "complete" when every *core* item is there, else "missing: X, Y" with what to add
in plain words; *also helps* items are listed as suggestions and never make a verdict
incomplete. Items no export can hold (a cancellation policy, customer emails) count as
present when a document is attached to the dispute: we cannot read a PDF's meaning, so the
wording says which document a reviewer expects.

Pure: a payload (the JSON sent to the API), the reason, and the number of files attached.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Payload = dict[str, Any]


@dataclass(frozen=True)
class Item:
    key: str
    label: str  # as the verdict names it: "tracking number"
    to_add: str  # what to add, in plain words
    present: Callable[[Payload, int], bool]


def _extra(p: Payload) -> dict[str, Any]:
    return dict(p.get("additional_evidence") or {})


def _shipments(p: Payload) -> list[dict[str, Any]]:
    return list(_extra(p).get("shipments") or [])


def _payments(p: Payload) -> list[dict[str, Any]]:
    return list(_extra(p).get("payments") or [])


def _norm(text: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


def _delivered(p: Payload) -> bool:
    return any(
        s.get("delivered_at") or "deliver" in str(s.get("delivery_status", "")).lower()
        for s in _shipments(p)
    )


def _avs_match(p: Payload) -> bool:
    return any(
        str(c.get("avs_line1_check", "")).lower() == "pass"
        or str(c.get("avs_zip_check", "")).lower() == "pass"
        for c in _payments(p)
    )


def _has(field: str) -> Callable[[Payload, int], bool]:
    return lambda p, _files: bool(_extra(p).get(field))


def _document(p: Payload, files: int) -> bool:
    return files > 0


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
             "delivery confirmation or signature as a PDF", lambda p, _: _delivered(p)),
        Item("refund_record", "refund record", "the refunded amount (orders export)",
             lambda p, _: "refunded_amount" in _extra(p)),
        Item("shipping_document", "shipping documentation",
             "a shipping label or proof of delivery (PDF/PNG/JPG named with the order number)",
             _document),
        Item("policy_document", "policy document",
             "the refund or cancellation policy and where the customer saw it (PDF named with "
             "the order number)", _document),
        Item("explanation_document", "explanation document",
             "a document saying why the charge is valid (for a duplicate: the other charge's "
             "id and how the two differ)", _document),
        Item("communication", "customer communication",
             "emails or chat with the customer (PDF named with the order number)", _document),
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

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def text(self) -> str:
        return "complete" if self.complete else "missing: " + ", ".join(self.missing)

    @property
    def what_to_add(self) -> str:
        return "; ".join(self.to_add)


def reason_of(payload: Payload) -> str:
    return str((_extra(payload).get("dispute") or {}).get("reason") or "")


def assess(payload: Payload, files: int, reason: str | None = None) -> Verdict:
    """The verdict for one dispute's payload, its reason (default: the payload's) and the number
    of evidence files attached to it."""
    reason = (reason if reason is not None else reason_of(payload)).strip().lower()
    key = reason if reason in REASONS else GENERAL
    core, helps = REASONS[key]
    missing = [ITEMS[k] for k in core if not ITEMS[k].present(payload, files)]
    extra = [ITEMS[k] for k in helps if not ITEMS[k].present(payload, files)]
    return Verdict(
        key,
        tuple(i.label for i in missing),
        tuple(_dedupe(i.to_add for i in missing)),
        tuple(_dedupe(i.label for i in extra)),
    )


def _dedupe(values: Any) -> list[str]:
    return list(dict.fromkeys(values))
