"""Validation of the update-evidence body, naming the offending `param` like real APIs do."""

from __future__ import annotations

import re
from typing import Any

EVIDENCE_KEYS = ("products", "merchant_profile", "shipping_tracking_numbers", "additional_evidence")
PRODUCT_KEYS = ("product_title", "price", "quantity", "currency_code")
MERCHANT_KEYS = ("merchant_id", "merchant_name", "merchant_website")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class Invalid(Exception):
    """A request field is missing or malformed."""

    def __init__(self, param: str, message: str, code: str = "parameter_invalid"):
        super().__init__(message)
        self.param, self.message, self.code = param, message, code


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def validate_update_body(body: Any) -> tuple[str, dict[str, Any]]:
    """Return (provider_dispute_id, evidence) or raise Invalid."""
    if not isinstance(body, dict):
        raise Invalid("body", "The request body must be a JSON object.")
    pid = body.get("provider_dispute_id")
    if pid is None:
        raise Invalid(
            "provider_dispute_id",
            "Missing required param: provider_dispute_id.",
            "parameter_missing",
        )
    if not isinstance(pid, str) or not pid.strip():
        raise Invalid("provider_dispute_id", "provider_dispute_id must be a non-empty string.")
    unknown = sorted(set(body) - {"provider_dispute_id", "evidence"})
    if unknown:
        raise Invalid(unknown[0], f"Received unknown parameter: {unknown[0]}.", "parameter_unknown")
    evidence = body.get("evidence")
    if evidence is None:
        raise Invalid("evidence", "Missing required param: evidence.", "parameter_missing")
    _validate_evidence(evidence)
    return pid, evidence


def _validate_evidence(ev: Any) -> None:
    if not isinstance(ev, dict):
        raise Invalid("evidence", "evidence must be an object.")
    for key in ev:
        if key not in EVIDENCE_KEYS:
            raise Invalid(
                f"evidence.{key}",
                f"Received unknown parameter: evidence.{key}.",
                "parameter_unknown",
            )
    if "products" in ev:
        _validate_products(ev["products"])
    if "merchant_profile" in ev:
        _validate_strings_object(ev["merchant_profile"], "evidence.merchant_profile", MERCHANT_KEYS)
    if "shipping_tracking_numbers" in ev:
        stn = ev["shipping_tracking_numbers"]
        if not isinstance(stn, list):
            raise Invalid("evidence.shipping_tracking_numbers", "Must be an array of strings.")
        for i, t in enumerate(stn):
            if not isinstance(t, str) or not t.strip():
                raise Invalid(
                    f"evidence.shipping_tracking_numbers[{i}]", "Must be a non-empty string."
                )
    if "additional_evidence" in ev and not isinstance(ev["additional_evidence"], dict):
        raise Invalid("evidence.additional_evidence", "additional_evidence must be an object.")


def _validate_products(products: Any) -> None:
    if not isinstance(products, list):
        raise Invalid("evidence.products", "products must be an array.")
    for i, p in enumerate(products):
        where = f"evidence.products[{i}]"
        if not isinstance(p, dict):
            raise Invalid(where, "Each product must be an object.")
        for key in p:
            if key not in PRODUCT_KEYS:
                raise Invalid(
                    f"{where}.{key}",
                    f"Received unknown parameter: {where}.{key}.",
                    "parameter_unknown",
                )
        for key in PRODUCT_KEYS:
            if key not in p:
                raise Invalid(
                    f"{where}.{key}", f"Missing required param: {where}.{key}.", "parameter_missing"
                )
        if not isinstance(p["product_title"], str) or not p["product_title"].strip():
            raise Invalid(f"{where}.product_title", "product_title must be a non-empty string.")
        if not _is_number(p["price"]) or p["price"] < 0:
            raise Invalid(f"{where}.price", "price must be a number >= 0.")
        if not _is_number(p["quantity"]) or p["quantity"] <= 0:
            raise Invalid(f"{where}.quantity", "quantity must be a number > 0.")
        if not isinstance(p["currency_code"], str) or not _CURRENCY.match(p["currency_code"]):
            raise Invalid(
                f"{where}.currency_code",
                "currency_code must be a three-letter ISO code (e.g. USD).",
            )


def _validate_strings_object(obj: Any, where: str, allowed: tuple[str, ...]) -> None:
    if not isinstance(obj, dict):
        raise Invalid(where, f"{where} must be an object.")
    for key, value in obj.items():
        if key not in allowed:
            raise Invalid(
                f"{where}.{key}", f"Received unknown parameter: {where}.{key}.", "parameter_unknown"
            )
        if not isinstance(value, str):
            raise Invalid(f"{where}.{key}", f"{where}.{key} must be a string.")
