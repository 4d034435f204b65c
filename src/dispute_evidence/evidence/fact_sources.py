"""Where each kind of fact in a payload came from (file, sheet and row), for the letter's
appendix: the dispute's row in the disputes list, the order's first line, the charges and
shipments it cites, and the earlier orders a Visa CE 3.0 claim names. Pure: records in.

The latest record wins, as in the builder ("latest" is the latest ingest)."""

from __future__ import annotations

import pandas as pd

from dispute_evidence.evidence.dispute_facts import DisputeFacts

MAX_ROWS = 4  # rows named per file; more are counted


Place = tuple[str, str, int]  # file, sheet, row


def _where(places: list[Place]) -> str:
    """'orders.csv, row 4' or 'shipments.xlsx, sheet Sheet1, rows 3 and 5' per file."""
    per: dict[tuple[str, str], list[str]] = {}
    for file, sheet, row in places:
        rows = per.setdefault((file, sheet), [])
        if str(row) not in rows:
            rows.append(str(row))
    parts = []
    for (file, sheet), rows in per.items():
        more = f" and {len(rows) - MAX_ROWS} more" if len(rows) > MAX_ROWS else ""
        label = "row " if len(rows) == 1 else "rows "
        in_sheet = f", sheet {sheet}" if sheet else ""
        parts.append(f"{file}{in_sheet}, {label}{', '.join(rows[:MAX_ROWS])}{more}")
    return "; ".join(parts)


def _places(frame: pd.DataFrame, key: str, wanted: set[str], keep: str) -> dict[str, Place]:
    """Where each wanted key's record is: the latest ingest's first (or last) row."""
    rows = frame.loc[frame[key].astype(str).isin(wanted)]
    if not rows.empty and "_seq" in rows:
        rows = rows.loc[rows["_seq"] == rows.groupby(key)["_seq"].transform("max")]
    rows = rows.drop_duplicates(key, keep=keep)
    sheets = rows["_sheet"].fillna("").astype(str) if "_sheet" in rows else [""] * len(rows)
    return {
        str(k): (str(f), str(sh), int(r))
        for k, f, sh, r in zip(rows[key], rows["_file"], sheets, rows["_row"], strict=True)
    }


def fact_sources(
    records: dict[str, pd.DataFrame], payloads: dict[str, DisputeFacts]
) -> dict[str, dict[str, str]]:
    """Per dispute (provider_dispute_id -> its facts): source key -> where it came from."""
    keys = {pid: _keys(pid, p) for pid, p in payloads.items()}
    wanted = source_keys(payloads)
    wanted["order"] |= wanted.pop("history")
    payments, refunds = records.get("payments"), records.get("refunds")
    at = {
        "dispute": _places(records["disputes"], "provider_dispute_id", wanted["dispute"], "last"),
        "order": _places(records["orders"], "order_number", wanted["order"], "first"),
        "payments": _places(payments, "payment_id", wanted["payments"], "last")
        if payments is not None and not payments.empty
        else {},
        "shipments": _places(records["shipments"], "tracking_number", wanted["shipments"], "last"),
        "refunds": _places(refunds, "order_number", wanted["refunds"], "last")
        if refunds is not None and not refunds.empty
        else {},
    }
    at["history"] = at["order"]
    out = {}
    for pid, k in keys.items():
        found = {kind: [at[kind][x] for x in xs if x in at[kind]] for kind, xs in k.items()}
        out[pid] = {kind: _where(places) for kind, places in found.items() if places}
    return out


def source_keys(payloads: dict[str, DisputeFacts]) -> dict[str, set[str]]:
    """The record keys these disputes' facts rest on, per kind (dispute, order, payments,
    shipments, history): the rows fact_sources looks at, so a caller may read only those."""
    wanted: dict[str, set[str]] = {
        k: set() for k in ("dispute", "order", "payments", "shipments", "history", "refunds")
    }
    for pid, p in payloads.items():
        for kind, values in _keys(pid, p).items():
            wanted[kind] |= set(values)
    return wanted


def _keys(pid: str, facts: DisputeFacts) -> dict[str, list[str]]:
    """The record keys a dispute's facts rest on, per source kind."""
    order = facts.order.order_number
    return {
        "dispute": [pid],
        "order": [order],
        "payments": [c.payment_id for c in facts.charges],
        "shipments": list(facts.tracking_numbers),
        "history": [p.order_number for p in facts.ce3_priors],
        "refunds": [order] if facts.refunds else [],
    }
