"""Client-side pacing: one token bucket per client (per API key), shared by every call.

The bucket (aiolimiter) refills at (N - burst) / period so that, burst included, no window
of `period` seconds ever sees more than N request starts — retries included, since every
attempt acquires. A 429 pauses *all* callers until its Retry-After has passed.
"""

from __future__ import annotations

import asyncio

from aiolimiter import AsyncLimiter


def default_burst(limit: int) -> int:
    """A small burst: enough to start a few calls together, never a spike a strict server sees."""
    return max(1, min(10, limit // 500))


class RequestPacer:
    """Admits request starts at no more than `limit` per `period` seconds."""

    def __init__(self, limit: int, period: float = 3600.0, burst: int | None = None) -> None:
        if limit < 1 or period <= 0:
            raise ValueError("rate limit must be at least 1 request per positive period")
        self.limit = limit
        self.period = period
        self.burst = min(burst or default_burst(limit), limit)
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
