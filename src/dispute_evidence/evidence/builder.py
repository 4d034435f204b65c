"""Build one complete Evidence payload per provider_dispute_id from all records known so far.

Deterministic: the same records give byte-identical JSON and the same content hash.
Rules for data that arrives in pieces: shipments accumulate, one entry per tracking number
(the latest export's status and dates win); charges accumulate, the latest export of each
winning; an order's line items come from the latest file that lists that order (a re-export
replaces an earlier one); a dispute's order comes from the latest file naming the dispute,
and two different orders for one dispute in that file are a conflict, rejected with both
sources named. "Latest file" is the latest ingest, not a file name.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
import pandas as pd

from dispute_evidence.api.models import Evidence, MerchantProfile
from dispute_evidence.evidence.ce3 import Ce3, History, is_fraud
from dispute_evidence.evidence.payments import (
    PAYMENT_NUMBERS,
    PAYMENT_TEXT,
    due_from_payments,
    payment_facts,
    payments_by_order,
)
from dispute_evidence.ingest.tables import Reject
from dispute_evidence.names import did_you_mean

TEXT_FACTS = (
    "order_date",
    "customer_name",
    "customer_email",
    "billing_address",
    "shipping_address",
    "payment_reference",
    "financial_status",
    "fulfillment_status",
    "shipping_method",
)
NUMBER_FACTS = ("order_total", "refunded_amount")
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
    body: bytes  # canonical JSON of the evidence
    content_hash: str

    @property
    def evidence(self) -> Evidence:
        """The payload as the API model (validated here; the client validates again on send)."""
        return Evidence.model_validate_json(self.body)


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
    # charges a payments export shows as disputed and awaiting a response, whose order no
    # dispute in the disputes list names: a dispute the analyst may not know about
    unlisted_disputes: list[Reject] = field(default_factory=list)
    # every fraud dispute's Visa CE 3.0 verdict (evidence/ce3.py), by provider_dispute_id
    ce3: dict[str, Ce3] = field(default_factory=dict)


def canonical_json(evidence: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON with sorted keys: the bytes whose sha256 is the content hash."""
    return orjson.dumps(evidence, option=orjson.OPT_SORT_KEYS)


def _number(value: Any) -> int | float | None:
    if value is None or value == "" or (isinstance(value, float) and value != value):
        return None
    f = float(value)
    return int(f) if f.is_integer() else round(f, 6)


def _latest_by(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """Rows of `frame` whose file is the latest (last in order) to mention their `key`."""
    if frame.empty:
        return frame
    version = _file_version(frame)
    last = version.groupby(frame[key].to_numpy(), sort=False).transform("last")
    return frame.loc[version.to_numpy() == last.to_numpy()]


def _file_version(frame: pd.DataFrame) -> pd.Series:
    """Which file each record came from, in arrival order. From the state store that is the
    ingest sequence: Shopify names every export orders_export_1.csv, so a name is no identity."""
    if "_seq" in frame:
        return frame["_seq"].astype("int64")
    return pd.Series(pd.factorize(frame["_file"].astype(str))[0], index=frame.index)


def _dispute_orders(disputes: pd.DataFrame) -> tuple[pd.DataFrame, list[Reject]]:
    latest = _latest_by(disputes, "provider_dispute_id")
    per = latest.groupby("provider_dispute_id", sort=False)["order_number"].nunique()
    conflicted = set(per[per > 1].index)
    rejects = []
    for pid in sorted(conflicted):
        rows = latest.loc[latest["provider_dispute_id"] == pid].to_dict("records")
        named = "; ".join(f"order {r['order_number']} ({r['_file']} row {r['_row']})" for r in rows)
        for r in rows:
            rejects.append(
                Reject(
                    r["_file"],
                    r["_sheet"],
                    int(r["_row"]),
                    "order_number",
                    r["order_number"],
                    f"dispute {pid} is mapped to more than one order: {named}; keep one",
                )
            )
    ok = latest.loc[~latest["provider_dispute_id"].isin(conflicted)]
    return ok.drop_duplicates("provider_dispute_id", keep="last"), rejects


def _numbers(values: pd.Series) -> list[int | float | None]:
    """Python numbers for JSON: whole values as int (2, not 2.0), others rounded to 6 places."""
    arr = pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    out: list[int | float | None] = np.round(arr, 6).tolist()
    whole = np.isfinite(arr) & (np.mod(arr, 1) == 0)
    for i in np.flatnonzero(whole).tolist():
        out[i] = int(arr[i])
    for i in np.flatnonzero(~np.isfinite(arr)).tolist():
        out[i] = None
    return out


def _columns(
    frame: pd.DataFrame, text: tuple[str, ...], numeric: tuple[str, ...]
) -> dict[str, list[Any]]:
    cols: dict[str, list[Any]] = {c: frame[c].astype(str).tolist() for c in text}
    cols.update({c: _numbers(frame[c]) for c in numeric})
    return cols


def _groups(codes: np.ndarray) -> dict[int, list[int]]:
    """Positions of each code, in their original (stable) order (list slices: far cheaper
    than 100,000 NumPy views)."""
    if len(codes) == 0:
        return {}
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    ends = np.r_[starts[1:], len(order)].tolist()
    positions = order.tolist()
    return {
        code: positions[a:b]
        for code, a, b in zip(sorted_codes[starts].tolist(), starts.tolist(), ends, strict=True)
    }


def _index_by_order(
    disputes: pd.DataFrame, orders: pd.DataFrame, ships: pd.DataFrame
) -> tuple[Any, ...]:
    """Orders and shipments of the disputed orders only, grouped by order number.

    One factorize over every order number (integer codes), then NumPy: much faster than string
    isin + groupby over a million rows. An order's lines come from the latest file listing it."""
    nd, no = len(disputes), len(orders)
    keys = pd.concat(
        [disputes["order_number"], orders["order_number"], ships["order_number"]], ignore_index=True
    )
    codes, uniques = pd.factorize(keys.astype(str))
    wanted = np.zeros(len(uniques), dtype=bool)
    wanted[codes[:nd]] = True
    ocodes, scodes = codes[nd : nd + no], codes[nd + no :]
    keep = wanted[ocodes]
    if keep.any():  # latest file per order: files are numbered in the order records arrived
        file_no = _file_version(orders).to_numpy()
        latest = np.full(len(uniques), -1)
        np.maximum.at(latest, ocodes[keep], file_no[keep])
        keep &= file_no == latest[ocodes]
    orders = orders.loc[keep].reset_index(drop=True)
    skeep = wanted[scodes]
    # a tracking number's latest row wins (Monday "In transit", Tuesday "Delivered")
    if skeep.any():
        sub = ships.loc[skeep, ["order_number", "tracking_number"]]
        stale = (sub.duplicated(keep="last") & (sub["tracking_number"] != "")).to_numpy()
        skeep[np.flatnonzero(skeep)[stale]] = False
    ships = ships.loc[skeep].reset_index(drop=True)
    disputed = np.unique(codes[:nd])  # one vectorised take, not 100k Index lookups
    by_code = dict(zip(disputed.tolist(), uniques.take(disputed).astype(str).tolist(), strict=True))
    order_groups = {by_code[c]: rows for c, rows in _groups(ocodes[keep]).items()}
    ship_groups = {by_code[c]: rows for c, rows in _groups(scodes[skeep]).items()}
    return orders, order_groups, ships, ship_groups


def build_evidence(
    records: dict[str, pd.DataFrame], merchant: MerchantProfile | None = None
) -> BuildResult:
    """Payloads for every dispute whose order is known; the rest are listed as incomplete."""
    disputes, conflicts = _dispute_orders(records["disputes"])
    orders, order_rows, ships, ship_rows = _index_by_order(
        disputes, records["orders"], records["shipments"]
    )
    order_cols = _columns(orders, ("product_title", "currency_code"), ("price", "quantity"))
    order_facts = _order_facts(orders, order_rows)
    ship_cols = _columns(ships, SHIPMENT_FACTS, ())
    ship_entries = [  # one dict per shipment row, made in one pass; shared, never mutated
        {f: v for f, v in zip(SHIPMENT_FACTS, row, strict=True) if v}
        for row in zip(*(ship_cols[f] for f in SHIPMENT_FACTS), strict=True)
    ]
    pays, pay_rows, unlisted = payments_by_order(disputes, order_facts, records.get("payments"))
    pay_cols = _columns(pays, (*PAYMENT_TEXT, "dispute_evidence_due"), PAYMENT_NUMBERS)
    profile = merchant.model_dump() if merchant else None
    payloads, incomplete = [], []
    claimed = set(disputes["order_number"])

    @functools.cache
    def unclaimed_orders() -> frozenset[str]:  # for "did you mean": orders no dispute names
        return frozenset(set(records["orders"]["order_number"].astype(str)) - claimed)

    disputes = disputes.sort_values("provider_dispute_id")
    network_codes = _network_codes(disputes)
    history = functools.cache(lambda: History.from_records(records))  # fraud disputes only
    ce3: dict[str, Ce3] = {}
    columns = (
        "provider_dispute_id",
        "order_number",
        "response_due_by",
        "reason",
        "currency",
        "amount",
    )
    for pid, order_number, due, reason, currency, amount in zip(
        *(disputes[c].tolist() for c in columns), strict=True
    ):
        charges = pay_rows.get(order_number, [])
        due = due or due_from_payments(charges, pay_cols)
        lines = order_rows.get(order_number)
        if lines is None:
            why = f"no order lines for order {order_number} yet: drop the orders export"
            if hint := did_you_mean(order_number, unclaimed_orders(), cutoff=0.75):
                why += f"{hint.rstrip(')')}: check the order number in the disputes list)"
            incomplete.append(Incomplete(pid, order_number, due, why))
            continue
        evidence = _evidence(
            order_number,
            lines,
            ship_rows.get(order_number, ()),
            order_cols,
            order_facts[order_number],
            ship_entries,
            profile,
        )
        if dispute := _dispute_facts(reason, currency, amount):
            evidence["additional_evidence"]["dispute"] = dispute
        if code := network_codes.get(pid):
            evidence["additional_evidence"].setdefault("dispute", {})["network_reason_code"] = code
        if charges:
            evidence["additional_evidence"]["payments"] = payment_facts(charges, pay_cols)
        if is_fraud(reason):
            ce3[pid] = history().check(order_number)
            if ce3[pid].qualifies:  # on top of the normal evidence: the fallback if refused
                evidence["additional_evidence"]["visa_ce3"] = ce3[pid].evidence()
        body = canonical_json(evidence)
        payloads.append(
            DisputePayload(pid, order_number, due, body, hashlib.sha256(body).hexdigest())
        )
    return BuildResult(payloads, incomplete, conflicts, unlisted, ce3)


def _order_facts(
    orders: pd.DataFrame, order_rows: dict[str, list[int]]
) -> dict[str, dict[str, Any]]:
    """Order-level facts per order, read from its first line only (a quarter of the rows)."""
    firsts = np.fromiter(
        (rows[0] for rows in order_rows.values()), dtype=np.int64, count=len(order_rows)
    )
    cols = _columns(orders.iloc[firsts], TEXT_FACTS, NUMBER_FACTS)
    texts = zip(*(cols[f] for f in TEXT_FACTS), strict=True)
    numbers = zip(*(cols[f] for f in NUMBER_FACTS), strict=True)
    out = {}
    for order, text, number in zip(order_rows, texts, numbers, strict=True):
        facts = {f: v for f, v in zip(TEXT_FACTS, text, strict=True) if v}
        facts.update((f, v) for f, v in zip(NUMBER_FACTS, number, strict=True) if v is not None)
        out[order] = facts
    return out


def _network_codes(disputes: pd.DataFrame) -> dict[str, str]:
    """The card network's reason code (e.g. Visa 10.4) where the disputes list gives one."""
    if "network_reason_code" not in disputes:  # a state written before the column existed
        return {}
    codes = disputes["network_reason_code"].fillna("").astype(str).str.strip()
    return dict(zip(disputes["provider_dispute_id"], codes, strict=True)) if codes.any() else {}


def _dispute_facts(reason: Any, currency: Any, amount: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if reason:
        facts["reason"] = reason
    if currency:
        facts["currency"] = currency
    if amount not in (None, "") and amount == amount:
        facts["amount"] = _number(amount)
    return facts


def _evidence(
    order_number: str,
    lines: list[int],
    shipments: Any,
    oc: dict[str, list[Any]],
    order_facts: dict[str, Any],
    ship_entries: list[dict[str, str]],
    merchant: dict[str, str] | None,
) -> dict[str, Any]:
    """The Evidence input as plain data: rows were validated at ingest, so no model per dispute."""
    titles, prices, qtys, currencies = (
        oc["product_title"],
        oc["price"],
        oc["quantity"],
        oc["currency_code"],
    )
    products = [
        {
            "product_title": titles[i],
            "price": prices[i],
            "quantity": qtys[i],
            "currency_code": currencies[i],
        }
        for i in lines
    ]
    facts: dict[str, Any] = {"order_number": order_number, **order_facts}
    if "order_total" in facts:
        facts["order_currency"] = currencies[lines[0]]
    tracking: list[str] = []
    shipment_facts: list[dict[str, str]] = []
    for i in shipments:
        entry = ship_entries[i]
        if entry and entry not in shipment_facts:
            shipment_facts.append(entry)
        if (t := entry.get("tracking_number")) and t not in tracking:
            tracking.append(t)
    if shipment_facts:
        facts["shipments"] = shipment_facts
    evidence: dict[str, Any] = {
        "products": products,
        "shipping_tracking_numbers": tracking,
        "additional_evidence": facts,
    }
    if merchant:
        evidence["merchant_profile"] = merchant
    return evidence
