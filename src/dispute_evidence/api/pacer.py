"""Client-side pacing: one token bucket per client (per API key), shared by every call.

A bucket with burst b and refill rate r lets at most b + r*W requests start in any window of
W seconds (retries included: every attempt acquires). With r = N/T - b/W0 that is at most
N*W/T for every window W >= W0: the budget of N per T holds over the whole period *and*
pro rata over any minute, so even a server that enforces the same rate over a 60-second
sliding window never sees a spike. The burst is kept near 1% of a minute's share, so the
rate given up is about 1%. A 429 pauses *all* callers until its Retry-After has passed.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from aiolimiter import AsyncLimiter

STRICTEST_WINDOW = 60.0  # W0: the shortest window a server could plausibly pro-rate its budget over


def default_burst(limit: int, period: float = 3600.0) -> int:
    """About 1% of a minute's share (at least 1, at most 10)."""
    return max(1, min(10, int(0.01 * limit * STRICTEST_WINDOW / period)))


class RequestGate(Protocol):
    """A budget shared beyond this process (every worker using one API key): each request
    attempt takes one slot after the pacer admits it, and starts at once."""

    async def acquire(self) -> None: ...


class RequestPacer:
    """Admits request starts at no more than `limit` per `period` seconds."""

    def __init__(self, limit: int, period: float = 3600.0, burst: int | None = None) -> None:
        if limit < 1 or period <= 0:
            raise ValueError("rate limit must be at least 1 request per positive period")
        self.limit = limit
        self.period = period
        self.burst = min(burst or default_burst(limit, period), limit)
        refill = limit / period - self.burst / min(STRICTEST_WINDOW, period)
        if refill <= 0:  # budgets under ~1 a minute: hold the whole-period guarantee only
            refill = max(limit - self.burst, 1) / period
        self._bucket = AsyncLimiter(self.burst, self.burst / refill)
        self._paused_until = 0.0

    async def acquire(self) -> None:
        """Wait for a pause to end and for a token; call once per request attempt."""
        loop = asyncio.get_running_loop()
        while True:
            while (wait := self._paused_until - loop.time()) > 0:
                await asyncio.sleep(wait)
            await self._bucket.acquire()
            if self._paused_until <= loop.time():
                return
            # A 429 arrived while we queued: the token is spent (still counted), wait again.

    def pause(self, seconds: float) -> None:
        """Hold every caller for `seconds` (a 429's Retry-After); never shortens a pause."""
        until = asyncio.get_running_loop().time() + seconds
        self._paused_until = max(self._paused_until, until)

    @property
    def paused_for(self) -> float:
        return max(0.0, self._paused_until - asyncio.get_running_loop().time())
