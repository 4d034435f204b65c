"""Seed disputes: generated with realistic values, or loaded from a JSON/CSV file."""

from __future__ import annotations

import csv
import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from dispute_evidence.sandbox.ids import iso, new_id, utcnow

# Weighted as card networks report them: fraud and non-receipt dominate.
REASONS = {
    "fraudulent": 40,
    "product_not_received": 25,
    "product_unacceptable": 12,
    "subscription_canceled": 8,
    "duplicate": 5,
    "credit_not_processed": 5,
    "unrecognized": 3,
    "general": 2,
}
STATUSES = {"needs_response": 85, "warning_needs_response": 10, "under_review": 5}
CURRENCIES = {"USD": 55, "EUR": 20, "GBP": 10, "CAD": 6, "AUD": 5, "JPY": 4}
PROVIDERS = {"stripe": 60, "paypal": 25, "adyen": 15}
CLOSED_STATUSES = frozenset({"won", "lost", "charge_refunded"})


def _pick(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def generate_disputes(
    n: int, seed: int | None = None, now: datetime | None = None
) -> list[dict[str, Any]]:
    """`n` disputes with weighted reasons/statuses/currencies and deadlines 3-21 days ahead."""
    rng = random.Random(seed)
    now = now or utcnow()
    rows = []
    for _ in range(n):
        currency = _pick(rng, CURRENCIES)
        major = round(rng.lognormvariate(4.2, 0.9), 2)
        amount = int(major) if currency == "JPY" else int(round(major * 100))
        initiated = now - timedelta(days=rng.randint(1, 20), seconds=rng.randint(0, 86399))
        rows.append(
            {
                "provider_dispute_id": new_id("dp", rng),
                "initiated_at": iso(initiated),
                "response_due_by": iso(
                    now + timedelta(days=rng.randint(3, 21), hours=rng.randint(0, 23))
                ),
                "amount": max(amount, 50),
                "currency": currency,
                "reason": _pick(rng, REASONS),
                "status": _pick(rng, STATUSES),
                "provider": _pick(rng, PROVIDERS),
            }
        )
    return rows


def load_seed_file(path: Path, now: datetime | None = None) -> list[dict[str, Any]]:
    """Disputes from a JSON list or a CSV; only `provider_dispute_id` is required per row.

    Missing fields get realistic defaults (status needs_response, deadline 14 days ahead).
    """
    if path.suffix.lower() == ".json":
        raw = json.loads(path.read_text(encoding="utf-8"))
    else:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            raw = list(csv.DictReader(fh))
    now = now or utcnow()
    out = []
    for i, item in enumerate(raw, start=1):
        pid = str(item.get("provider_dispute_id") or "").strip()
        if not pid:
            raise ValueError(f"{path}: entry {i} has no provider_dispute_id")
        defaults = {
            "initiated_at": iso(now - timedelta(days=2)),
            "response_due_by": iso(now + timedelta(days=14)),
            "amount": 1000,
            "currency": "USD",
            "reason": "general",
            "status": "needs_response",
            "provider": "stripe",
        }
        row = {**defaults, **{k: v for k, v in item.items() if v not in (None, "")}}
        row["provider_dispute_id"] = pid
        out.append(row)
    return out
