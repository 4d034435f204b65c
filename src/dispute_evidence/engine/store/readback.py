"""What the API said of each dispute, read back after sending."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import select

from dispute_evidence.engine.schema import (
    disputes,
    status_history,
)
from dispute_evidence.engine.status import DisputeStatus as D
from dispute_evidence.engine.store.base import (
    StoreBase,
    now_iso,
)


def _hours_apart(a: str | None, b: str | None) -> float:
    """Hours between two ISO times (infinite when one is missing or unreadable)."""
    try:
        ta = datetime.fromisoformat(str(a).replace("Z", "+00:00"))
        tb = datetime.fromisoformat(str(b).replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    return abs((ta - tb).total_seconds()) / 3600


class Readback(StoreBase):
    """What the API says of each dispute we sent."""

    def known_at_api(self) -> list[dict[str, Any]]:
        """Disputes whose API id we know and that have not ended, nearest deadline first."""
        q = (
            select(
                disputes.c.provider_dispute_id,
                disputes.c.dispute_id,
                disputes.c.status,
                disputes.c.api_status,
                disputes.c.api_read_at,
                disputes.c.response_due_by,
            )
            .where(disputes.c.dispute_id.is_not(None), disputes.c.status != D.CLOSED)
            .order_by(disputes.c.response_due_by.is_(None), disputes.c.response_due_by)
        )
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def record_api_read(
        self, pid: str, status: str | None, due_by: str | None, run_id: str
    ) -> str | None:
        """What the API said of one dispute; returns the deadline it replaced when it moved
        by more than an hour (else None). A new status is kept in the history."""
        return self.record_api_reads({pid: (status, due_by)}, run_id).get(pid)

    def record_api_reads(
        self, read: dict[str, tuple[str | None, str | None]], run_id: str
    ) -> dict[str, str]:
        """What the API said of each dispute read ({pid: (status, deadline)}), in one
        transaction (one commit, not one per dispute: reads are repeated harmlessly); returns
        {pid: the deadline it replaced} where that moved by more than an hour."""
        now, moved = now_iso(), {}
        with self.engine.begin() as c:
            for pid, (status, due_by) in read.items():
                row = c.execute(
                    select(disputes.c.api_status, disputes.c.response_due_by).where(
                        disputes.c.provider_dispute_id == pid
                    )
                ).first()
                if row is None:
                    continue
                values: dict[str, Any] = {"api_read_at": now}
                if status and status != row.api_status:
                    values |= {"api_status": status, "api_status_at": now}
                    c.execute(
                        status_history.insert().values(
                            provider_dispute_id=pid, status=status, seen_at=now, run_id=run_id
                        )
                    )
                if due_by:
                    values |= {"api_due_by": due_by, "response_due_by": due_by}
                    if row.response_due_by and _hours_apart(row.response_due_by, due_by) > 1:
                        moved[pid] = row.response_due_by  # (a deadline the sheet lacked is filled)
                c.execute(
                    disputes.update().where(disputes.c.provider_dispute_id == pid).values(**values)
                )
        return moved

    def status_history(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(select(status_history).order_by(status_history.c.seen_at), c)
