"""Build time at N and 4N disputes, most without order lines (the "did you mean" path).

Shared by tests/unit/evidence/test_did_you_mean.py (a ratio, never a timed threshold) and
`python -m bench ingest`, which prints the same ratio at a larger N.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

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


def _seconds(records: dict[str, pd.DataFrame], clock: Callable[[], float]) -> float:
    t0 = clock()
    build_evidence(records)
    return clock() - t0


def growth_ratio(
    folder: Path, n: int, repeats: int = 3, clock: Callable[[], float] = time.process_time
) -> tuple[float, float, float]:
    """(seconds at n, seconds at 4n, their ratio): about 4 for a linear build, 16 for a
    quadratic one. Each the fastest of `repeats`, the two sizes taking turns so both meet the
    same spells of load. CPU time by default: on a busy shared machine wall-clock ratios of a
    linear build were seen at 8.2 (the small run in a quiet spell), CPU-time ratios at 4-4.5."""
    small = hint_heavy_records(folder / f"n{n}", n)
    large = hint_heavy_records(folder / f"n{4 * n}", 4 * n)
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        times[0].append(_seconds(small, clock))
        times[1].append(_seconds(large, clock))
    best_small, best_large = min(times[0]), min(times[1])
    return best_small, best_large, best_large / best_small
