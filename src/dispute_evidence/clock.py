"""The one clock the pipeline reads "now" from: the system's, unless something sets another.

Deadlines, read-back intervals, the report's "days left", archive folder dates and retention
all ask `now()`. A simulation (`python -m bench season`) or a test runs a whole year of nightly
runs in minutes by setting the clock with `use`. Locks and leases read it as epoch seconds
(`wall`, the state store's default): under the system clock that is `time.time`; a simulation's
clock runs at the real rate from its date, so an expiry still means a process stopped renewing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

Clock = Callable[[], datetime]
Wall = Callable[[], float]  # epoch seconds: what locks and leases time themselves by


def system_clock() -> datetime:
    return datetime.now(UTC)


_clock: Clock = system_clock


def now() -> datetime:
    """The current time (UTC, aware) by the clock in use."""
    return _clock()


def wall() -> float:
    """The current time in epoch seconds by the clock in use."""
    return _clock().timestamp()


@contextlib.contextmanager
def use(clock: Clock) -> Iterator[None]:
    """Read time from `clock` inside the block (a simulation's advanced calendar)."""
    global _clock
    before, _clock = _clock, clock
    try:
        yield
    finally:
        _clock = before
