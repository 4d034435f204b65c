"""Retry policy as small pieces: a pure decision, a wait that honours Retry-After, jitter."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from dispute_evidence.api.errors import ApiUnavailable, RateLimited, TransientError

MAX_RETRY_AFTER = 10 * 365 * 86400.0  # beyond any date a run can name: "after 10 years"


def should_retry(exc: BaseException) -> bool:
    """Transient errors are retried; terminal ones and unknown outcomes never are."""
    return isinstance(exc, TransientError)


def backoff(attempt: int, base: float = 0.5, cap: float = 30.0) -> float:
    """Capped exponential backoff for the `attempt`-th retry (1-based)."""
    return min(cap, base * 2.0 ** (attempt - 1))


def jitter(value: float, rand: Callable[[], float] = random.random) -> float:
    """'Equal jitter': between half and all of `value`, so callers spread out but still wait."""
    return value / 2 + value / 2 * rand()


def retry_wait(
    exc: BaseException | None,
    attempt: int,
    base: float = 0.5,
    cap: float = 30.0,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds before the next attempt: the server's Retry-After when it gave one, else backoff."""
    if isinstance(exc, RateLimited | ApiUnavailable) and exc.retry_after is not None:
        return exc.retry_after
    return jitter(backoff(attempt, base, cap), rand)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from now, as the API asked it: delay-seconds or an HTTP-date
    (RFC 9110: IMF-fixdate, RFC 850 or asctime), never below 0 and never cut short (what a run
    waits is bounded by [api] max_wait, which says so); beyond MAX_RETRY_AFTER, that."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:  # asctime names no zone: HTTP dates are in GMT
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)
