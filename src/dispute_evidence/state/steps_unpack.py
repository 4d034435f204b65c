"""Migration steps v13-v14: what `meta` held packed as JSON, unpacked into tables of its own;
the standing's records (a dispute's opening, a charge's capture, fraud reports). Frozen as
written (see state/migrations.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text, inspect, select
from sqlalchemy.engine import Connection

from dispute_evidence.state.schema import V12_RECORDS, V14_ADDED, V14_NEW, meta, record_table

if TYPE_CHECKING:
    pass

from dispute_evidence.state.step_tools import alter, pid


def _v13_tables(into: MetaData) -> dict[str, Table]:
    """What `meta` held as JSON, as v13 made each a table of its own."""
    tables = [
        Table(
            "ce3_verdicts",
            into,
            pid(),
            Column("verdict", Text, nullable=False),
            Column("qualifies", Integer, nullable=False),
            Column("with_ip_or_device", Integer, nullable=False),
        ),
        Table(
            "api_views",
            into,
            pid(),
            Column("reason", Text),
            Column("amount", Float),
            Column("currency", String(16)),
            Column("opened_on", String(32)),
            Column("payload_tag", String(32)),
            Column("mismatch", Text),
        ),
        Table(
            "evidence_kinds",
            into,
            pid(),
            Column("payload_tag", String(32), nullable=False),
            Column("kinds", String(16), nullable=False),
        ),
        Table("picture_disputes", into, pid(), Column("shown", Text, nullable=False)),
        Table("picture_problems", into, Column("problem", Text, nullable=False)),
        Table(
            "review_policy",
            into,
            Column("name", String(16), primary_key=True),
            Column("hold", String(16), nullable=False),
            Column("sweep_hours", Float),
            Column("since", String(32), nullable=False),
            Column("set_by", Text, nullable=False),
        ),
    ]
    return {t.name: t for t in tables}


V13_KEYS = (
    "ce3_verdicts",
    "api_dispute_views",
    "outcome_evidence_kinds",
    "last_picture",
    "review_policy",
)


def v13(conn: Connection) -> None:
    """The CE 3.0 verdicts, the API's views, the evidence kinds, the last report's picture and
    the review policy: out of `meta`'s JSON into tables; `meta` keeps scalars only."""
    tables = _v13_tables(MetaData())
    for table in tables.values():
        table.create(conn)
    if not inspect(conn).has_table("meta"):  # (migrate() makes it first; a bare step may not)
        return
    rows = conn.execute(select(meta.c.key, meta.c.value).where(meta.c.key.in_(V13_KEYS)))
    packed: dict[str, Any] = {str(k): json.loads(v) for k, v in rows if v}
    for name, moved in _v13_rows(packed).items():
        if moved:
            conn.execute(tables[name].insert(), moved)
    if "last_picture" in packed:  # a report kept one: the next says what changed since
        conn.execute(meta.insert().values(key="picture_taken", value="(before v13)"))
    conn.execute(meta.delete().where(meta.c.key.in_(V13_KEYS)))


def _v13_rows(packed: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each v13 table's rows, from what `meta` held (key: its JSON, decoded)."""
    picture = packed.get("last_picture") or {"disputes": {}, "problems": []}
    policy = packed.get("review_policy")
    return {
        "ce3_verdicts": [
            {
                "provider_dispute_id": p,
                "verdict": t,
                "qualifies": int(bool(ok)),
                "with_ip_or_device": int(bool(could)),
            }
            for p, (t, ok, could) in packed.get("ce3_verdicts", {}).items()
        ],
        "api_views": [
            {
                "provider_dispute_id": p,
                "reason": v.get("reason"),
                "amount": v.get("amount"),
                "currency": v.get("currency"),
                "opened_on": v.get("opened_on"),
                "payload_tag": v.get("of"),
                "mismatch": v.get("mismatch") or "",
            }
            for p, v in packed.get("api_dispute_views", {}).items()
        ],
        "evidence_kinds": [
            {"provider_dispute_id": p, "payload_tag": tag, "kinds": kinds}
            for p, (tag, kinds) in packed.get("outcome_evidence_kinds", {}).items()
        ],
        "picture_disputes": [
            {"provider_dispute_id": p, "shown": shown} for p, shown in picture["disputes"].items()
        ],
        "picture_problems": [{"problem": line} for line in sorted(set(picture["problems"]))],
        "review_policy": []
        if not policy
        else [
            {
                "name": "state",
                "hold": policy["hold"],
                "sweep_hours": policy.get("sweep_hours"),
                "since": policy["since"],
                "set_by": policy["by"],
            }
        ],
    }


def v14(conn: Connection) -> None:
    """The standing's records: a dispute's opening date, a charge's capture, fraud reports.
    A table gaining a field is rebuilt with its rows, the new field before the source columns
    (as a new state declares it), not added after them."""
    present = set(inspect(conn).get_table_names())
    for kind, added in V14_ADDED.items():
        table = record_table(kind, f"{V12_RECORDS[kind]} {added}", MetaData())
        if table.name not in present:
            table.create(conn)
            continue
        alter(conn).rename_table(table.name, f"{table.name}_v13")
        old = Table(f"{table.name}_v13", MetaData(), autoload_with=conn)
        table.create(conn)
        names = [c.name for c in table.columns if c.name in old.c]
        conn.execute(table.insert().from_select(names, select(*(old.c[n] for n in names))))
        old.drop(conn)
    for kind, spec in V14_NEW.items():
        record_table(kind, spec, MetaData()).create(conn, checkfirst=True)
