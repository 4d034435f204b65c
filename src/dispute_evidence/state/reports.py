"""The raw tables a report is made from."""

from __future__ import annotations

import pandas as pd
from sqlalchemy import func, select

from dispute_evidence.state.base import (
    Part,
)
from dispute_evidence.state.schema import (
    disputes,
    evidence_files,
)


class Reports(Part):
    """Raw rows for reports (engine/reporting/report.py assembles them)."""

    def dispute_rows(self) -> pd.DataFrame:
        """The disputes as stored, one raw row each (engine.reporting.report.dispute_table words them)."""
        with self.engine.connect() as c:
            return pd.read_sql(
                select(
                    disputes.c.provider_dispute_id,
                    disputes.c.order_number,
                    disputes.c.response_due_by,
                    disputes.c.status,
                    disputes.c.detail,
                    disputes.c.dispute_id,
                    disputes.c.attempts,
                    disputes.c.last_error,
                    disputes.c.updated_at,
                    disputes.c.submitted_hash,
                    disputes.c.api_status,
                    disputes.c.api_status_at,
                ),
                c,
            )

    def file_table(self) -> pd.DataFrame:
        with self.engine.connect() as c:
            return pd.read_sql(
                select(
                    evidence_files.c.provider_dispute_id,
                    evidence_files.c.file_name,
                    evidence_files.c.path,
                    evidence_files.c.size,
                    evidence_files.c.status,
                    evidence_files.c.remote_file_id,
                    evidence_files.c.last_error,
                    evidence_files.c.updated_at,
                    evidence_files.c.matched,
                ),
                c,
            )

    def status_counts(self) -> dict[str, int]:
        with self.engine.connect() as c:
            return {
                s: n
                for s, n in c.execute(
                    select(disputes.c.status, func.count()).group_by(disputes.c.status)
                )
            }
