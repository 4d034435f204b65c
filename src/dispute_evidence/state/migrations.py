"""The state store's migrations: each step brings a state from the version before to its own,
frozen as it was written (its version's tables and columns spelled out), so what an old step
does never changes with today's tables (state/schema.py). migrate() runs the steps a state
lacks, each in the opening transaction, and records the version reached in `meta`.
The steps live by era: steps_first (v1-v12), steps_unpack (v13-v14), steps_records (v15-),
with their tools in step_tools."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from dispute_evidence.state import steps_first as first
from dispute_evidence.state import steps_records as records
from dispute_evidence.state import steps_unpack as unpack
from dispute_evidence.state.errors import StateNewer
from dispute_evidence.state.schema import SCHEMA_VERSION, has_any_table, meta


def migrate(conn: Connection) -> int:
    """Bring the schema to SCHEMA_VERSION, one step at a time; returns the version found."""
    if not has_any_table(conn, [meta.name]):
        meta.create(conn)
    row = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
    found = int(row[0]) if row else 0
    if found > SCHEMA_VERSION:
        raise StateNewer(found, SCHEMA_VERSION)
    for step in range(found + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[step](conn)
        conn.execute(meta.delete().where(meta.c.key == "schema_version"))
        conn.execute(meta.insert().values(key="schema_version", value=str(step)))
    return found


MIGRATIONS = {
    1: first.v1,
    2: first.v2,
    3: first.v3,
    4: first.v4,
    5: first.v5,
    6: first.v6,
    7: first.v7,
    8: first.v8,
    9: first.v9,
    10: first.v10,
    11: first.v11,
    12: first.v12,
    13: unpack.v13,
    14: unpack.v14,
    15: records.v15,
    16: records.v16,
    17: records.v17,
    18: records.v18,
    19: records.v19,
    20: records.v20,
    21: records.v21,
    22: records.v22,
    23: records.v23,
    24: records.v24,
    25: records.v25,
}
