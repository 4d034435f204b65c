"""What some reasons add to a dispute's facts as the builder makes them (evidence/builder.py):
a duplicate claim's other purchase (evidence/duplicates.py), a fraud dispute's Visa CE 3.0
priors (evidence/ce3.py). Each source is read only when a dispute of its reason asks. Pure."""

from __future__ import annotations

import functools
from dataclasses import replace

import pandas as pd

from dispute_evidence.evidence.activity import ActivityLog
from dispute_evidence.evidence.ce3 import Ce3, History, is_fraud
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.duplicates import SameDayCharges
from dispute_evidence.evidence.payments import disputed_of


class ByReason:
    """What some reasons add to a dispute's facts, each source read only when one asks: a
    duplicate's other purchase (evidence/duplicates.py), a fraud dispute's Visa CE 3.0 priors."""

    def __init__(self, records: dict[str, pd.DataFrame], merchant_country: str = "") -> None:
        self.country = merchant_country.strip().upper()  # Visa's domestic AVS rule turns on it
        self.log = ActivityLog(records)  # an access log: the account's use, its checkout IP
        self.history = functools.cache(lambda: History.from_records(self._observed(records)))
        self.same_day = SameDayCharges(records)  # indexed when first asked
        self.ce3: dict[str, Ce3] = {}  # every fraud dispute's verdict

    def _observed(self, records: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
        """The records with each order's checkout IP and device from the access log where the
        orders export lacks them (evidence/activity.py): they feed CE 3.0 as the export's."""
        if not self.log.given:
            return records
        return {**records, "orders": self.log.observed_orders(records["orders"])}

    def added(self, pid: str, reason: str, facts: DisputeFacts) -> DisputeFacts:
        if self.country:
            facts = replace(facts, merchant_country=self.country)
        if self.log.given:
            facts = self._used(facts)
        if reason == "duplicate":  # the other charge's order, when it is another purchase
            statement = facts.statement.text if facts.statement else ""
            found = self.same_day.counterpart(
                facts.order, disputed_of(facts), facts.tracking_numbers, statement
            )
            other = (found.purchase,) if found.purchase else ()
            facts = replace(facts, other_purchases=other, other_unsure=found.unsure)
        if is_fraud(reason):
            verdict = self.ce3[pid] = self.history().check(facts.order.order_number)
            if verdict.qualifies:  # on top of the normal evidence: the fallback if refused
                facts = replace(facts, ce3_priors=verdict.priors, ce3_disputed=verdict.disputed)
        return facts

    def _used(self, facts: DisputeFacts) -> DisputeFacts:
        """The account's use from the order's day on, and its checkout IP and device where
        the orders export gives none."""
        o = facts.order
        events, total = self.log.events(o.order_number, o.customer_email, o.order_date)
        seen = self.log.at_checkout(o.order_number, o.customer_email, o.order_date)
        if seen is not None:
            o = replace(
                o, customer_ip=o.customer_ip or seen.ip, device_id=o.device_id or seen.device
            )
        return replace(facts, order=o, activity=events, activity_total=total)
