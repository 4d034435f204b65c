"""A state as an older version left it: the tables later steps made dropped, the version set."""

from __future__ import annotations

from typing import Any

ADDED = {  # the tables each later step makes (state/migrations.py)
    13: ("ce3_verdicts", "api_views", "evidence_kinds", "picture_disputes", "picture_problems",
         "review_policy"),
    14: ("rec_refunds",),  # and rec_payments' refunded_at: a test's own to undo
    16: ("rec_statements", "rec_products"),  # and rec_disputes' statement: the test's own
}  # fmt: skip


def as_version(c: Any, version: int) -> None:
    """Make the state on `c` (a sqlite3 or SQLAlchemy connection) read as `version`: the
    tables steps after it add are dropped (columns and data are each test's own to undo)."""
    from sqlalchemy import text

    run = (lambda sql: c.execute(text(sql))) if hasattr(c, "dialect") else c.execute
    for step, tables in ADDED.items():
        if step > version:
            for table in tables:
                run(f"DROP TABLE IF EXISTS {table}")
    run(f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'")
