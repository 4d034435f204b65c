"""One request budget per API key, shared by every process and machine that uses the key.

A token bucket in a shared database (PostgreSQL for several machines, SQLite on one), one row
per key: capacity C, refill rate r per second, the tokens left and when they were counted, by
the database's clock (so the workers' clocks do not matter). Taking k tokens is one UPDATE that
refills and takes at once, or changes nothing: exact under any number of takers.

Why not Prefect's rate-limit GCL: its slot decay is `floor(decay * seconds since the row was
last updated)`, and a refused request updates the row too, so the fraction decayed so far is
lost on every refusal and every grant; under contention the rate falls below the nominal one
(measured by `python -m bench scale`). The bucket here decays exactly.

Window arithmetic. A bucket lets at most C + r*W slots be taken in any W seconds. A process
uses a batch of slots only within USE_WITHIN seconds of asking for it (the rest is dropped),
and a request reaches the API within ARRIVAL_SLACK of starting, so the API sees at most
C + r*(W + USE_WITHIN + ARRIVAL_SLACK) requests of a key in any W-second window. With
r = (B/60 - C) / (60 + USE_WITHIN + ARRIVAL_SLACK) that is at most B/60 in any minute, and so
at most B in any hour, however many workers share the key. C is one batch, about 2% of a
minute's share: roughly 4% of the nominal rate is given up for that guarantee.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    MetaData,
    String,
    Table,
    bindparam,
    create_engine,
    func,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.sql.elements import BindParameter, ColumnElement

USE_WITHIN = 1.0  # seconds a batch of slots may be used after it was asked for
ARRIVAL_SLACK = 0.5  # seconds between a request starting and the API counting it (loopback: ms)
MAX_BATCH = 200


@dataclass(frozen=True)
class BudgetShape:
    """A key's bucket: `capacity` slots, refilled at `rate` per second."""

    capacity: int
    rate: float

    @classmethod
    def for_budget(cls, limit: int, period: float = 3600.0, strictest: float = 60.0) -> BudgetShape:
        """The bucket that never lets more than limit*W/period through in any window W >=
        `strictest` seconds (the pro-rata reading of `limit` per `period`)."""
        share = limit * strictest / period
        capacity = max(1, min(MAX_BATCH, int(share * 0.02)))
        rate = (share - capacity) / (strictest + USE_WITHIN + ARRIVAL_SLACK)
        if rate <= 0:  # under ~2 a minute: hold the whole-period guarantee only
            capacity, rate = 1, max(limit - 1, 1) / (period + USE_WITHIN + ARRIVAL_SLACK)
        return cls(capacity, rate)


# the database's clock, in epoch seconds (the workers' clocks do not matter)
Expr = ColumnElement[Any]


def _pg_now() -> Expr:
    return func.extract("epoch", func.clock_timestamp())


def _sqlite_now() -> Expr:
    return (func.julianday("now") - 2440587.5) * 86400.0


_NOW: dict[str, Callable[[], Expr]] = {"postgresql": _pg_now, "sqlite": _sqlite_now}
_LEAST: dict[str, Callable[..., Expr]] = {"postgresql": func.least, "sqlite": func.min}
_GREATEST: dict[str, Callable[..., Expr]] = {"postgresql": func.greatest, "sqlite": func.max}

budgets = Table(
    "api_key_budgets",
    MetaData(),
    Column("name", String(200), primary_key=True),
    Column("capacity", Float, nullable=False),
    Column("rate", Float, nullable=False),
    Column("tokens", Float, nullable=False),
    Column("stamp", Float, nullable=False),
)
_by_name = budgets.c.name == bindparam("n")


class KeyBudgets:
    """The table of shared budgets, one row per API key name."""

    def __init__(self, url: str | Path) -> None:
        url = str(url)
        self.url = url if "://" in url else f"sqlite:///{Path(url).expanduser().resolve()}"
        self.engine: Engine = create_engine(self.url, pool_pre_ping=True)
        dialect = self.engine.dialect.name
        if dialect not in _NOW:
            raise ValueError(f"the shared budget needs PostgreSQL or SQLite, not {dialect}")
        self._now, self._least = _NOW[dialect], _LEAST[dialect]
        refilled = budgets.c.rate * _GREATEST[dialect](self._now() - budgets.c.stamp, 0)
        self._available = self._least(budgets.c.capacity, budgets.c.tokens + refilled)
        with self.engine.begin() as c:
            budgets.create(c, checkfirst=True)

    def __repr__(self) -> str:  # the URL may carry credentials
        return f"KeyBudgets({self.engine.url.render_as_string(hide_password=True)!r})"

    def close(self) -> None:
        self.engine.dispose()

    def ensure(self, name: str, shape: BudgetShape) -> None:
        """Create the key's bucket (empty: a restart never starts with a burst), or reshape it."""
        c_: BindParameter[float] = bindparam("c")
        r_: BindParameter[float] = bindparam("r")
        reshape = (
            budgets.update()
            .where(_by_name, (budgets.c.capacity != c_) | (budgets.c.rate != r_))
            .values(tokens=self._least(budgets.c.tokens, c_), capacity=c_, rate=r_)
        )
        params = {"n": name, "c": shape.capacity, "r": shape.rate}
        with self.engine.begin() as c:
            updated = c.execute(reshape, params).rowcount
            exists = (
                updated
                or c.execute(select(1).select_from(budgets).where(_by_name), {"n": name}).first()
            )
            if not exists:
                c.execute(
                    budgets.insert().values(
                        name=name,
                        capacity=shape.capacity,
                        rate=shape.rate,
                        tokens=0,
                        stamp=self._now(),
                    )
                )

    def take(self, name: str, slots: int) -> float:
        """Take `slots` at once: 0.0 when taken, else the seconds until they could be."""
        k: BindParameter[int] = bindparam("k")
        take = (
            budgets.update()
            .where(_by_name, self._available >= k)
            .values(tokens=self._available - k, stamp=self._now())
        )
        with self.engine.begin() as c:
            if c.execute(take, {"n": name, "k": slots}).rowcount:
                return 0.0
            row = c.execute(
                select(self._available, budgets.c.rate).where(_by_name), {"n": name}
            ).first()
        if row is None:
            raise KeyError(f"no shared budget named {name!r}; run `dispute-evidence deploy` first")
        available, rate = float(row[0]), float(row[1])
        return max((slots - available) / rate, 0.001)

    def shapes(self) -> dict[str, BudgetShape]:
        with self.engine.connect() as c:
            rows = c.execute(select(budgets.c.name, budgets.c.capacity, budgets.c.rate)).all()
        return {r[0]: BudgetShape(int(r[1]), float(r[2])) for r in rows}


@dataclass
class GateStats:
    batches: int = 0  # successful takes
    refusals: int = 0  # takes that had to wait
    seconds_in_calls: float = 0.0  # time spent talking to the database (the overhead)
    dropped: int = 0  # slots of a batch not used within USE_WITHIN (given back to no one)


class SharedBudget:
    """A RequestGate: each request takes one slot of the key's shared bucket, in batches.

    Under sustained demand (half a batch gone within a quarter of USE_WITHIN) the next batch is
    asked for in the background, so requests do not queue behind the database round trip."""

    def __init__(
        self,
        budgets: KeyBudgets,
        name: str,
        shape: BudgetShape,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name, self.batch = name, shape.capacity
        self.stats = GateStats()
        self._budgets, self._clock = budgets, clock
        self._left, self._asked_at = 0, 0.0
        self._lock: asyncio.Lock | None = None
        self._prefetch: asyncio.Task[float] | None = None

    def __repr__(self) -> str:
        return f"SharedBudget({self.name!r}, batch={self.batch})"

    async def acquire(self) -> None:
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self._left <= 0 or self._clock() - self._asked_at >= USE_WITHIN:
                self.stats.dropped += max(self._left, 0)
                self._asked_at, self._left = await self._next_batch(), self.batch
            self._left -= 1
            self._maybe_prefetch()

    async def _next_batch(self) -> float:
        """When the batch in hand was asked for: a prefetched one if still fresh, else a new one."""
        if self._prefetch is not None:
            task, self._prefetch = self._prefetch, None
            asked = await task
            if self._clock() - asked < USE_WITHIN:
                return asked
            self.stats.dropped += self.batch
        return await self._take()

    def _maybe_prefetch(self) -> None:
        busy = self._clock() - self._asked_at < USE_WITHIN / 4
        if self._prefetch is None and self.batch >= 8 and self._left <= self.batch // 2 and busy:
            self._prefetch = asyncio.ensure_future(self._take())

    async def _take(self) -> float:
        """Take one batch, waiting as long as the bucket says; returns when it was asked for."""
        while True:
            asked = self._clock()
            wait = await asyncio.to_thread(self._budgets.take, self.name, self.batch)
            self.stats.seconds_in_calls += self._clock() - asked
            if wait == 0.0:
                self.stats.batches += 1
                return asked
            self.stats.refusals += 1
            await asyncio.sleep(wait)
