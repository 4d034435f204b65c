"""What the standing keeps night to night, so a steady night reads what arrived, not the year
(issue 40): settled transactions counted per source, month, network and statement descriptor
(v24), brought up to date
from the rows ingested since (and the other versions of their keys: a row dropped again with
a new date or status moves its count), the charges whose latest row says disputed, and the CE
3.0 coverage, worked out again when the orders and charges grew by REFRESH_SHARE or it is
REFRESH_DAYS old (a merchant-level share: said "as of" its day).

The disputes' side is not kept: a dispute's month, network and whether it counts change after
its month is over (the API's opening date and status once read back, an inquiry closed, a CE
3.0 verdict), so it is worked out each night from the disputes, the API's facts and only the
charges disputes and fraud reports name."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

import pandas as pd

from dispute_evidence.evidence.ce3 import ELEMENTS, transactions
from dispute_evidence.standing.ce3_coverage import Coverage, coverage
from dispute_evidence.standing.counts import (
    Counted,
    disputed_charge_ids,
    settled_charges,
    settled_orders,
    transaction_delta,
)
from dispute_evidence.standing.fraud_checks import CHARGE_FIELDS
from dispute_evidence.state.holders import HasRecords, HasScoped, HasStanding
from dispute_evidence.state.standing_counts import KeptCoverage


class StandingKeptParts(HasRecords, HasScoped, HasStanding, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


# what the counts read of each source, by the key whose latest row counts
SOURCES: dict[str, tuple[str, Callable[[pd.DataFrame], pd.DataFrame], tuple[str, ...]]] = {
    "payments": (
        "payment_id",
        settled_charges,
        (
            "order_number",
            "paid_at",
            "payment_status",
            "captured",
            "card_brand",
            "dispute_reason",
            "dispute_date",
            "dispute_status",
            "statement_descriptor",
        ),
    ),
    "orders": ("order_number", settled_orders, ("order_date", "financial_status")),
}
# what the disputes' side reads of the charges it names: the counts' columns, and the amounts
# a fraud chargeback only the payments export knows is priced by (Mastercard EFM), and the
# disputed charge's card checks and 3-D Secure (standing/fraud_checks.py)
PAYMENTS = (*SOURCES["payments"][2], "payment_amount", "currency", *CHARGE_FIELDS)
# what ce3.transactions reads of each kind, for the CE 3.0 coverage
HISTORY = {
    "orders": (
        "order_number",
        "order_date",
        "order_total",
        "price",
        "quantity",
        "currency_code",
        "financial_status",
        "refunded_amount",
        "payment_reference",
        "customer_email",
        "card_fingerprint",
        "device_fingerprint",
        *ELEMENTS,
        "_seq",
    ),
    "payments": (
        "payment_id",
        "payment_intent",
        "order_number",
        "paid_at",
        "payment_amount",
        "amount_refunded",
        "currency",
        "payment_status",
        "dispute_status",
        "dispute_reason",
        "card_brand",
        "customer_email",
        "card_fingerprint",
        "device_fingerprint",
        *ELEMENTS,
    ),
    "disputes": ("order_number",),
}
COUNTS = ["source", "month", "network", "descriptor", "transactions"]
REFRESH_SHARE = 0.05  # the CE 3.0 coverage is worked out again when rows grew by 5%...
REFRESH_DAYS = 7  # ... or it is a week old (its 120-365-day window moves a day a night)
CHANGED_BY = ("orders", "payments", "disputes")  # the rows it reads (a dispute: not a prior)


def kept_transactions(store: StandingKeptParts, keep: bool = True) -> tuple[Counted, set[str]]:
    """The settled transactions counted as of the latest ingest, and the disputed charges;
    kept for the next run (`keep`; not on a state opened read-only)."""
    kept, latest = store.standing.standing_counts(), store.scoped.latest_ingest()
    counts, disputed = kept.counts.reindex(columns=COUNTS), set(kept.disputed)
    if latest > kept.seen:
        change, gained, lost = _arrived(store, kept.seen, latest)
        counts = _added(counts, change)
        disputed = (disputed - lost) | gained
        if keep:
            store.standing.keep_standing_counts(kept.seen, latest, change, gained, lost)
    by_brand = store.scoped.any_record("payments")
    mine = counts.loc[counts["source"] == ("payments" if by_brand else "orders")]
    return Counted(by_brand, mine[COUNTS[1:]].reset_index(drop=True)), disputed


def _arrived(
    store: StandingKeptParts, seen: int, latest: int
) -> tuple[pd.DataFrame, set[str], set[str]]:
    """How the counts change with the rows ingested after `seen` up to `latest`, and which
    charges became disputed or stopped being."""
    changes, gained, lost = [], set[str](), set[str]()
    for source, (key, settle, columns) in SOURCES.items():
        if seen == 0:  # nothing kept yet (a new or migrated state): every row
            rows = store.records.load_records([source], [key, *columns, "_seq"])[source]
        else:
            rows = store.standing.rows_by_key(
                source, key, store.scoped.keys_since(source, seen, key), columns
            )
        rows = rows.loc[rows["_seq"].astype("int64") <= latest] if not rows.empty else rows
        if rows.empty:
            continue
        changes.append(transaction_delta(rows, seen, settle).assign(source=source))
        if source == "payments":
            gained, lost = disputed_charge_ids(rows)
    change = pd.concat(changes, ignore_index=True) if changes else pd.DataFrame(columns=COUNTS)
    return change[COUNTS], gained, lost


def _added(counts: pd.DataFrame, change: pd.DataFrame) -> pd.DataFrame:
    both = pd.concat([counts, change], ignore_index=True)
    summed = both.groupby(COUNTS[:4], sort=False)["transactions"].sum().reset_index()
    return summed.loc[summed["transactions"] != 0]


def named_charges(
    store: StandingKeptParts, orders: pd.Series, charges: set[str]
) -> pd.DataFrame | None:
    """Every version of the charges the disputes' orders have, and of `charges` (the disputed
    ones, those fraud reports name): all the disputes' side reads of the payments export."""
    if not store.scoped.any_record("payments"):
        return None
    listed = {str(o) for o in orders if str(o)}
    ids = charges | store.scoped.keys_where("payments", "payment_id", "order_number", listed)
    return store.standing.rows_by_key("payments", "payment_id", ids, PAYMENTS)


def kept_coverage(store: StandingKeptParts, now: datetime, keep: bool = True) -> Coverage:
    """The CE 3.0 coverage as last worked out, unless the orders and charges grew since by
    REFRESH_SHARE or it is REFRESH_DAYS old: then worked out again over the whole history."""
    kept, latest = store.standing.kept_coverage(), store.scoped.latest_ingest()
    if kept is not None and _fresh(store, kept, now, latest):
        return Coverage.from_json(kept.body)
    records = {
        kind: store.records.load_records([kind], cols)[kind] for kind, cols in HISTORY.items()
    }
    found = coverage(transactions(records, shown=False), now).dated(
        now.strftime("%Y-%m-%d"),
        f"worked out again when your orders and charges grow by {REFRESH_SHARE:.0%} "
        f"or after {REFRESH_DAYS} days",
    )
    if keep:
        store.standing.keep_coverage(
            KeptCoverage(now.isoformat(), latest, found.orders, found.to_json())
        )
    return found


def _fresh(store: StandingKeptParts, kept: KeptCoverage, now: datetime, latest: int) -> bool:
    age = now - datetime.fromisoformat(kept.as_of)
    if latest < kept.seen or not timedelta(0) <= age < timedelta(days=REFRESH_DAYS):
        return False
    grown = store.standing.rows_since(CHANGED_BY, kept.seen) if latest > kept.seen else 0
    return grown < REFRESH_SHARE * max(kept.transactions, 1)
