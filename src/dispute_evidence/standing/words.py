"""The standing in plain words (standing/counts.py counts, standing/ratios.py divides): each
row's note, the notes on where the counts come from and what fell in no row, and the one-line
status a run, the alerts and `status` print."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from dispute_evidence.networks import (
    ALL,
    FRAUD_REPORTS_COUNTED,
    LABELS,
    LAST_MONTH_DENOMINATOR,
    PROGRAM_NETWORKS,
    program_of,
)
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.standing.ratios import IN_PROGRAM, NO_RATIO

ATTENTION = ("watch", "over", IN_PROGRAM)


@dataclass(frozen=True)
class Seen:
    """What the counting saw, for the notes: the settled transactions by network, each
    dispute and fraud report as standing/counts.py's events have them."""

    by_brand: bool
    tx: pd.DataFrame  # month, network, transactions
    disputes: pd.DataFrame  # dispute_events
    fraud: pd.DataFrame  # fraud reports: the sheet's and those prevented fraud disputes raised
    sheet: pd.DataFrame | None  # the fraud-warnings sheet (None: none given)
    raised: int  # prevented fraud disputes counted as fraud reports (no report known)
    reported_once: int  # prevented fraud disputes whose report the sheet holds
    left_out: int  # resolved before a chargeback and not fraud under VAMP: left out


def row_note(r: Any, policy: StandingPolicy, now: datetime) -> str:
    """Plain words for one row: why no ratio, a floor that keeps it at watch, the program, the
    tier and fine, both counts of a fraud dispute, a future month, the pace."""
    net, month = str(r.network), str(r.month)
    name = LABELS.get(net, net)
    parts = [*_why_status(r, policy, name), *_cost(r, policy)]
    if r.left_out:
        parts.append(
            f"{r.left_out:,} dispute(s) resolved before a chargeback (inquiry, or "
            "RDR on a non-fraud dispute) left out"
        )
    if r.raised:
        parts.append(
            f"{r.raised:,} fraud dispute(s) RDR resolved counted as fraud reports "
            "(no report in your exports: the issuer filed one to raise each)"
        )
    twice, once = r.ratio_counted_twice_percent, r.ratio_counted_once_percent
    if twice == twice and once == once and twice != once:
        used = "twice" if policy.fraud_dispute_counts == "twice" else "once"
        parts.append(
            f"a fraud dispute with its fraud report counted twice: {twice:.2f}%, once: "
            f"{once:.2f}%; the status uses {used} ([standing] fraud_dispute_counts)"
        )
    if month > now.strftime("%Y-%m"):
        parts.append(
            "a month still to come: your exports date something after today; check the dates"
        )
    elif month == now.strftime("%Y-%m"):
        projected = r.projected_percent
        at_pace = (
            f": at this pace {projected:.2f}% by the month's end" if projected == projected else ""
        )
        parts.append(f"month so far (to {now:%d %B}){at_pace}")
    return "; ".join(parts)


def _why_status(r: Any, policy: StandingPolicy, name: str) -> list[str]:
    net, ratio, threshold = str(r.network), r.ratio_percent, r.threshold_percent
    if r.status == NO_RATIO:
        if net in LAST_MONTH_DENOMINATOR:
            return [
                f"no {name} transactions the month before in your exports: no ratio "
                f"({name} divides by last month's)"
            ]
        return ["no transactions in your exports for this month: no ratio"]
    if threshold == threshold and ratio >= threshold and r.status == "watch":
        floor = policy.floor(net)
        return [
            f"watch, not over: over {name}'s {threshold:g}% but at {int(r.events):,} "
            f"{_counts(net)}, below its {floor:,}-a-month floor; the program does not name "
            "you, your acquirer may"
        ]
    if r.status == IN_PROGRAM:
        return [
            f"still in the program: named in an earlier month, it leaves after one month "
            f"below both its {threshold:g}% and its {policy.floor(net):,}-a-month floor"
        ]
    return []


def _cost(r: Any, policy: StandingPolicy) -> list[str]:
    """The acquirer's tier and the month's estimated fine, in words (VAMP rows only)."""
    fine = r.estimated_fine_usd
    if fine != fine:  # no VAMP fine for this network
        return []
    parts = []
    if r.acquirer_tier:
        parts.append(f"acquirer's tier: {r.acquirer_tier}")
    if r.network == ALL and (r.acquirer_tier or fine > 0):
        parts.append("no card brand known: Visa's tiers over every card's disputes overstate them")
    if fine > 0:
        parts.append(
            f"estimated fine ${fine:,.0f} ({int(r.events):,} counted events; confirm "
            "with your acquirer)"
        )
    without = r.fine_without_ce3_usd
    if without == without and without != fine:
        parts.append(f"without CE 3.0-qualified fraud: ${without:,.0f}")
    return parts


def _counts(network: str) -> str:
    program = program_of(network)
    return program.counts if program else "disputes"


def notes(seen: Seen) -> list[str]:
    """Where the counts come from, and what they leave out, in plain lines."""
    out = [_transactions_note(seen)]
    if seen.sheet is None:
        out.append("fraud reports: not in your exports; the ratio counts disputes only")
    elif seen.sheet.empty:
        out.append("fraud reports: your fraud-warnings sheet lists none")
    else:
        out.append(f"fraud reports: {len(seen.sheet):,} from your fraud-warnings sheet")
    disputes = seen.disputes
    if unlisted := int(disputes["unlisted"].astype(bool).sum()):
        out.append(
            f"{unlisted:,} dispute(s) found only in your payments export (a dispute "
            "date, reason or status on the charge, not in the disputes list): counted "
            "in the month of that dispute date"
        )
    if seen.left_out:
        out.append(
            f"{seen.left_out:,} dispute(s) resolved before they became chargebacks "
            "(inquiries and retrievals, status warning_*; non-fraud disputes RDR or "
            "another prevention program resolved, status prevented): left out, as the "
            "programs count chargebacks; a refund outside a prevention program removes "
            "nothing"
        )
    if seen.raised:
        out.append(
            f"{seen.raised:,} fraud dispute(s) RDR resolved with no fraud report in your "
            "exports: each counted as a fraud report under VAMP (since April 2025 RDR "
            "leaves out only non-fraud disputes; the issuer filed a report to raise "
            "it)"
        )
    if seen.reported_once:
        out.append(
            f"{seen.reported_once:,} fraud dispute(s) RDR resolved whose fraud report "
            "your sheet lists: counted once, as that report"
        )
    if undated := int((disputes["month"] == "").sum()):
        out.append(
            f"{undated:,} dispute(s) with no opening date (not read from the API yet, "
            "no dispute date in your exports): not counted"
        )
    if seen.by_brand:
        out.extend(_no_row(disputes, "dispute(s)"))
        out.extend(_no_row(seen.fraud, "fraud report(s)"))
    return out


def _transactions_note(seen: Seen) -> str:
    tx = seen.tx
    total = int(tx["transactions"].sum())
    if not seen.by_brand:
        if total:
            return (
                f"transactions: {total:,} order(s) from your orders export (no payments "
                "export: no card brand, one row per month as 'all', held to Visa's level)"
            )
        return "transactions: no payments or orders export yet: no ratio can be worked out"
    line = f"transactions: {total:,} settled charge(s) from your payments export, by card brand"
    if other := _elsewhere(tx.groupby("network")["transactions"].sum()):
        line += f"; in no row: {other}"
    if late := [LABELS.get(n, n) for n in sorted(set(tx["network"]) & LAST_MONTH_DENOMINATOR)]:
        line += (
            f"; {' and '.join(late)}: each month's row shows the month before's transactions, "
            "which its ratio divides by"
        )
    return line


def _no_row(events: pd.DataFrame, what: str) -> list[str]:
    """What of `events` (dated) fell on a network no program here counts, or on none."""
    dated = events.loc[events["month"] != ""]
    if dated.empty:
        return []
    other = _elsewhere(dated.groupby("network").size())
    return [f"{what} in no row: {other}"] if other else []


def _elsewhere(per_network: pd.Series) -> str:
    """'3 on JCB, which no program here counts, 2 on no known card brand or reason code' for
    the counts on networks outside the programs."""
    parts = []
    for net, n in sorted(per_network.items(), key=lambda item: (item[0] == "", item[0])):
        if net in PROGRAM_NETWORKS or net == ALL or not n:
            continue
        where = (
            f"on {LABELS[str(net)]}, which no program here counts"
            if net
            else "on no known card brand or reason code"
        )
        parts.append(f"{int(n):,} {where}")
    return ", ".join(parts)


def cost_lines(table: pd.DataFrame) -> list[str]:
    """Per network (and statement descriptor, where the table has them), its latest month with
    an acquirer's tier or an estimated fine, in one line ('Visa 2026-02: acquirer's tier above
    standard; estimated fine $20 (5 counted events)'; 'Visa · SHOP*TWO 2026-02: ...')."""
    priced = table.loc[(table["acquirer_tier"] != "") | (table["estimated_fine_usd"] > 0)]
    if "descriptor" not in priced:
        priced = priced.assign(descriptor="all")
    lines = []
    for (net, named), rows in priced.groupby(["network", "descriptor"], sort=False):
        r = rows.sort_values("month").iloc[-1]
        parts = [f"acquirer's tier {r.acquirer_tier}" if r.acquirer_tier else "no acquirer's tier"]
        fine = float(r.estimated_fine_usd)
        parts.append(f"estimated fine ${fine:,.0f} ({int(r.events):,} counted events)")
        without = float(r.fine_without_ce3_usd)
        if without == without and without != fine:
            parts.append(f"${without:,.0f} without CE 3.0-qualified fraud")
        label = LABELS.get(str(net), str(net)) + ("" if named in ("", "all") else f" · {named}")
        lines.append(f"{label} {r.month}: {'; '.join(parts)}")
    return lines


def attention_lines(table: pd.DataFrame, now: datetime) -> list[str]:
    """One plain line per network whose month (this one or last: older months are history)
    is at watch, over or still in the program; none when all is well."""
    this = pd.Period(now.strftime("%Y-%m"), freq="M")
    recent = table.loc[table["month"].isin({str(this), str(this - 1)})]
    recent = recent.loc[recent["status"].isin(ATTENTION)]
    return [status_line(r) for r in recent.itertuples(index=False)]


def status_line(r: Any) -> str:
    """'Visa 2026-11: 2.00% (2 fraud reports and disputes / 100 transactions) is on watch
    (threshold 1.5%)' for one row of the table; the tier and fine where they apply."""
    net = str(r.network)
    name = LABELS.get(net, net)
    events = int(r.disputes) + (int(r.fraud_reports) if net in FRAUD_REPORTS_COUNTED else 0)
    events = int(getattr(r, "events", events))
    threshold = r.threshold_percent
    against = f"threshold {threshold:g}%" if threshold == threshold else "no program threshold"
    word = {"over": "over the program's threshold", IN_PROGRAM: "still in the program"}.get(
        str(r.status), "on watch"
    )
    if r.status == "watch" and threshold == threshold and r.ratio_percent >= threshold:
        word = "on watch (over the threshold, below the program's count floor)"
    line = (
        f"{name} {r.month}: {r.ratio_percent:.2f}% ({events:,} {_counts(net)} / "
        f"{int(r.transactions):,} transactions) is {word} ({against})"
    )
    tier, fine = getattr(r, "acquirer_tier", ""), getattr(r, "estimated_fine_usd", float("nan"))
    if tier:
        line += f"; acquirer's tier: {tier}"
    if fine == fine and fine > 0:
        line += f"; estimated fine ${fine:,.0f}"
    return line
