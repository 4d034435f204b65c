"""What the API said of each dispute, read back after sending."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import bindparam, select

from dispute_evidence.state.base import (
    Part,
    now_iso,
)
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.schema import (
    disputes,
    status_history,
)

# one statement for every dispute read (executemany): the values it had are written back
_READ_UPDATE = (
    disputes.update()
    .where(disputes.c.provider_dispute_id == bindparam("b_pid"))
    .values(
        api_read_at=bindparam("b_read_at"),
        api_status=bindparam("b_status"),
        api_status_at=bindparam("b_status_at"),
        response_due_by=bindparam("b_due"),
        api_due_by=bindparam("b_api_due"),
    )
)


def hours_apart(a: str | None, b: str | None) -> float:
    """Hours between two ISO times (infinite when one is missing or unreadable)."""
    try:
        ta = datetime.fromisoformat(str(a).replace("Z", "+00:00"))
        tb = datetime.fromisoformat(str(b).replace("Z", "+00:00"))
    except ValueError:
        return float("inf")
    return abs((ta - tb).total_seconds()) / 3600


class Readback(Part):
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
        {pid: the deadline it replaced} where that moved by more than an hour. A new status is
        kept in the history."""
        now, moved = now_iso(), {}
        rows: list[dict[str, Any]] = []
        with self.engine.begin() as c:
            known = self._read_rows(c, list(read))
            for pid, (status, due_by) in read.items():
                if (row := known.get(pid)) is None:
                    continue
                values: dict[str, Any] = {
                    "b_pid": pid,
                    "b_read_at": now,
                    "b_status": row[0],
                    "b_status_at": row[2],
                    "b_due": due_by or row[1],
                }
                if status and status != row[0]:
                    values |= {"b_status": status, "b_status_at": now}
                    c.execute(
                        status_history.insert().values(
                            provider_dispute_id=pid, status=status, seen_at=now, run_id=run_id
                        )
                    )
                if due_by and row[1] and hours_apart(row[1], due_by) > 1:
                    moved[pid] = row[1]  # (a deadline the sheet lacked is filled in)
                values["b_api_due"] = due_by or row[3]
                rows.append(values)
            if rows:
                c.execute(_READ_UPDATE, rows)
        return moved

    def record_api_deadlines(self, dues: dict[str, str]) -> dict[str, str]:
        """The API's deadline of disputes whose object a run saw as it first sent to them (the
        first POST names the API's dispute): used at once, not from the next run's read-back,
        which still reads their status. Returns {pid: the deadline it replaced} where that moved
        by more than an hour."""
        moved: dict[str, str] = {}
        with self.engine.begin() as c:
            known = self._read_rows(c, list(dues))
            for pid, due_by in dues.items():
                if (row := known.get(pid)) is None:
                    continue
                if row[1] and hours_apart(row[1], due_by) > 1:
                    moved[pid] = row[1]
                c.execute(
                    disputes.update()
                    .where(disputes.c.provider_dispute_id == pid)
                    .values(response_due_by=due_by, api_due_by=due_by)
                )
        return moved

    @staticmethod
    def _read_rows(c: Any, pids: list[str]) -> dict[str, tuple[Any, ...]]:
        """{pid: (api_status, response_due_by, api_status_at, api_due_by)} of these disputes."""
        out: dict[str, tuple[Any, ...]] = {}
        cols = (
            disputes.c.api_status,
            disputes.c.response_due_by,
            disputes.c.api_status_at,
            disputes.c.api_due_by,
        )
        for i in range(0, len(pids), 500):
            q = select(disputes.c.provider_dispute_id, *cols).where(
                disputes.c.provider_dispute_id.in_(pids[i : i + 500])
            )
            out.update((r[0], tuple(r[1:])) for r in c.execute(q))
        return out

    def status_history(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(select(status_history).order_by(status_history.c.seen_at), c)
