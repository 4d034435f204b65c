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

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pandas as pd

from dispute_evidence.networks import ALL, FRAUD_REPORTS_COUNTED, LABELS, MASTERCARD
from dispute_evidence.policies import STANDING_NETWORKS, StandingPolicy
from dispute_evidence.standing.ce3_coverage import Coverage
from dispute_evidence.standing.descriptors import (
    EVERY,
    descriptor_note,
    descriptor_of,
    descriptors,
    of_descriptor,
)
from dispute_evidence.standing.efm import Sales, efm_verdicts, mastercard_sales
from dispute_evidence.standing.events import charge_disputes, dispute_events, fraud_events
from dispute_evidence.standing.fraud_checks import fraud_checks
from dispute_evidence.standing.inputs import Counted, StandingInputs, card_network, col, month_of
from dispute_evidence.standing.ratios import ratios
from dispute_evidence.standing.words import Seen, attention_lines, notes, row_note, status_line

__all__ = ["Counted", "StandingInputs", "attention_lines", "status_line"]

COLUMNS = [
    "month",
    "network",
    "descriptor",  # the statement descriptor (descriptors.py): `all` for every one together
    "transactions",
    "disputes",
    "fraud_reports",
    "ratio_percent",
    "threshold_percent",
    "status",
    "acquirer_tier",
    "estimated_fine_usd",
]
# what-if and plain words, beside the file's columns (the page, the sheet's second tab)
WHAT_IF = [
    "ratio_without_ce3_percent",
    "fine_without_ce3_usd",
    "ratio_counted_twice_percent",
    "ratio_counted_once_percent",
    "events",
    "projected_percent",
    "projected_events",
    "note",
    "efm",  # Mastercard's Excessive Fraud Merchant, where the exports can tell (standing/efm.py)
]
NAMES = LABELS
FRAUD_COUNTED = FRAUD_REPORTS_COUNTED  # VAMP counts fraud reports; the others do not
# a charge or order in these states never settled (voided, refunded before capture, failed)
NOT_SETTLED = frozenset(
    {
        "failed",
        "canceled",
        "cancelled",
        "voided",
        "void",
        "uncaptured",
        "pending",
        "authorized",
        "authorised",
        "expired",
        "requires_payment_method",
        "requires_capture",
        "requires_action",
        "requires_confirmation",
        "processing",
        "blocked",
    }
)
FALSE = frozenset({"false", "no", "0", "n", "f"})
BY = ["month", "network", "descriptor"]  # what settled transactions are counted by


@dataclass
class Standing:
    table: pd.DataFrame  # COLUMNS + WHAT_IF, month then network, every descriptor together
    notes: list[str]  # where the counts come from, and what they cannot see
    coverage: Coverage | None = None  # CE 3.0 coverage of the order history (ce3_coverage.py)
    # the same per statement descriptor, where the payments export names two or more
    by_descriptor: pd.DataFrame = field(default_factory=lambda: _empty())
    fraud_checks: pd.DataFrame | None = None  # per fraud dispute: 3-D Secure, Visa's rules

    def rows(self) -> pd.DataFrame:
        """Every row: each month and network, all descriptors together, then each alone."""
        if self.by_descriptor.empty:
            return self.table
        both = pd.concat([self.table, self.by_descriptor], ignore_index=True)
        rank = both["network"].map(network_order) * 2 + (both["descriptor"] != EVERY)
        order = both.assign(_rank=rank).sort_values(["month", "_rank", "descriptor"], kind="stable")
        return order.drop(columns="_rank").reset_index(drop=True)

    def file_rows(self) -> pd.DataFrame:
        return self.rows()[COLUMNS]


def settled_charges(payments: pd.DataFrame) -> pd.DataFrame:
    """One row per settled charge: its month and network ('' for another brand)."""
    p = payments.drop_duplicates("payment_id", keep="last")
    status = col(p, "payment_status").str.strip().str.lower().str.replace(" ", "_")
    never = status.isin(NOT_SETTLED) | col(p, "captured").str.strip().str.lower().isin(FALSE)
    p = p.loc[~never]
    return pd.DataFrame(
        {
            "month": month_of(col(p, "paid_at")),
            "network": card_network(col(p, "card_brand")),
            "descriptor": descriptor_of(col(p, "statement_descriptor")),
        }
    )


def _settled_sales(payments: pd.DataFrame, charges: pd.DataFrame) -> Sales:
    """Mastercard's settled sales by month, where the export holds amounts and 3-D Secure
    (`charges`: settled_charges(payments), whose index is the payments')."""
    settled = charges.loc[charges["network"] == MASTERCARD.key]
    m = payments.loc[settled.index]
    if "payment_amount" in m:
        settled = settled.assign(amount=col(m, "payment_amount"), currency=col(m, "currency"))
    if "three_d_secure" in m:
        settled = settled.assign(three_d_secure=col(m, "three_d_secure"))
    return mastercard_sales(settled)


def settled_orders(orders: pd.DataFrame) -> pd.DataFrame:
    """One row per order that settled (not voided, not only authorised), network `all`."""
    o = orders.drop_duplicates("order_number", keep="last")
    status = col(o, "financial_status").str.strip().str.lower().str.replace(" ", "_")
    o = o.loc[~status.isin(NOT_SETTLED)]
    month = month_of(col(o, "order_date"))
    return pd.DataFrame({"month": month, "network": "all", "descriptor": ""})


def transaction_counts(settled: pd.DataFrame) -> pd.DataFrame:
    """Rows of settled_charges / settled_orders counted per (month, network, descriptor)."""
    counted = settled.groupby(BY, sort=False).size()
    return counted.rename("transactions").reset_index()


def transaction_delta(
    rows: pd.DataFrame, seen: int, settle: Callable[[pd.DataFrame], pd.DataFrame]
) -> pd.DataFrame:
    """How the counts of `settle`d transactions change when the rows ingested after ingest
    `seen` arrive: `rows` are every version (`_seq`) of the keys those rows touch, in ingest
    order; the latest version of each key counts, so a row dropped again with a new date or
    status moves or removes its key's count. Month, network, descriptor, transactions (+/-)."""
    after = transaction_counts(settle(rows))
    before = transaction_counts(settle(rows.loc[rows["_seq"].astype("int64") <= seen]))
    both = pd.concat([after, before.assign(transactions=-before["transactions"])])
    change = both.groupby(BY, sort=False)["transactions"].sum()
    return change.loc[change != 0].reset_index()


def disputed_charge_ids(payments: pd.DataFrame) -> tuple[set[str], set[str]]:
    """The charges whose latest row says they were disputed, and those whose latest does not."""
    c = charge_disputes(payments)
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
    return Counted(False, pd.DataFrame(columns=[*BY, "transactions"]))


def _months(first: str, last: str) -> list[str]:
    return [str(p) for p in pd.period_range(first, last, freq="M")]


def _counts(tx: pd.DataFrame, split: Split) -> pd.DataFrame:
    """transactions (`tx`: counted per month and network), disputes (chargebacks),
    fraud_reports, the CE 3.0-covered ones, the disputes whose fraud report is known, those
    left out and the reports fraud disputes RDR resolved raised, per (month, network), every
    month from the first to the last, zeros where nothing happened."""
    disputes, fraud = split.chargebacks, split.reports
    parts = {
        "disputes": disputes,
        "early_disputes": split.left_out,
        "fraud_reports": fraud,
        "ce3_disputes": disputes.loc[disputes["ce3"].astype(bool)],
        "ce3_fraud": fraud.loc[fraud["ce3"].astype(bool)],
        "reported_disputes": disputes.loc[disputes["reported"].astype(bool)],
        "raised_reports": fraud.loc[fraud["raised"].astype(bool)],
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
    return (part["month"] != "") & part["network"].isin([*STANDING_NETWORKS, ALL])


def network_order(net: str) -> int:
    order = [*STANDING_NETWORKS, ALL]
    return order.index(net) if net in order else len(order)


def standing(
    inputs: StandingInputs, policy: StandingPolicy, now: datetime | None = None
) -> Standing:
    """Each month's ratio per network against its program, with what-if columns and notes."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    payments, charges = inputs.payments, None
    if inputs.counted is None and payments is not None and not payments.empty:  # cold: once
        payments = payments if payments.index.is_unique else payments.reset_index(drop=True)
        charges = settled_charges(payments)
    counted = (
        counted_transactions(inputs)
        if charges is None
        else Counted(True, transaction_counts(charges))
    )
    by_brand, tx = counted.by_brand, counted.counts
    if "descriptor" not in tx:
        tx = tx.assign(descriptor="")
    disputes = dispute_events(inputs, by_brand)
    ce3_orders = set(disputes.loc[disputes["ce3"], "order_number"]) - {""}
    fraud = fraud_events(inputs, by_brand, ce3_orders)
    split = split_events(disputes, fraud)
    counts = _counts(tx, split)
    sales = None if charges is None or payments is None else _settled_sales(payments, charges)
    table = _table(counts, policy, now) if not counts.empty else _empty()
    if not table.empty:
        _with_efm(table, split.chargebacks, sales)
    names = descriptors(tx, disputes) if by_brand else []
    seen = Seen(
        by_brand,
        tx,
        disputes,
        split.reports,
        inputs.fraud,
        split.raised,
        split.reported_once,
        len(split.left_out),
    )
    found = Standing(table, [*notes(seen), descriptor_note(names, tx, by_brand)])
    if len(names) > 1:
        found.by_descriptor = _per_descriptor(names, tx, split, policy, now)
    said_3ds = inputs.payments is not None and (col(inputs.payments, "three_d_secure") != "").any()
    found.fraud_checks = fraud_checks(disputes, policy.merchant_country, bool(said_3ds))
    return found


def _per_descriptor(
    names: list[str], tx: pd.DataFrame, split: Split, policy: StandingPolicy, now: datetime
) -> pd.DataFrame:
    """Each descriptor's figures alone (Visa identifies a merchant per descriptor)."""
    tables = []
    for name in names:
        counts = _counts(of_descriptor(tx, name), split.of_descriptor(name))
        if not counts.empty:
            tables.append(_table(counts, policy, now, name))
    return pd.concat(tables, ignore_index=True) if tables else _empty()


@dataclass(frozen=True)
class Split:
    """The disputes as the programs count them: chargebacks (TC15, each with whether its
    fraud report is known), fraud reports (the sheet's, and the TC40 each fraud dispute RDR
    resolved stands for when the sheet lists none for it), and those left out."""

    chargebacks: pd.DataFrame
    reports: pd.DataFrame
    left_out: pd.DataFrame
    raised: int
    reported_once: int

    def of_descriptor(self, name: str) -> Split:
        """The events whose charge carries the statement descriptor `name`."""
        return Split(
            of_descriptor(self.chargebacks, name),
            of_descriptor(self.reports, name),
            of_descriptor(self.left_out, name),
            self.raised,
            self.reported_once,
        )


def split_events(disputes: pd.DataFrame, fraud: pd.DataFrame) -> Split:
    """Since April 2025 a prevention program (RDR) keeps only a non-fraud dispute out of
    VAMP's count: a fraud dispute RDR resolved still counts its fraud report, once."""
    early = disputes["early"].astype(bool)
    order = disputes["order_number"].astype(str)
    prevented_fraud = (
        disputes["prevented"].astype(bool)
        & disputes["fraud"].astype(bool)
        & disputes["network"].isin(FRAUD_COUNTED)
    )
    in_sheet = order.isin(set(fraud["order_number"].astype(str)) - {""})
    kept = ["month", "network", "ce3", "order_number", "descriptor"]
    raised = disputes.loc[prevented_fraud & ~in_sheet, kept]
    reports = pd.concat([fraud, raised.assign(raised=True)], ignore_index=True)
    chargebacks = disputes.loc[~early]
    reported = set(reports["order_number"].astype(str)) - {""}
    chargebacks = chargebacks.assign(
        reported=chargebacks["network"].isin(FRAUD_COUNTED)
        & chargebacks["order_number"].astype(str).isin(reported)
    )
    return Split(
        chargebacks,
        reports,
        disputes.loc[early & ~prevented_fraud],
        len(raised),
        int((prevented_fraud & in_sheet).sum()),
    )


def _with_efm(table: pd.DataFrame, chargebacks: pd.DataFrame, sales: Sales | None) -> None:
    """Each Mastercard month's EFM verdict in its column; met or possible, in its note too."""
    mastercard = table["network"] == MASTERCARD.key
    verdicts = efm_verdicts(table, chargebacks, sales)
    table.loc[mastercard, "efm"] = table.loc[mastercard, "month"].map(verdicts)
    said = mastercard & table["efm"].fillna("").str.startswith(("EFM met", "EFM possible"))
    note = table.loc[said, "note"]
    table.loc[said, "note"] = note.where(note == "", note + "; ") + table.loc[said, "efm"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=[*COLUMNS, *WHAT_IF])


def _table(
    counts: pd.DataFrame, policy: StandingPolicy, now: datetime, descriptor: str = EVERY
) -> pd.DataFrame:
    out = ratios(counts, policy, now)
    out["descriptor"] = descriptor
    out["note"] = [row_note(r, policy, now) for r in out.itertuples(index=False)]
    out["efm"] = ""
    return out[[*COLUMNS, *WHAT_IF]]
