"""The merchant's standing: each month's dispute ratio per card network, against the card
programs' thresholds (Visa VAMP, Mastercard ECM; `[standing]`, ../shared/spec/monitoring-
programs.md). Pure: records in, a table and plain lines out; no state, no network.

- Transactions: settled charges of the payments export, by card brand (succeeded; a charge
  never captured or voided never settled; a refund after capture is still a settled sale).
  Without a payments export: the orders export's orders, network `all` (no brand known).
- Disputes: each in the month it opened (the API's `initiated_at` once read, else the payments
  export's dispute date, else the disputes list's), by the disputed charge's card brand, else
  the network its reason code belongs to.
- Fraud reports (issuers' early fraud warnings, TC40/SAFE): from a fraud-warnings sheet, in
  the month reported, by the reported charge's brand.

Visa (and `all`): (fraud reports + disputes) / settled transactions of the same month.
Mastercard: this month's chargebacks / LAST month's transactions (its `transactions` cell is
that denominator). Amex and Discover: disputes / the month's transactions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from dispute_evidence.evidence.ce3 import members
from dispute_evidence.evidence.ce3_coverage import Coverage
from dispute_evidence.policies import STANDING_NETWORKS, StandingPolicy

COLUMNS = [
    "month",
    "network",
    "transactions",
    "disputes",
    "fraud_reports",
    "ratio_percent",
    "threshold_percent",
    "status",
]
# what-if and plain words, beside the file's columns (the page, the sheet's second tab)
WHAT_IF = ["ratio_without_ce3_percent", "projected_percent", "projected_events", "note"]
NAMES = {
    "visa": "Visa",
    "mastercard": "Mastercard",
    "amex": "American Express",
    "discover": "Discover",
    "all": "all cards",
}
FRAUD_COUNTED = frozenset({"visa", "all"})  # VAMP counts fraud reports; the others do not
LAST_MONTH_DENOMINATOR = frozenset({"mastercard"})
# a charge or order in these states never settled (voided, refunded before capture, failed)
NOT_SETTLED = frozenset(
    {"failed", "canceled", "cancelled", "voided", "void", "uncaptured", "pending",
     "authorized", "authorised", "expired", "requires_payment_method", "requires_capture",
     "requires_action", "requires_confirmation", "processing", "blocked"}
)  # fmt: skip
FALSE = frozenset({"false", "no", "0", "n", "f"})
_BRANDS = {
    "visa": "visa",
    "mastercard": "mastercard",
    "mc": "mastercard",
    "americanexpress": "amex",
    "amex": "amex",
    "discover": "discover",
}
_VISA_CODE = re.compile(r"^1[0-3]\.\d{1,2}$")
_MASTERCARD_CODE = re.compile(r"^4[89]\d\d$")
_AMEX_CODE = re.compile(r"^([ACMPR]\d{2}|F\d{2}|FR\d)$")
_DISCOVER_CODE = re.compile(r"^(UA\d{2}|AA|AP|AW|CD|DP|IC|IN|LP|NF|PM|RG|RM|RN2|TF)$")
_MONTH = re.compile(r"^\d{4}-\d{2}")
# a dispute resolved before it became a chargeback: an inquiry or retrieval (Stripe's
# `warning_*`: it becomes needs_response if it escalates) or one a prevention program such as
# RDR resolved (`prevented`). The programs count chargebacks: these are left out.
EARLY = re.compile(r"^(warning_\w*|prevented|inquiry\w*|retrieval\w*|rdr\w*)$")


@dataclass(frozen=True)
class StandingInputs:
    """What the state holds, as records: None for an export never given."""

    disputes: pd.DataFrame
    payments: pd.DataFrame | None = None
    orders: pd.DataFrame | None = None
    fraud: pd.DataFrame | None = None  # None: no fraud-warnings sheet; empty: one listing none
    opened: Mapping[str, str] = field(default_factory=dict)  # pid -> the API's initiated_at
    ce3_qualified: frozenset[str] = frozenset()  # fraud disputes CE 3.0 covers (VAMP omits)
    api_status: Mapping[str, str] = field(default_factory=dict)  # pid -> the API's status
    # settled transactions already counted (the engine keeps them night to night); then
    # `payments` need hold only the charges disputes and fraud reports name
    counted: Counted | None = None


@dataclass(frozen=True)
class Counted:
    """Settled transactions per (month, network) ('' where unknown), counted before: from the
    payments export by card brand (`by_brand`), else from the orders export as `all`."""

    by_brand: bool
    counts: pd.DataFrame  # month, network, transactions


@dataclass
class Standing:
    table: pd.DataFrame  # COLUMNS + WHAT_IF, month then network
    notes: list[str]  # where the counts come from, and what they cannot see
    coverage: Coverage | None = None  # CE 3.0 coverage of the order history (ce3_coverage.py)

    def file_rows(self) -> pd.DataFrame:
        return self.table[COLUMNS]


def card_network(brand: pd.Series) -> pd.Series:
    """visa|mastercard|amex|discover from a card brand as exports write it ('' otherwise)."""
    codes, brands = pd.factorize(brand.astype(str))  # a handful of brands: work on those
    key = pd.Series(brands, dtype=object).str.lower().str.replace(r"[^a-z]", "", regex=True)
    networks = np.append(key.map(_BRANDS).fillna("").to_numpy(dtype=object), "")
    return pd.Series(networks[codes], index=brand.index, dtype=object).astype(str)


def code_network(code: pd.Series) -> pd.Series:
    """The network a reason code belongs to (Visa 10.4, Mastercard 4853, Amex F29, Discover
    UA02), '' when it names none."""
    text = code.astype(str).str.strip().str.upper()
    out = pd.Series("", index=code.index, dtype=object)
    for net, pattern in (("visa", _VISA_CODE), ("mastercard", _MASTERCARD_CODE),
                         ("amex", _AMEX_CODE), ("discover", _DISCOVER_CODE)):  # fmt: skip
        out = out.mask((out == "") & text.str.match(pattern), net)
    return out.astype(str)


def month_of(when: pd.Series) -> pd.Series:
    """YYYY-MM of ISO dates as the ingest writes them ('' when not a date)."""
    text = when.astype(str)
    return text.str.slice(0, 7).where(text.str.match(_MONTH), "")


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    if name in frame:
        return frame[name].fillna("").astype(str)
    return pd.Series("", index=frame.index, dtype=object)


def settled_charges(payments: pd.DataFrame) -> pd.DataFrame:
    """One row per settled charge: its month and network ('' for another brand)."""
    p = payments.drop_duplicates("payment_id", keep="last")
    status = _col(p, "payment_status").str.strip().str.lower().str.replace(" ", "_")
    never = status.isin(NOT_SETTLED) | _col(p, "captured").str.strip().str.lower().isin(FALSE)
    p = p.loc[~never]
    return pd.DataFrame({"month": month_of(_col(p, "paid_at")),
                         "network": card_network(_col(p, "card_brand"))})  # fmt: skip


def settled_orders(orders: pd.DataFrame) -> pd.DataFrame:
    """One row per order that settled (not voided, not only authorised), network `all`."""
    o = orders.drop_duplicates("order_number", keep="last")
    status = _col(o, "financial_status").str.strip().str.lower().str.replace(" ", "_")
    o = o.loc[~status.isin(NOT_SETTLED)]
    return pd.DataFrame({"month": month_of(_col(o, "order_date")), "network": "all"})


def transaction_counts(settled: pd.DataFrame) -> pd.DataFrame:
    """Rows of settled_charges / settled_orders counted per (month, network)."""
    counted = settled.groupby(["month", "network"], sort=False).size()
    return counted.rename("transactions").reset_index()


def transaction_delta(
    rows: pd.DataFrame, seen: int, settle: Callable[[pd.DataFrame], pd.DataFrame]
) -> pd.DataFrame:
    """How the counts of `settle`d transactions change when the rows ingested after ingest
    `seen` arrive: `rows` are every version (`_seq`) of the keys those rows touch, in ingest
    order; the latest version of each key counts, so a row dropped again with a new date or
    status moves or removes its key's count. Month, network, transactions (+/-)."""
    after = transaction_counts(settle(rows))
    before = transaction_counts(settle(rows.loc[rows["_seq"].astype("int64") <= seen]))
    both = pd.concat([after, before.assign(transactions=-before["transactions"])])
    change = both.groupby(["month", "network"], sort=False)["transactions"].sum()
    return change.loc[change != 0].reset_index()


def disputed_charge_ids(payments: pd.DataFrame) -> tuple[set[str], set[str]]:
    """The charges whose latest row says they were disputed, and those whose latest does not."""
    c = _charge_disputes(payments)
    return set(c.loc[c["disputed"], "payment_id"]), set(c.loc[~c["disputed"], "payment_id"])


def counted_transactions(inputs: StandingInputs) -> Counted:
    """The inputs' settled transactions counted: by card brand from the payments export, else
    the orders export's as `all`."""
    if inputs.counted is not None:
        return inputs.counted
    if inputs.payments is not None and not inputs.payments.empty:
        return Counted(True, transaction_counts(settled_charges(inputs.payments)))
    if inputs.orders is not None and not inputs.orders.empty:
        return Counted(False, transaction_counts(settled_orders(inputs.orders)))
    return Counted(False, pd.DataFrame(columns=["month", "network", "transactions"]))


def _disputed_charges(payments: pd.DataFrame | None) -> pd.DataFrame:
    """Per order number: the disputed charge's brand network, dispute date and dispute status
    (the charge with a dispute, else the order's last charge)."""
    if payments is None or payments.empty:
        return pd.DataFrame(
            columns=["network", "date", "status"], index=pd.Index([], name="order_number")
        )
    p = _charge_disputes(payments)
    p = p.sort_values("disputed", kind="stable").drop_duplicates("order_number", keep="last")
    return p.set_index(p["order_number"].astype(str))[["network", "date", "status"]]


def _charge_disputes(payments: pd.DataFrame) -> pd.DataFrame:
    """Each charge (its latest row) with its network and what the export says of a dispute."""
    p = (
        payments.drop_duplicates("payment_id", keep="last")
        if "payment_id" in payments
        else payments
    )
    status = _col(p, "dispute_status").str.strip().str.lower()
    return pd.DataFrame({
        "payment_id": _col(p, "payment_id"), "order_number": _col(p, "order_number"),
        "network": card_network(_col(p, "card_brand")), "date": _col(p, "dispute_date"),
        "status": status,
        "disputed": (_col(p, "dispute_reason") != "") | (_col(p, "dispute_date") != "")
        | (status != ""),
    })  # fmt: skip


def dispute_events(inputs: StandingInputs, by_brand: bool) -> pd.DataFrame:
    """One row per dispute: its month ('' unknown), network ('' unknown), its order, whether
    CE 3.0 covers it, whether it was resolved before a chargeback (`early`) and whether only
    the payments export knows it (`unlisted`)."""
    d = inputs.disputes.drop_duplicates("provider_dispute_id", keep="last")
    pids = d["provider_dispute_id"].astype(str)
    orders = _col(d, "order_number")
    charge = _disputed_charges(inputs.payments).reindex(orders.to_numpy())
    charge.index = d.index
    opened = pids.map(inputs.opened).fillna("").astype(str)
    when = opened.where(opened != "", charge["date"].fillna("").astype(str))
    when = when.where(when != "", _col(d, "dispute_date"))
    if by_brand:
        network = charge["network"].fillna("").astype(str)
        network = network.where(network != "", code_network(_col(d, "network_reason_code")))
    else:
        network = pd.Series("all", index=d.index)
    status = pids.map(inputs.api_status).fillna("").astype(str).str.strip().str.lower()
    status = status.where(status != "", charge["status"].fillna("").astype(str))
    listed = pd.DataFrame({"month": month_of(when), "network": network, "order_number": orders,
                           "ce3": pids.isin(inputs.ce3_qualified), "early": is_early(status),
                           "unlisted": False})  # fmt: skip
    return pd.concat([listed, _unlisted(inputs, set(orders))], ignore_index=True)


def is_early(status: pd.Series) -> pd.Series:
    """Whether each status says the dispute was resolved before it became a chargeback."""
    return status.fillna("").astype(str).str.strip().str.lower().str.match(EARLY)


def _unlisted(inputs: StandingInputs, listed_orders: set[str]) -> pd.DataFrame:
    """Disputes the payments export shows on a charge (Dispute Date, Reason or Status) whose
    order the disputes list does not name: in the month of the charge's dispute date."""
    if inputs.payments is None or inputs.payments.empty:
        return pd.DataFrame(
            columns=["month", "network", "order_number", "ce3", "early", "unlisted"]
        )
    c = _charge_disputes(inputs.payments)
    c = c.loc[c["disputed"] & ~(c["order_number"].isin(listed_orders) & (c["order_number"] != ""))]
    return pd.DataFrame({"month": month_of(c["date"]), "network": c["network"],
                         "order_number": c["order_number"], "ce3": False,
                         "early": is_early(c["status"]), "unlisted": True})  # fmt: skip


def fraud_events(inputs: StandingInputs, by_brand: bool, ce3_orders: set[str]) -> pd.DataFrame:
    """One row per fraud report: its month, network, and whether CE 3.0 covers its dispute."""
    f = inputs.fraud if inputs.fraud is not None else pd.DataFrame()
    if f.empty:
        return pd.DataFrame(columns=["month", "network", "ce3"])
    order = _col(f, "order_number")
    network = pd.Series("all", index=f.index)
    if by_brand and inputs.payments is not None:
        p = inputs.payments  # the reported charges only: a year of charges is large
        p = p.loc[members(p["payment_id"], _col(f, "payment_id"))]
        p = p.drop_duplicates("payment_id", keep="last")
        brands = pd.Series(card_network(_col(p, "card_brand")).to_numpy(), index=p["payment_id"])
        orders = pd.Series(_col(p, "order_number").to_numpy(), index=p["payment_id"])
        charge = _col(f, "payment_id")
        network = charge.map(brands).fillna("").astype(str)
        order = order.where(order != "", charge.map(orders).fillna("").astype(str))
    return pd.DataFrame({"month": month_of(_col(f, "reported_at")), "network": network,
                         "ce3": order.isin(ce3_orders) & (order != "")})  # fmt: skip


def _months(first: str, last: str) -> list[str]:
    return [str(p) for p in pd.period_range(first, last, freq="M")]


def _counts(
    tx: pd.DataFrame, disputes: pd.DataFrame, fraud: pd.DataFrame, early: pd.DataFrame
) -> pd.DataFrame:
    """transactions (`tx`: counted per month and network), disputes, fraud_reports, the CE
    3.0-covered ones and the disputes left out (resolved before a chargeback) per (month,
    network), every month from the first to the last, zeros where nothing happened."""
    parts = {
        "disputes": disputes,
        "early_disputes": early,
        "fraud_reports": fraud,
        "ce3_disputes": disputes.loc[disputes["ce3"].astype(bool)],
        "ce3_fraud": fraud.loc[fraud["ce3"].astype(bool)] if not fraud.empty else fraud,
    }
    counted = {
        name: part.loc[_counted(part)].groupby(["month", "network"]).size()
        for name, part in parts.items()
    }
    kept = tx.loc[_counted(tx)]
    transactions = kept.groupby(["month", "network"])["transactions"].sum()
    frame = pd.DataFrame({"transactions": transactions, **counted}).fillna(0).astype(int)
    if frame.empty:
        return frame
    months = frame.index.get_level_values("month")
    networks = sorted(set(frame.index.get_level_values("network")), key=network_order)
    full = pd.MultiIndex.from_product(
        [_months(months.min(), months.max()), networks], names=["month", "network"]
    )
    return frame.reindex(full, fill_value=0)


def _counted(part: pd.DataFrame) -> pd.Series:
    """The rows with a month and one of the programs' networks (or `all`)."""
    return (part["month"] != "") & part["network"].isin([*STANDING_NETWORKS, "all"])


def network_order(net: str) -> int:
    order = [*STANDING_NETWORKS, "all"]
    return order.index(net) if net in order else len(order)


def standing(
    inputs: StandingInputs, policy: StandingPolicy, now: datetime | None = None
) -> Standing:
    """Each month's ratio per network against its program, with what-if columns and notes."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    counted = counted_transactions(inputs)
    by_brand, tx = counted.by_brand, counted.counts
    disputes = dispute_events(inputs, by_brand)
    ce3_orders = set(disputes.loc[disputes["ce3"], "order_number"]) - {""}
    fraud = fraud_events(inputs, by_brand, ce3_orders)
    counts = _counts(tx, disputes.loc[~disputes["early"].astype(bool)], fraud,
                     disputes.loc[disputes["early"].astype(bool)])  # fmt: skip
    table = _ratios(counts, policy, now) if not counts.empty else _empty()
    return Standing(table, _notes(inputs, by_brand, tx, disputes, fraud))


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=[*COLUMNS, *WHAT_IF])


def _ratios(counts: pd.DataFrame, policy: StandingPolicy, now: datetime) -> pd.DataFrame:
    c = counts.reset_index()
    net, month = c["network"], c["month"]
    fraud_in = net.isin(FRAUD_COUNTED)
    events = c["disputes"] + c["fraud_reports"].where(fraud_in, 0)
    covered = c["ce3_disputes"] + c["ce3_fraud"].where(fraud_in, 0)
    last_month = c.groupby("network")["transactions"].shift(1)  # months are consecutive
    denominator = c["transactions"].where(~net.isin(LAST_MONTH_DENOMINATOR), last_month)
    has = denominator.fillna(0) > 0
    ratio = (events / denominator * 100).where(has)
    threshold = pd.Series([policy.threshold(n, m) for n, m in zip(net, month, strict=True)],
                          dtype=float)  # fmt: skip
    floor = net.map(policy.floor)
    over = (ratio >= threshold) & (events >= floor)
    watch = ratio >= policy.warn_percent
    pace = _pace(month, now)
    projected_events = events / pace
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
            "status": np.select([over.to_numpy(), watch.to_numpy()], ["over", "watch"], "ok"),
            "ratio_without_ce3_percent": ((events - covered) / denominator * 100)
            .where(has)
            .round(3),
            "projected_percent": (projected_events / projected_denominator * 100)
            .where(has)
            .round(3),
            "projected_events": projected_events.round().astype(int),
            "left_out": c["early_disputes"],
        }
    )
    out["note"] = [_row_note(r, policy, now) for r in out.itertuples(index=False)]
    return out.drop(columns="left_out")


def _pace(month: pd.Series, now: datetime) -> pd.Series:
    """The share of each month gone by: 1 for a past month, the elapsed part of this one."""
    start = pd.Timestamp(now.year, now.month, 1, tz="UTC")
    length = (start + pd.offsets.MonthBegin(1)) - start
    elapsed = max((pd.Timestamp(now) - start) / length, 1 / (31 * 24))  # never divide by 0
    return pd.Series(np.where(month == start.strftime("%Y-%m"), elapsed, 1.0), index=month.index)


def _row_note(r: Any, policy: StandingPolicy, now: datetime) -> str:
    """Plain words for one row: why no ratio, a floor that keeps it from `over`, the pace."""
    net, month = str(r.network), str(r.month)
    name, ratio = NAMES.get(net, net), r.ratio_percent
    threshold = r.threshold_percent
    parts = []
    if ratio != ratio:  # NaN: nothing to divide by
        if net in LAST_MONTH_DENOMINATOR:
            parts.append(f"no {name} transactions the month before in your exports: no ratio "
                         "(Mastercard divides by last month's)")  # fmt: skip
        else:
            parts.append("no transactions in your exports for this month: no ratio")
    elif threshold == threshold and ratio >= threshold and r.status != "over":
        floor = policy.floor(net)
        parts.append(f"over {name}'s {threshold:g}% but below its {floor:,}-a-month floor: the "
                     "program does not name you, your acquirer may")  # fmt: skip
    if r.left_out:
        parts.append(f"{r.left_out:,} dispute(s) resolved before a chargeback (inquiry, RDR) "
                     "left out")  # fmt: skip
    if month == now.strftime("%Y-%m"):
        projected = r.projected_percent
        at_pace = (
            f": at this pace {projected:.2f}% by the month's end" if projected == projected else ""
        )
        parts.append(f"month so far (to {now:%d %B}){at_pace}")
    return "; ".join(parts)


def _notes(
    inputs: StandingInputs,
    by_brand: bool,
    tx: pd.DataFrame,
    disputes: pd.DataFrame,
    fraud: pd.DataFrame,
) -> list[str]:
    """Where the counts come from, and what they leave out, in plain lines."""
    notes = []
    total = int(tx["transactions"].sum())
    if by_brand:
        other = int(tx.loc[tx["network"] == "", "transactions"].sum())
        notes.append(f"transactions: {total:,} settled charge(s) from your payments export, "
                     "by card brand" + (f" ({other:,} on other cards, in no row)" if other else ""))  # fmt: skip
    elif total:
        notes.append(f"transactions: {total:,} order(s) from your orders export (no payments "
                     "export: no card brand, one row per month as 'all', held to Visa's level)")  # fmt: skip
    else:
        notes.append("transactions: no payments or orders export yet: no ratio can be worked out")
    if inputs.fraud is None:
        notes.append("fraud reports: not in your exports; the ratio counts disputes only")
    elif inputs.fraud.empty:
        notes.append("fraud reports: your fraud-warnings sheet lists none")
    else:
        notes.append(f"fraud reports: {len(fraud):,} from your fraud-warnings sheet")
    if unlisted := int(disputes["unlisted"].astype(bool).sum()):
        notes.append(f"{unlisted:,} dispute(s) found only in your payments export (a dispute "
                     "date, reason or status on the charge, not in the disputes list): counted "
                     "in the month of that dispute date")  # fmt: skip
    if early := int(disputes["early"].astype(bool).sum()):
        notes.append(f"{early:,} dispute(s) resolved before they became chargebacks (inquiries "
                     "and retrievals, status warning_*; RDR and other prevention, status "
                     "prevented): left out, as the programs count chargebacks")  # fmt: skip
    if undated := int((disputes["month"] == "").sum()):
        notes.append(f"{undated:,} dispute(s) with no opening date (not read from the API yet, "
                     "no dispute date in your exports): not counted")  # fmt: skip
    if by_brand and (
        unknown := int(((disputes["month"] != "") & (disputes["network"] == "")).sum())
    ):
        notes.append(f"{unknown:,} dispute(s) on no known card brand or reason code: not counted")
    return notes


ATTENTION = ("watch", "over")


def attention_lines(table: pd.DataFrame, now: datetime) -> list[str]:
    """One plain line per network whose month (this one or last: older months are history)
    is at watch or over; none when all is well."""
    this = pd.Period(now.strftime("%Y-%m"), freq="M")
    recent = table.loc[table["month"].isin({str(this), str(this - 1)})]
    recent = recent.loc[recent["status"].isin(ATTENTION)]
    return [status_line(r) for r in recent.itertuples(index=False)]


def status_line(r: Any) -> str:
    """'Visa 2026-11: 2.00% (2 fraud reports and disputes / 100 transactions) is on watch
    (threshold 1.5%)' for one row of the table."""
    name = NAMES.get(str(r.network), str(r.network))
    events = int(r.disputes) + (int(r.fraud_reports) if r.network in FRAUD_COUNTED else 0)
    threshold = r.threshold_percent
    against = f"threshold {threshold:g}%" if threshold == threshold else "no program threshold"
    word = "over the program's threshold" if r.status == "over" else "on watch"
    return (f"{name} {r.month}: {r.ratio_percent:.2f}% ({events:,} fraud reports and disputes / "
            f"{int(r.transactions):,} transactions) is {word} ({against})")  # fmt: skip
