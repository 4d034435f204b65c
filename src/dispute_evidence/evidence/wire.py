"""The wire payload (the API's Evidence, docs: shared/spec/dispute-evidence-api.md) derived from
the typed facts (evidence/dispute_facts.py), and the one way back, for states written before the facts
were kept.

`wire_payload` is the only writer of `additional_evidence`: its keys and shapes are those the
API has always received (tests/unit/evidence/test_wire_unchanged.py holds the bytes). Nothing reads
the payload back into facts except `legacy_facts_from_payload`, for a dispute whose stored
state has a payload and no facts (written by a version before v19 of the state store) or a
payload written by hand. No other module reads `additional_evidence`
(tests/unit/evidence/test_no_payload_reading.py). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from operator import attrgetter
from typing import Any

import orjson

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.evidence.ce3 import ELEMENTS, LABELS, Prior
from dispute_evidence.evidence.dispute_facts import (
    Charge,
    Claim,
    DisputeFacts,
    Number,
    OrderFacts,
    Product,
    Refund,
    ShipmentRow,
    Statement,
    load_facts,
)
from dispute_evidence.evidence.products import Listing

STATEMENT = "merchant_statement"
AS_SOLD = "products_as_sold"
LINE_PRICES = "line_prices"  # where a price the orders export gives none came from
CE3 = "visa_ce3"
CE3_PROGRAM = "Visa Compelling Evidence 3.0"
_ORDER = tuple(f.name for f in fields(OrderFacts))
_SHIPMENT = tuple(f.name for f in fields(ShipmentRow))
_CHARGE = tuple(f.name for f in fields(Charge))
_REFUND = tuple(f.name for f in fields(Refund))


def _filled(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields that carry a value: text not "", a number not None."""
    return {n: v for n in names if (v := getattr(obj, n)) is not None and v != ""}


class _Filled:
    """`_filled` for one record type, its fields read in one C call (the build writes
    100,000 orders' 20 fields: issue 47 item 6)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names, self.values = names, attrgetter(*names)

    def __call__(self, obj: Any) -> dict[str, Any]:
        values = self.values(obj)
        return {n: v for n, v in zip(self.names, values, strict=True) if v is not None and v != ""}


_ORDER_FILLED, _SHIPMENT_FILLED = _Filled(_ORDER), _Filled(_SHIPMENT)
_CLAIM_FILLED = _Filled(("reason", "currency", "amount", "network_reason_code"))


def wire_payload(facts: DisputeFacts) -> dict[str, Any]:
    """The Evidence the API receives, as plain data (canonical JSON: builder.canonical_json)."""
    extra = _ORDER_FILLED(facts.order)
    if facts.shipments:
        extra["shipments"] = [_SHIPMENT_FILLED(s) for s in facts.shipments]
    if claim := _CLAIM_FILLED(facts.claim):
        extra["dispute"] = claim
    if facts.charges:
        extra["payments"] = [_filled(c, _CHARGE) for c in facts.charges]
    if facts.refunds:
        extra["refunds"] = [_filled(r, _REFUND) for r in facts.refunds]
    if facts.statement:
        extra[STATEMENT] = {"text": facts.statement.text, "from": facts.statement.source}
    if facts.as_sold:
        extra[AS_SOLD] = [_listing(x) for x in facts.as_sold]
    if facts.other_purchases:  # a duplicate claim's other charge: another order's (issue 44)
        extra["other_purchases"] = [_plain(p) for p in facts.other_purchases]
    if facts.activity:  # the account's use, from the access log (issue 44 item 10)
        extra["account_activity"] = {
            "events": [_plain(a) for a in facts.activity],
            "total": max(facts.activity_total, len(facts.activity)),
        }
    if said := [p for p in facts.products if p.price_from]:
        extra[LINE_PRICES] = [
            {"product_title": p.title, "price": p.price, "source": p.price_from} for p in said
        ]
    if facts.ce3_priors:
        ce3: dict[str, Any] = {"program": CE3_PROGRAM}
        if facts.ce3_disputed is not None:
            ce3["disputed_transaction"] = _prior(facts.ce3_disputed, matched=False)
        ce3["prior_transactions"] = [_prior(p) for p in facts.ce3_priors]
        extra[CE3] = ce3
    evidence: dict[str, Any] = {
        "products": [
            {
                "product_title": p.title,
                "price": p.price,
                "quantity": p.quantity,
                "currency_code": p.currency,
            }
            for p in facts.products
        ],
        "shipping_tracking_numbers": list(facts.tracking_numbers),
        "additional_evidence": extra,
    }
    if facts.merchant:
        evidence["merchant_profile"] = facts.merchant.model_dump()
    return evidence


def _plain(obj: Any) -> dict[str, Any]:
    """A small facts record as the wire writes it: its filled fields, tuples as lists."""
    return {
        n: list(v) if isinstance(v, tuple) else v
        for n, v in _filled(obj, tuple(f.name for f in fields(obj))).items()
        if v != ()
    }


def wire_fields(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """A wire payload's top-level fields and its additional_evidence's side by side (to name
    what changed between two versions sent; never read back into facts)."""
    flat = {**evidence, **_mapping(evidence.get("additional_evidence"))}
    flat.pop("additional_evidence", None)
    return flat


def _listing(x: Listing) -> dict[str, Any]:
    said = {
        "title": x.title,
        "sku": x.sku,
        "description": x.description,
        "vendor": x.vendor,
        "product_type": x.product_type,
        "image_urls": list(x.images),
    }
    return {k: v for k, v in said.items() if v}


def _prior(p: Prior, matched: bool = True) -> dict[str, Any]:
    """One order of a CE 3.0 case: its date and amount, what it matches the disputed order on
    (a prior's), and each element's value as exported (shown side by side)."""
    entry: dict[str, Any] = {"order_number": p.order_number, "date": p.date}
    if p.amount == p.amount:  # (not NaN: an amount is known)
        entry["amount"] = int(p.amount) if float(p.amount).is_integer() else round(p.amount, 2)
        if p.currency:
            entry["currency"] = p.currency
    if matched:
        entry["matched"] = [LABELS[m] for m in p.matched]
    entry.update((key, value) for key, value in p.values if value)
    return entry


# -- the legacy path: a payload with no facts kept beside it ---------------------------------
def stored_facts(facts_json: bytes | None, payload: bytes | None) -> DisputeFacts:
    """A stored dispute's facts: those kept beside its payload (state v19 on), else, for a
    payload stored before, read from it by the legacy path."""
    if facts_json:
        return load_facts(facts_json)
    return legacy_facts_from_payload(orjson.loads(payload) if payload else {})


def legacy_facts_from_payload(payload: Mapping[str, Any]) -> DisputeFacts:
    """The facts of a payload stored without them (a state from before v19, or a payload
    written by hand): the one place the wire payload is read back. Lenient as the case always
    was with a payload: a value of the wrong type is read as text or a number, or left out."""
    extra = _mapping(payload.get("additional_evidence"))
    claim = _mapping(extra.get("dispute"))
    said = _mapping(extra.get(STATEMENT))
    return DisputeFacts(
        order=_typed(OrderFacts, extra, order_number=_text(extra.get("order_number"))),
        products=tuple(
            Product(
                _text(p.get("product_title")),
                _number(p.get("price")),
                _number(p.get("quantity")),
                _text(p.get("currency_code")),
            )
            for p in _mappings(payload.get("products"))
        ),
        tracking_numbers=tuple(_text(t) for t in payload.get("shipping_tracking_numbers") or ()),
        shipments=tuple(_typed(ShipmentRow, s) for s in _mappings(extra.get("shipments"))),
        claim=_typed(Claim, claim),
        charges=tuple(_typed(Charge, c) for c in _mappings(extra.get("payments"))),
        refunds=tuple(_typed(Refund, r) for r in _mappings(extra.get("refunds"))),
        statement=Statement(_text(said.get("text")), _text(said.get("from")))
        if said.get("text")
        else None,
        as_sold=tuple(
            _legacy_listing(x) for x in _mappings(extra.get(AS_SOLD)) if x.get("description")
        ),
        ce3_priors=tuple(
            _legacy_prior(p) for p in _mappings(_mapping(extra.get(CE3)).get("prior_transactions"))
        ),
        ce3_disputed=(
            _legacy_prior(disputed)
            if (disputed := _mapping(_mapping(extra.get(CE3)).get("disputed_transaction")))
            else None
        ),
        merchant=_legacy_merchant(payload.get("merchant_profile")),
    )


def _typed(kind: Any, row: Mapping[str, Any], **given: Any) -> Any:
    """A facts type from a wire mapping: each field's value as text or a number."""
    values = dict(given)
    for f in fields(kind):
        if f.name in values or f.name not in row:
            continue
        read = _number if "Number" in str(f.type) else _text  # the field's declared type
        values[f.name] = read(row[f.name])
    return kind(**values)


def _legacy_merchant(merchant: Any) -> MerchantProfile | None:
    """The merchant profile sent, each of its fields as text ("" when a payload lacks one)."""
    if not isinstance(merchant, Mapping):
        return None
    return MerchantProfile(**{k: _text(merchant.get(k)) for k in MerchantProfile.model_fields})


def _legacy_listing(x: Mapping[str, Any]) -> Listing:
    return Listing(
        _text(x.get("title")),
        _text(x.get("description")),
        _text(x.get("vendor")),
        _text(x.get("product_type")),
        tuple(_text(u) for u in x.get("image_urls") or ()),
        _text(x.get("sku")),
    )


def _legacy_prior(p: Mapping[str, Any]) -> Prior:
    keys = {label: key for key, label in LABELS.items()}
    matched = tuple(keys[m] for m in p.get("matched") or () if m in keys)
    amount = _number(p.get("amount"))
    values = tuple((k, _text(p.get(k))) for k in ELEMENTS if p.get(k))
    return Prior(
        _text(p.get("order_number")),
        _text(p.get("date")),
        float(amount or 0),
        _text(p.get("currency")),
        matched,
        values,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value or () if isinstance(v, Mapping)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return str(value or "")


def _number(value: Any) -> Number | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value if value == value else None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return f if f == f else None
