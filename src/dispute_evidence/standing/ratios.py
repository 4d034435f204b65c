"""The standing's figures from its counts (standing/counts.py counts; this module divides):
each month's ratio per network, its status against the program, the acquirer's tier, the
month's estimated fine, whether the merchant is in the program, and the what-ifs.

- Events: VAMP counts fraud reports (TC40) and disputes (TC15). A fraud dispute whose report
  is known counts twice or once (`[standing] fraud_dispute_counts`, sources disagree): both
  figures are kept, the status uses the setting's.
- Status: `over` at the program's threshold with more events than its floor; `watch` at the
  warning level (or over the threshold below the floor); `in program` for a month after one
  `over` until a month below both the threshold and the floor (then the merchant leaves);
  `no ratio` where nothing divides; else `ok`.
- Tier and fine (VAMP only, `[standing]`): the acquirer's highest tier in force the ratio
  reaches; the fine per counted event is the tier's, or the merchant program's when the
  merchant is named (`over` or `in program`), whichever is higher: never both.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd

from dispute_evidence.networks import FRAUD_REPORTS_COUNTED, LAST_MONTH_DENOMINATOR
from dispute_evidence.policies import StandingPolicy

IN_PROGRAM = "in program"
NO_RATIO = "no ratio"


def ratios(counts: pd.DataFrame, policy: StandingPolicy, now: datetime) -> pd.DataFrame:
    """One row per (month, network) of `counts` with its figures (see the module's words)."""
    c = counts.reset_index()
    net, month = c["network"], c["month"]
    fraud_in = net.isin(FRAUD_REPORTS_COUNTED)
    twice = c["disputes"] + c["fraud_reports"].where(fraud_in, 0)
    once = twice - c["reported_disputes"].where(fraud_in, 0)
    events = twice if policy.fraud_dispute_counts == "twice" else once
    covered = c["ce3_disputes"] + c["ce3_fraud"].where(fraud_in, 0)
    last_month = c.groupby("network")["transactions"].shift(1)  # months are consecutive
    denominator = c["transactions"].where(~net.isin(LAST_MONTH_DENOMINATOR), last_month)
    has = denominator.fillna(0) > 0

    def percent(n: pd.Series) -> pd.Series:
        return (n / denominator * 100).where(has).round(3)

    ratio = (events / denominator * 100).where(has)
    threshold = pd.Series(
        [policy.threshold(n, m) for n, m in zip(net, month, strict=True)], dtype=float
    )
    floor = net.map(policy.floor)
    pace = _pace(month, now)
    projected_denominator = denominator.where(net.isin(LAST_MONTH_DENOMINATOR), denominator / pace)
    out = pd.DataFrame(
        {
            "month": month,
            "network": net,
            "transactions": denominator.fillna(0).astype(int),
            "disputes": c["disputes"],
            "fraud_reports": c["fraud_reports"],
            "ratio_percent": ratio.round(3),
            "threshold_percent": threshold,
            "status": "",
            "ratio_without_ce3_percent": percent(events - covered),
            "ratio_counted_twice_percent": percent(twice),
            "ratio_counted_once_percent": percent(once),
            "projected_percent": ((events / pace) / projected_denominator * 100)
            .where(has)
            .round(3),
            "projected_events": (events / pace).round().astype(int),
            "events": events,
            "left_out": c["early_disputes"],
            "raised": c["raised_reports"],
        }
    )
    out["status"] = _statuses(net, ratio, threshold, events, floor, policy.warn_percent)
    out["acquirer_tier"], out["estimated_fine_usd"] = _fines(out, ratio, events, policy)
    ratio_without, events_without = percent(events - covered), events - covered
    without = _statuses(net, ratio_without, threshold, events_without, floor, policy.warn_percent)
    out["fine_without_ce3_usd"] = _fines(
        out.assign(status=without), ratio_without, events_without, policy
    )[1]
    return out


def _statuses(
    network: pd.Series,
    ratio: pd.Series,
    threshold: pd.Series,
    events: pd.Series,
    floor: pd.Series,
    warn: float,
) -> pd.Series:
    """Each month's status; on VAMP's rows, `in program` for each month after an `over` one
    until a month below both the threshold and the floor (its ratio under it, or none; its
    events under it): that month the merchant leaves (ECM's exit is not modelled here)."""
    over = (ratio >= threshold) & (events >= floor)
    watch = (ratio >= warn) | (ratio >= threshold)
    chosen = np.select(
        [ratio.isna().to_numpy(), over.to_numpy(), watch.to_numpy()],
        [NO_RATIO, "over", "watch"],
        "ok",
    )
    status = pd.Series(chosen, index=ratio.index, dtype=object)
    below_both = ~(ratio >= threshold) & (events < floor)
    vamp = network.loc[network.isin(FRAUD_REPORTS_COUNTED)]  # VAMP's exit rule: not ECM's
    for rows in vamp.groupby(vamp, sort=False).groups.values():
        named = False
        for i in rows:
            if status[i] == "over":
                named = True
            elif named and below_both[i]:
                named = False  # one month below both: the merchant leaves
            elif named:
                status[i] = IN_PROGRAM
    return status


def _fines(
    out: pd.DataFrame, ratio: pd.Series, events: pd.Series, policy: StandingPolicy
) -> tuple[pd.Series, pd.Series]:
    """Per row, the acquirer's tier (VAMP rows; '' below the lowest) and the month's estimated
    fine in USD (NaN where no VAMP fine applies: the other programs' are not estimated)."""
    tiers, fines = [], []
    for i, r in enumerate(out.itertuples(index=False)):
        if r.network not in FRAUD_REPORTS_COUNTED:
            tiers.append("")
            fines.append(float("nan"))
            continue
        value = ratio.iloc[i]
        if value != value:  # no ratio: no tier, and no fine can be estimated
            tiers.append("")
            fines.append(float("nan"))
            continue
        tier = policy.tier(float(value), str(r.month))
        named = r.status in ("over", IN_PROGRAM)
        rate = max(tier.fine_usd if tier else 0.0, policy.merchant_fine(r.month) if named else 0.0)
        tiers.append(tier.name if tier else "")
        fines.append(round(rate * int(events.iloc[i]), 2))
    return pd.Series(tiers, index=out.index), pd.Series(fines, index=out.index, dtype=float)


def _pace(month: pd.Series, now: datetime) -> pd.Series:
    """The share of each month gone by: 1 for a past month, the elapsed part of this one."""
    start = pd.Timestamp(now.year, now.month, 1, tz="UTC")
    length = (start + pd.offsets.MonthBegin(1)) - start
    elapsed = max((pd.Timestamp(now) - start) / length, 1 / (31 * 24))  # never divide by 0
    return pd.Series(np.where(month == start.strftime("%Y-%m"), elapsed, 1.0), index=month.index)
