"""Build one complete Evidence payload per provider_dispute_id from all records known so far.

Deterministic: the same records give byte-identical JSON and the same content hash.
Rules for data that arrives in pieces: shipments accumulate (de-duplicated by tracking
number); an order's line items come from the latest file that lists that order (a re-export
replaces an earlier one); a dispute's order comes from the latest file naming the dispute,
and two different orders for one dispute in that file are a conflict, rejected with both
sources named.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.api.models import Evidence, MerchantProfile
from dispute_evidence.ingest.tables import Reject

ORDER_FACTS = ("order_date", "customer_name", "customer_email", "billing_address", "shipping_address",
               "payment_reference", "order_total", "refunded_amount", "financial_status",
               "fulfillment_status", "shipping_method")  # fmt: skip
SHIPMENT_FACTS = (
    "tracking_number",
    "carrier",
    "service",
    "shipped_at",
    "delivered_at",
    "delivery_status",
)


@dataclass(frozen=True)
class DisputePayload:
    provider_dispute_id: str
    order_number: str
    response_due_by: str | None
    evidence: Evidence
    body: bytes  # canonical JSON of the evidence
    content_hash: str


@dataclass(frozen=True)
class Incomplete:
    provider_dispute_id: str
    order_number: str
    response_due_by: str | None
    reason: str


@dataclass
class BuildResult:
    payloads: list[DisputePayload]
    incomplete: list[Incomplete]
    conflicts: list[Reject]


def canonical_json(evidence: Evidence) -> bytes:
    data = evidence.model_dump(mode="json", exclude_none=True)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _number(value: Any) -> int | float | None:
    if value is None or value == "" or (isinstance(value, float) and value != value):
        return None
    f = float(value)
    return int(f) if f.is_integer() else round(f, 6)


def _latest_by(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows of `frame` whose file is the latest (last in order) to mention their `key`."""
    if frame.empty:
        return frame
    last_file = frame.groupby(key, sort=False)["_file"].transform("last")
    return frame.loc[frame["_file"] == last_file]


def _dispute_orders(disputes: pd.DataFrame) -> tuple[pd.DataFrame, list[Reject]]:
    latest = _latest_by(disputes, "provider_dispute_id")
    per = latest.groupby("provider_dispute_id", sort=False)["order_number"].nunique()
    conflicted = set(per[per > 1].index)
    rejects = []
    for pid in sorted(conflicted):
        rows = latest.loc[latest["provider_dispute_id"] == pid].to_dict("records")
        named = "; ".join(f"order {r['order_number']} ({r['_file']} row {r['_row']})" for r in rows)
        for r in rows:
            rejects.append(Reject(r["_file"], r["_sheet"], int(r["_row"]), "order_number", r["order_number"],
                                  f"dispute {pid} is mapped to more than one order: {named}; keep one"))  # fmt: skip
    ok = latest.loc[~latest["provider_dispute_id"].isin(conflicted)]
    return ok.drop_duplicates("provider_dispute_id", keep="last"), rejects


def build_evidence(
    records: dict[str, pd.DataFrame], merchant: MerchantProfile | None = None
) -> BuildResult:
    """Payloads for every dispute whose order is known; the rest are listed as incomplete."""
    disputes, conflicts = _dispute_orders(records["disputes"])
    orders = _latest_by(records["orders"], "order_number")
    ships = records["shipments"]
    order_rows = orders.groupby("order_number", sort=False).indices if not orders.empty else {}
    ship_rows = ships.groupby("order_number", sort=False).indices if not ships.empty else {}
    order_cols = {c: orders[c].tolist() for c in orders.columns}
    ship_cols = {c: ships[c].tolist() for c in ships.columns}
    payloads, incomplete = [], []
    for d in disputes.sort_values("provider_dispute_id").itertuples(index=False):
        due = d.response_due_by or None
        lines = order_rows.get(d.order_number)
        if lines is None:
            incomplete.append(Incomplete(d.provider_dispute_id, d.order_number, due,
                                         f"no order lines for order {d.order_number} yet: drop the orders export"))  # fmt: skip
            continue
        evidence = _evidence(
            d, lines, ship_rows.get(d.order_number, ()), order_cols, ship_cols, merchant
        )
        body = canonical_json(evidence)
        payloads.append(DisputePayload(d.provider_dispute_id, d.order_number, due, evidence, body,
                                       hashlib.sha256(body).hexdigest()))  # fmt: skip
    return BuildResult(payloads, incomplete, conflicts)


def _evidence(d: Any, lines: Any, shipments: Any, oc: dict[str, list], sc: dict[str, list],
              merchant: MerchantProfile | None) -> Evidence:  # fmt: skip
    products = [
        {"product_title": oc["product_title"][i], "price": _number(oc["price"][i]),
         "quantity": _number(oc["quantity"][i]), "currency_code": oc["currency_code"][i]}
        for i in lines
    ]  # fmt: skip
    first = lines[0]
    facts: dict[str, Any] = {"order_number": d.order_number}
    for fact in ORDER_FACTS:
        value = oc[fact][first]
        value = _number(value) if fact in ("order_total", "refunded_amount") else value
        if value not in (None, ""):
            facts[fact] = value
    if "order_total" in facts:
        facts["order_currency"] = oc["currency_code"][first]
    tracking: list[str] = []
    shipment_facts = []
    for i in shipments:
        entry = {f: sc[f][i] for f in SHIPMENT_FACTS if sc[f][i]}
        if entry and entry not in shipment_facts:
            shipment_facts.append(entry)
        if (t := sc["tracking_number"][i]) and t not in tracking:
            tracking.append(t)
    if shipment_facts:
        facts["shipments"] = shipment_facts
    dispute_facts = {k: v for k in ("reason", "amount", "currency") if (v := getattr(d, k)) not in (None, "")
                     and v == v}  # fmt: skip
    if dispute_facts:
        facts["dispute"] = {k: _number(v) if k == "amount" else v for k, v in dispute_facts.items()}
    return Evidence(products=products, merchant_profile=merchant, shipping_tracking_numbers=tracking,
                    additional_evidence=facts)  # fmt: skip
