"""The merchant's standing, from what the state holds, handed to standing/counts.py (the
pure part): the settled transactions as counted and kept night to night, the disputes, the
charges they and the fraud reports name, the API's opening dates and statuses, and the CE 3.0
verdicts (engine/reporting/standing_kept.py keeps the counts and the CE 3.0 coverage)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from dispute_evidence import clock
from dispute_evidence.engine.reporting.standing_kept import (
    kept_coverage,
    kept_transactions,
    named_charges,
)
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.standing.ce3_coverage import Coverage
from dispute_evidence.standing.counts import Standing, StandingInputs, standing
from dispute_evidence.state.holders import HasRecords, HasScoped, HasStanding


class StandingParts(HasRecords, HasScoped, HasStanding, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


# what the disputes' side reads of the disputes list and the fraud-warnings sheet
READ = {
    "disputes": (
        "provider_dispute_id",
        "order_number",
        "amount",
        "currency",
        "reason",
        "network_reason_code",
        "dispute_date",
    ),
    "fraud_warnings": ("payment_id", "order_number", "reported_at"),
}


def merchant_coverage(
    store: StandingParts, now: datetime | None = None, keep: bool = True
) -> Coverage:
    """CE 3.0 coverage over every order and charge the state holds (as of its day: kept)."""
    return kept_coverage(store, now or clock.now(), keep)


def merchant_standing(
    store: StandingParts,
    policy: StandingPolicy,
    now: datetime | None = None,
    *,
    ce3: bool = True,
    keep: bool = True,
) -> Standing:
    """Each month's ratio per card network, from every record the state holds. `keep`: the
    counts brought up to date are kept for the next run (not on a state opened read-only)."""
    counted, disputed = kept_transactions(store, keep)
    records = {kind: store.records.load_records([kind], cols)[kind] for kind, cols in READ.items()}
    fraud = records["fraud_warnings"]
    given = not fraud.empty or store.standing.kind_read("fraud_warnings")
    named = disputed | {str(p) for p in fraud.get("payment_id", ()) if str(p)}
    inputs = StandingInputs(
        disputes=records["disputes"],
        payments=named_charges(store, records["disputes"]["order_number"], named),
        fraud=fraud if given else None,
        opened=store.standing.opened_dates(),
        ce3_qualified=store.standing.ce3_qualified(),
        api_status=store.standing.api_statuses(),
        counted=counted,
    )
    result = standing(inputs, policy, now or clock.now())
    if ce3:  # the CE 3.0 coverage reads the order history when it is due: `status` does without
        result.coverage = merchant_coverage(store, now, keep)
    return result
