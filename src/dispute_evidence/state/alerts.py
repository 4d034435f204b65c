"""The alerts a state has sent (`alerts_sent`: at most once per day and dispute, once per month,
network and level for the dispute ratio), and the deadlines the deadline alerts watch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert, select

from dispute_evidence.state.base import Part, now_iso
from dispute_evidence.state.schema import alerts_sent, disputes


class AlertsSent(Part):
    """What engine/reporting/deadline_alerts.py and engine/reporting/standing_alerts.py read and
    record."""

    def watched_deadlines(self, statuses: Iterable[str]) -> list[tuple[Any, ...]]:
        """(pid, order number, status, response due by, payload, detail) of each dispute in
        `statuses` with a deadline, nearest first."""
        q = (
            select(
                disputes.c.provider_dispute_id,
                disputes.c.order_number,
                disputes.c.status,
                disputes.c.response_due_by,
                disputes.c.payload,
                disputes.c.detail,
            )
            .where(disputes.c.status.in_(tuple(statuses)), disputes.c.response_due_by.is_not(None))
            .order_by(disputes.c.response_due_by)
        )
        with self.engine.connect() as c:
            return [tuple(r) for r in c.execute(q)]

    def alerted_on(self, day: str) -> set[str]:
        """The subjects (dispute ids) alerted on `day` (YYYY-MM-DD)."""
        with self.engine.connect() as c:
            q = select(alerts_sent.c.provider_dispute_id).where(alerts_sent.c.day == day)
            return set(c.execute(q).scalars())

    def alerted_subjects(self, prefix: str) -> set[str]:
        """Every subject alerted so far that starts with `prefix` (the standing's alerts)."""
        q = select(alerts_sent.c.provider_dispute_id).where(
            alerts_sent.c.provider_dispute_id.like(f"{prefix}%")
        )
        with self.engine.connect() as c:
            return set(c.execute(q).scalars())

    def record_alerts(self, sent: Iterable[tuple[str, str]], day: str, run_id: str) -> None:
        """Keep each (subject, why) alerted on `day` by `run_id`, in one transaction."""
        rows = [
            {
                "provider_dispute_id": subject,
                "day": day,
                "sent_at": now_iso(),
                "why": why,
                "run_id": run_id,
            }
            for subject, why in sent
        ]
        if rows:
            with self.engine.begin() as c:
                c.execute(insert(alerts_sent), rows)
