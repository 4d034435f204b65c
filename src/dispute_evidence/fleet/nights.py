"""Each merchant's night, as the sweep hands it out (fleet/sweep.py): started, finished or
failed, by which shard, how many times. One row per merchant and night, in the database of
the keys' shared budgets (fleet/budget.py: every worker reaches it), so the next sweep sees
at once which nights a killed shard left unfinished, and `status` what each merchant's last
night did, without opening 10,000 state schemas. Rows older than KEEP_DAYS are removed by the
sweep: the table holds a few months of nights, whatever the history."""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine

KEEP_DAYS = 90
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"

nights = Table(
    "fleet_nights",
    MetaData(),
    Column("merchant", String(40), primary_key=True),
    Column("night", String(32), primary_key=True),  # the night's scheduled time, ISO UTC
    Column("stage", String(12), nullable=False),
    Column("shard", String(120), nullable=False, default=""),
    Column("attempts", Integer, nullable=False, default=1),
    Column("started_at", Float),  # epoch seconds
    Column("finished_at", Float),
    Column("outcome", String(200), nullable=False, default=""),  # the run's headline
    Column("detail", String(500), nullable=False, default=""),  # why it failed, one line
)


@dataclass(frozen=True)
class Night:
    merchant: str
    night: str
    stage: str  # queued, running, done, failed
    shard: str
    attempts: int
    started_at: float | None
    finished_at: float | None
    outcome: str
    detail: str


@dataclass(frozen=True)
class Begun:
    attempt: int  # 1 for the night's first run
    left: str  # who left this night begun, never finished (killed mid-night), or ""


def _left_by(row: Any) -> str:
    """Who left this night begun and never finished (its shard killed mid-night): the shard
    named on a row still running; a row handed out again since no longer names it."""
    if row is None or not row.attempts or row.finished_at is not None:
        return ""
    return row.shard if row.stage == RUNNING else "an earlier shard"


def _by_attempts(
    merchants: set[str], seen: Mapping[str, int | None] | None
) -> list[tuple[int | None, set[str]]]:
    """The rows to hand out, grouped by the attempts they must still have (None: any)."""
    if seen is None:
        return [(None, merchants)] if merchants else []
    groups: dict[int, set[str]] = {}
    for m in merchants:
        if (was := seen.get(m)) is not None:  # a row made since the sweep read: not its own
            groups.setdefault(was, set()).add(m)
    return sorted(groups.items())


def _insert_new(c: Connection, rows: list[dict[str, str]], shard: str) -> set[str]:
    """Queue these nights, new to the ledger when the sweep read it, for `shard`; the merchants
    whose row this made. A row another sweep (two at once: sweeps have no concurrency limit)
    made meanwhile is left as that sweep made it, not a failed sweep on the primary key."""
    insert = pg_insert if c.dialect.name == "postgresql" else sqlite_insert
    made = c.execute(
        insert(nights)
        .values(stage=QUEUED, shard=shard[:120], attempts=0)
        .on_conflict_do_nothing(index_elements=[nights.c.merchant, nights.c.night])
        .returning(nights.c.merchant),
        rows,
    )
    return set(made.scalars())


class NightLedger:
    """The fleet_nights table: who started, finished or failed which night."""

    def __init__(self, url: str | Path) -> None:
        url = str(url)
        self.url = url if "://" in url else f"sqlite:///{Path(url).expanduser().resolve()}"
        self.engine: Engine = create_engine(self.url, pool_pre_ping=True)
        with self.engine.begin() as c:
            nights.create(c, checkfirst=True)

    def __repr__(self) -> str:  # the URL may carry credentials
        return f"NightLedger({self.engine.url.render_as_string(hide_password=True)!r})"

    def close(self) -> None:
        self.engine.dispose()

    def begin(self, merchant: str, night: str, shard: str) -> Begun | None:
        """The merchant's night starts (again) in `shard`, if the ledger still hands it to
        `shard` (or has no row for it); None when it is done, or was handed to another shard
        since (a crashed shard's rerun and the next sweep never both run it)."""
        key = (nights.c.merchant == merchant) & (nights.c.night == night)
        with self.engine.begin() as c:
            row = c.execute(
                select(
                    nights.c.stage, nights.c.shard, nights.c.attempts, nights.c.finished_at
                ).where(key)
            ).first()
            begun = {"stage": RUNNING, "shard": shard[:120], "started_at": time.time()}
            if row is None:
                c.execute(nights.insert().values(merchant=merchant, night=night, **begun))
            else:
                moved = c.execute(
                    update(nights)  # only as it was read: a sweep may hand it out meanwhile
                    .where(key, nights.c.stage == row.stage, nights.c.shard == row.shard)
                    .where(nights.c.stage != DONE, nights.c.shard == shard[:120])
                    .values(**begun, attempts=nights.c.attempts + 1, finished_at=None)
                ).rowcount
                if not moved:
                    return None
            attempt = int(c.execute(select(nights.c.attempts).where(key)).scalar_one())
            return Begun(attempt, _left_by(row))

    def queue(
        self,
        wanted: Collection[tuple[str, str]],
        shard: str,
        seen: Mapping[str, int | None] | None = None,
    ) -> set[tuple[str, str]]:
        """Hand these (merchant, night) to `shard`: queued, unless done already; with `seen`
        (merchant -> the attempts the sweep read, None: no row), only the rows still as read
        (a crashed shard's rerun that began one meanwhile keeps it). Returns those handed."""
        by_night: dict[str, set[str]] = {}
        for merchant, night in wanted:
            by_night.setdefault(night, set()).add(merchant)
        handed: set[tuple[str, str]] = set()
        with self.engine.begin() as c:
            for night, merchants in by_night.items():
                here = nights.c.night == night
                known = set(c.execute(select(nights.c.merchant).where(here)).scalars())
                for attempts, group in _by_attempts(merchants & known, seen):
                    mine = here & nights.c.merchant.in_(sorted(group))
                    if attempts is not None:
                        mine = mine & (nights.c.attempts == attempts)
                    took = c.execute(
                        update(nights)
                        .where(mine, nights.c.stage != DONE)
                        .values(stage=QUEUED, shard=shard[:120])
                        .returning(nights.c.merchant)
                    )
                    handed |= {(m, night) for m in took.scalars()}
                new = [{"merchant": m, "night": night} for m in sorted(merchants - known)]
                if new:
                    handed |= {(m, night) for m in _insert_new(c, new, shard)}
        return handed

    def finish(self, merchant: str, night: str, *, failed: str = "", outcome: str = "") -> None:
        """The night ended: done (its run's headline in `outcome`), or `failed` saying why."""
        with self.engine.begin() as c:
            ended = {"stage": FAILED if failed else DONE, "finished_at": time.time()}
            c.execute(
                update(nights)
                .where((nights.c.merchant == merchant) & (nights.c.night == night))
                .values(**ended, outcome=outcome[:200], detail=failed[:500])
            )

    def of(self, wanted: Collection[tuple[str, str]]) -> dict[str, Night]:
        """Merchant -> its row for the night asked (merchant, night), where one exists."""
        by_night: dict[str, set[str]] = {}
        for merchant, night in wanted:
            by_night.setdefault(night, set()).add(merchant)
        out: dict[str, Night] = {}
        with self.engine.connect() as c:
            for night, merchants in by_night.items():
                rows = c.execute(select(nights).where(nights.c.night == night))
                out |= {r.merchant: Night(**r._mapping) for r in rows if r.merchant in merchants}
        return out

    def latest(self) -> dict[str, Night]:
        """Each merchant's most recent night."""
        newest = (
            select(nights.c.merchant, func.max(nights.c.night).label("night"))
            .group_by(nights.c.merchant)
            .subquery()
        )
        q = select(nights).join(
            newest, (nights.c.merchant == newest.c.merchant) & (nights.c.night == newest.c.night)
        )
        with self.engine.connect() as c:
            return {r.merchant: Night(**r._mapping) for r in c.execute(q)}

    def forget_before(self, night: str) -> int:
        """Remove the nights older than `night` (ISO); how many."""
        with self.engine.begin() as c:
            return int(c.execute(delete(nights).where(nights.c.night < night)).rowcount)
