"""Server-side rate limit: an exact sliding-window log per token.

A log (not a bucket) so that "at most N requests in any window of W seconds"
holds exactly, which is the strictest reading of the spec's 5,000 per hour.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable


class SlidingWindowLimiter:
    """Admits at most `limit` requests per key in any window of `window` seconds."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.window = window
        self._clock = clock
        self._logs: dict[str, deque[float]] = {}

    def admit(self, key: str) -> float | None:
        """Record a request and return None, or return seconds until one would be admitted."""
        now = self._clock()
        log = self._logs.setdefault(key, deque())
        horizon = now - self.window
        while log and log[0] <= horizon:
            log.popleft()
        if len(log) >= self.limit:
            return log[0] + self.window - now
        log.append(now)
        return None


def busiest_window(times: list[float], window: float) -> int:
    """The most requests in any window of `window` seconds (start included, end excluded)."""
    ordered, most, lo = sorted(times), 0, 0
    for hi, t in enumerate(ordered):
        while ordered[lo] <= t - window:
            lo += 1
        most = max(most, hi - lo + 1)
    return most


def over_budget(times: list[float], window: float, allowed: float) -> int:
    """How many requests arrived when the `window` seconds before them already held
    `allowed` (each one a window over budget)."""
    ordered, over, lo = sorted(times), 0, 0
    for hi, t in enumerate(ordered):
        while ordered[lo] <= t - window:
            lo += 1
        over += hi - lo + 1 > allowed
    return over


def retry_after_header(wait: float) -> str:
    """Whole seconds, rounded up so a client that obeys it is never early."""
    return str(max(1, math.ceil(wait)))
