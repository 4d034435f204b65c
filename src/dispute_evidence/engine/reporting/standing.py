"""The merchant's standing, from what the state holds: every record read so far, the API's
opening dates and the CE 3.0 verdicts, handed to evidence/standing.py (the pure part)."""

from __future__ import annotations

from datetime import datetime

from dispute_evidence import clock
from dispute_evidence.evidence.ce3 import ELEMENTS, transactions
from dispute_evidence.evidence.ce3_coverage import Coverage, coverage
from dispute_evidence.evidence.standing import Standing, StandingInputs, standing
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.state.store import StateStore

# only the columns the ratios read: a year of orders is the largest table the state holds
READ = {
    "disputes": ("provider_dispute_id", "order_number", "network_reason_code", "dispute_date"),
    "payments": ("payment_id", "order_number", "paid_at", "payment_status", "captured",
                 "card_brand", "dispute_reason", "dispute_date", "dispute_status"),
    "orders": ("order_number", "order_date", "financial_status"),
    "fraud_warnings": ("payment_id", "order_number", "reported_at"),
}  # fmt: skip


# what ce3.transactions reads of each kind, for the CE 3.0 coverage
HISTORY = {
    "orders": ("order_number", "order_date", "order_total", "price", "quantity", "currency_code",
               "financial_status", "refunded_amount", "payment_reference", "customer_email",
               "card_fingerprint", *ELEMENTS, "_seq"),
    "payments": ("payment_id", "payment_intent", "order_number", "paid_at", "payment_amount",
                 "amount_refunded", "currency", "payment_status", "dispute_status",
                 "dispute_reason", "card_brand", "customer_email", "card_fingerprint", *ELEMENTS),
    "disputes": ("order_number",),
}  # fmt: skip


def merchant_coverage(store: StateStore, now: datetime | None = None) -> Coverage:
    """CE 3.0 coverage over every order and charge the state holds."""
    records = {kind: store.load_records([kind], cols)[kind] for kind, cols in HISTORY.items()}
    return coverage(transactions(records), now or clock.now())


def merchant_standing(
    store: StateStore, policy: StandingPolicy, now: datetime | None = None, *, ce3: bool = True
) -> Standing:
    """Each month's ratio per card network, from every record the state holds."""
    records = {kind: store.load_records([kind], cols)[kind] for kind, cols in READ.items()}
    fraud = records["fraud_warnings"]
    given = not fraud.empty or "fraud_warnings" in store.kinds_read()
    inputs = StandingInputs(
        disputes=records["disputes"],
        payments=records["payments"] if not records["payments"].empty else None,
        orders=records["orders"] if not records["orders"].empty else None,
        fraud=fraud if given else None,
        opened={pid: v.opened_on for pid, v in store.api_views().items() if v.opened_on},
        ce3_qualified=frozenset(p for p, v in store.ce3_verdicts().items() if v.qualifies),
        api_status=store.api_statuses(),
    )
    result = standing(inputs, policy, now or clock.now())
    if ce3:  # the CE 3.0 coverage reads the whole order history: `status` does without it
        result.coverage = merchant_coverage(store, now)
    return result
