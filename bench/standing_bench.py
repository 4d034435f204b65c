"""The merchant's standing at scale (issue 40): 1,000,000 orders and 500,000 charges over a
year, 5,000 disputes and 1,000 fraud reports, as the state hands them over (records). Prints
the ratio table's time, the CE 3.0 coverage's (the order history joined with the charges), and
peak memory; the ingest of such exports is `python -m bench ingest`'s figure, beside which the
target is <= 2 s. Figures only: nothing passes or fails here."""

from __future__ import annotations

import resource
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from bench.common import figure, heading

NOW = datetime(2026, 11, 15, tzinfo=UTC)
BRANDS = np.array(["Visa", "MasterCard", "American Express", "Discover"])


def records(
    n_orders: int, n_charges: int, n_disputes: int, n_fraud: int
) -> dict[str, pd.DataFrame]:
    """Orders over the year to NOW, a charge on half of them (card, IP, device on the charge),
    disputes on some charged orders (their dates in the payments export), fraud reports."""
    rng = np.random.default_rng(40)
    numbers = np.arange(100000, 100000 + n_orders).astype(str)
    days = pd.Timestamp(NOW) - pd.to_timedelta(rng.integers(0, 365, n_orders), unit="D")
    dates = days.strftime("%Y-%m-%dT10:00:00Z")
    orders = pd.DataFrame(
        {
            "order_number": numbers,
            "order_date": dates,
            "order_total": 50.0,
            "price": 50.0,
            "quantity": 1,
            "currency_code": "USD",
            "financial_status": "paid",
            "refunded_amount": "",
            "payment_reference": "",
            "customer_email": "a@example.com",
            "card_fingerprint": "",
            "customer_ip": "",
            "device_id": "",
            "customer_account_id": "",
            "shipping_address": "1 Main St",
            "_seq": 1,
        }
    )
    charged = rng.choice(n_orders, n_charges, replace=False)
    cards = rng.integers(0, n_charges // 3, n_charges).astype(str)
    disputed = np.zeros(n_charges, dtype=bool)
    disputed[rng.choice(n_charges, n_disputes, replace=False)] = True
    payments = pd.DataFrame(
        {
            "payment_id": np.char.add("ch_", np.arange(n_charges).astype(str)),
            "payment_intent": "",
            "order_number": numbers[charged],
            "paid_at": np.asarray(dates)[charged],
            "payment_amount": 50.0,
            "amount_refunded": 0.0,
            "currency": "usd",
            "payment_status": "Paid",
            "captured": "true",
            "card_brand": BRANDS[cards.astype(int) % 4],
            "card_fingerprint": np.char.add("fp", cards),
            "customer_ip": "81.2.69.160",
            "device_id": np.where(rng.random(n_charges) < 0.6, "device-0123456789abcdef", ""),
            "customer_account_id": "",
            "customer_email": "a@example.com",
            "dispute_status": "",
            "dispute_reason": np.where(disputed, "fraudulent", ""),
            "dispute_date": np.where(disputed, np.asarray(dates)[charged], ""),
        }
    )
    listed = payments.loc[disputed]
    disputes = pd.DataFrame(
        {
            "provider_dispute_id": np.char.add("dp_", np.arange(n_disputes).astype(str)),
            "order_number": listed["order_number"].to_numpy(),
            "network_reason_code": "",
            "dispute_date": "",
        }
    )
    fraud = payments.sample(n_fraud, random_state=1)[["payment_id", "paid_at"]].rename(
        columns={"paid_at": "reported_at"}
    )
    return {"orders": orders, "payments": payments, "disputes": disputes, "fraud_warnings": fraud}


def run(quick: bool = False) -> None:
    from dispute_evidence.evidence.ce3 import transactions
    from dispute_evidence.policies import StandingPolicy
    from dispute_evidence.standing.ce3_coverage import coverage
    from dispute_evidence.standing.counts import StandingInputs, standing

    n_orders, n_charges = (100_000, 50_000) if quick else (1_000_000, 500_000)
    heading(f"standing: {n_orders:,} orders, {n_charges:,} charges, a year (issue 40)")
    data = records(n_orders, n_charges, n_charges // 100, n_charges // 500)
    inputs = StandingInputs(
        disputes=data["disputes"],
        payments=data["payments"],
        orders=data["orders"],
        fraud=data["fraud_warnings"],
    )
    t0, c0 = time.perf_counter(), time.process_time()
    result = standing(inputs, StandingPolicy(), NOW)
    ratios, ratios_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    covered = coverage(transactions(data, shown=False), NOW)
    ce3, ce3_cpu = time.perf_counter() - t0, time.process_time() - c0
    # CPU beside wall: on a machine others share, the wall clock also counts their work
    figure("ratios per month and network (s, wall / CPU)", f"{ratios:.2f} / {ratios_cpu:.2f}")
    figure("CE 3.0 coverage (s, wall / CPU)", f"{ce3:.2f} / {ce3_cpu:.2f}")
    figure(
        "standing in all (s, wall / CPU)",
        f"{ratios + ce3:.2f} / {ratios_cpu + ce3_cpu:.2f}",
        "target <= 2 s beside the ingest",
    )
    figure("rows of the table / active cards", f"{len(result.table)} / {covered.active_cards:,}")
    figure(
        "peak memory (MB, max RSS of this process)",
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f}",
    )
