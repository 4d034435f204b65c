"""Build time at N and 4N disputes, most without order lines (the "did you mean" path).

Shared by tests/evidence/test_did_you_mean.py (a ratio, never a timed threshold) and
`python -m bench ingest`, which prints the same ratio at a larger N.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from dispute_evidence.evidence import build_evidence
from dispute_evidence.ingest import ingest_paths


def hint_heavy_records(folder: Path, n: int) -> dict[str, pd.DataFrame]:
    """n disputes, one in ten with order lines; the orders export lists 2n orders, so the
    rest (half a near miss of an unclaimed order, half far from any) each ask for a hint."""
    folder.mkdir(parents=True, exist_ok=True)
    orders = list(range(100_000, 100_000 + 2 * n))
    pd.DataFrame({
        "Order Number": orders, "Product Title": "Shirt", "Price": 9.5, "Quantity": 1, "Currency Code": "USD",
    }).to_csv(folder / "orders.csv", index=False)  # fmt: skip
    named = []
    for i in range(n):
        if i % 10 == 0:
            named.append(str(orders[i]))  # has lines
        elif i % 2:  # close to an unclaimed order: hinted
            s = str(orders[n + i])
            named.append(f"INV{s}" if i % 4 == 1 else f"{s}9")
        else:
            named.append(str(9_000_000 + i))  # two edits from any order: no hint
    pd.DataFrame({
        "provider_dispute_id": [f"dp_{i}" for i in range(n)], "order_number": named,
        "amount": 1000, "currency": "USD", "reason": "fraudulent", "response_due_by": "2026-12-24",
    }).to_csv(folder / "disputes.csv", index=False)  # fmt: skip
    return ingest_paths([folder / "orders.csv", folder / "disputes.csv"], folder).records


def build_seconds(records: dict[str, pd.DataFrame], repeats: int = 3) -> tuple[float, Any]:
    """The fastest of `repeats` builds (the least disturbed by other work), and its result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = build_evidence(records)
        best = min(best, time.perf_counter() - t0)
    return best, result


def growth_ratio(folder: Path, n: int, repeats: int = 3) -> tuple[float, float, float]:
    """(seconds at n, seconds at 4n, their ratio): about 4 for a linear build, 16 for a
    quadratic one."""
    small, _ = build_seconds(hint_heavy_records(folder / f"n{n}", n), repeats)
    large, _ = build_seconds(hint_heavy_records(folder / f"n{4 * n}", 4 * n), repeats)
    return small, large, large / small
