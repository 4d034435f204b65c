"""Mastercard's Excessive Fraud Merchant (EFM), from a single secondary source
(../shared/spec/monitoring-programs.md: confirm with your acquirer). A month meets it when, on
Mastercard, it has at least 1,000 transactions, at least USD 50,000 of fraud chargebacks
(4837/4863 and the other fraud reasons), fraud chargebacks of at least 0.50% of its sales (by
amount), and under 10% of its volume 3-D Secure authenticated; the merchant is identified the
month after.

Counted from the exports where they hold the figures: the disputes' amounts (USD only: no rate
is guessed for another currency), the charges' amounts, and a 3-D Secure flag. One criterion
that fails is enough to say "not met"; where the figures for one are missing and the others
hold, the verdict says what is missing. Pure: records in, one verdict per month out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dispute_evidence.networks import MASTERCARD

MIN_TRANSACTIONS = 1000
MIN_FRAUD_USD = 50_000.0
MIN_FRAUD_TO_SALES = 0.50  # percent, by amount
MAX_SECURE_SHARE = 10.0  # percent of volume 3-D Secure authenticated (50% in regulated markets)
SECURE = frozenset({"true", "yes", "y", "1", "authenticated", "succeeded", "attempt_acknowledged"})
SOURCE = "single secondary source: confirm with your acquirer"


@dataclass(frozen=True)
class Sales:
    """Mastercard's settled sales per month from the payments export: their USD amount and
    how many were 3-D Secure authenticated; None where the export has no such column."""

    usd: pd.Series | None  # month -> USD amount
    secure_share: pd.Series | None  # month -> percent of the volume authenticated


def mastercard_sales(settled: pd.DataFrame) -> Sales:
    """From settled charges (month, network, and where exported amount, currency, 3-D Secure)."""
    mc = settled.loc[settled["network"] == MASTERCARD.key]
    usd = None
    if "amount" in mc and "currency" in mc:
        is_usd = mc["currency"].astype(str).str.upper() == "USD"
        amounts = pd.to_numeric(mc["amount"], errors="coerce").where(is_usd)
        usd = amounts.groupby(mc["month"]).sum(min_count=1)
    share = None
    if "three_d_secure" in mc and (mc["three_d_secure"].astype(str).str.strip() != "").any():
        secure = mc["three_d_secure"].astype(str).str.strip().str.lower().isin(SECURE)
        share = secure.groupby(mc["month"]).mean() * 100
    return Sales(usd, share)


def efm_verdicts(
    table: pd.DataFrame, disputes: pd.DataFrame, sales: Sales | None
) -> dict[str, str]:
    """Per Mastercard month of `table`: 'met', 'not met' or 'possible', with why, in words.
    `disputes`: the chargebacks (month, network, fraud, amount_usd: NaN where not in USD)."""
    fraud = disputes.loc[(disputes["network"] == MASTERCARD.key) & disputes["fraud"].astype(bool)]
    per_month = fraud.groupby("month")
    usd = per_month["amount_usd"].sum(min_count=1) if "amount_usd" in fraud else pd.Series()
    unpriced = per_month["amount_usd"].apply(lambda a: int(a.isna().sum())) if len(fraud) else None
    rows = table.loc[table["network"] == MASTERCARD.key]
    # EFM reads the month's own transactions: the table's Mastercard cell is last month's
    own = dict(zip(rows["month"], rows["transactions"].shift(-1), strict=True))
    return {
        str(month): _verdict(
            own.get(month),
            float(usd.get(month, 0.0) or 0.0),
            int(unpriced.get(month, 0)) if unpriced is not None else 0,
            _get(sales.usd if sales else None, month),
            _get(sales.secure_share if sales else None, month),
        )
        for month in rows["month"]
    }


def _get(series: pd.Series | None, month: object) -> float | None:
    if series is None or month not in series.index:
        return None
    value = series.get(month)
    return None if value is None or value != value else float(value)


def _verdict(
    transactions: float | None,
    fraud_usd: float,
    unpriced: int,
    sales_usd: float | None,
    secure: float | None,
) -> str:
    """The month's EFM verdict from its figures (None: the exports do not hold it)."""
    failed, missing = [], []
    if transactions is None or transactions != transactions:
        missing.append("the month's Mastercard transactions (the next month's row holds them)")
    elif transactions < MIN_TRANSACTIONS:
        failed.append(f"{int(transactions):,} Mastercard transactions, under {MIN_TRANSACTIONS:,}")
    if fraud_usd < MIN_FRAUD_USD and not unpriced:
        failed.append(f"${fraud_usd:,.0f} of fraud chargebacks, under ${MIN_FRAUD_USD:,.0f}")
    elif fraud_usd < MIN_FRAUD_USD:
        missing.append(f"the USD amount of {unpriced:,} fraud chargeback(s)")
    if sales_usd is None:
        missing.append("the charges' USD amounts (fraud-to-sales)")
    elif sales_usd > 0 and fraud_usd / sales_usd * 100 < MIN_FRAUD_TO_SALES:
        failed.append(f"fraud-to-sales {fraud_usd / sales_usd:.2%}, under {MIN_FRAUD_TO_SALES}%")
    if secure is None:
        missing.append("a 3-D Secure flag on the charges")
    elif secure >= MAX_SECURE_SHARE:
        failed.append(f"{secure:.0f}% of the volume 3-D Secure authenticated, not under 10%")
    if failed:
        return f"EFM not met ({'; '.join(failed)}; {SOURCE})"
    if missing:
        return f"EFM possible: the other criteria hold; not in your exports: {', '.join(missing)} ({SOURCE})"
    return f"EFM met: Mastercard may name you Excessive Fraud Merchant the month after ({SOURCE})"


def usd_amounts(amount: pd.Series, currency: pd.Series) -> pd.Series:
    """Each amount in USD, NaN where it is in another currency or none (no rate is guessed)."""
    values = pd.to_numeric(amount, errors="coerce")
    return values.where(currency.astype(str).str.strip().str.upper() == "USD", np.nan)
