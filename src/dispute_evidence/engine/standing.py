"""The merchant's standing, from what the state holds: every record read so far, the API's
opening dates and the CE 3.0 verdicts, handed to evidence/standing.py (the pure part)."""

from __future__ import annotations

from datetime import datetime

from dispute_evidence import clock
from dispute_evidence.engine.state import StateStore
from dispute_evidence.evidence.standing import Standing, StandingInputs, standing
from dispute_evidence.policies import StandingPolicy

# only the columns the ratios read: a year of orders is the largest table the state holds
READ = {
    "disputes": ("provider_dispute_id", "order_number", "network_reason_code", "dispute_date"),
    "payments": ("payment_id", "order_number", "paid_at", "payment_status", "captured",
                 "card_brand", "dispute_reason", "dispute_date"),
    "orders": ("order_number", "order_date", "financial_status"),
    "fraud_warnings": ("payment_id", "order_number", "reported_at"),
}  # fmt: skip


def merchant_standing(
    store: StateStore, policy: StandingPolicy, now: datetime | None = None
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
    )
    return standing(inputs, policy, now or clock.now())
