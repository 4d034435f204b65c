"""Retry policy pieces, error mapping, and the pacer's window under a fake clock."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime

import pytest

from dispute_evidence.api.errors import (
    ApiUnavailable,
    AuthenticationFailed,
    FileRejected,
    InvalidRequest,
    OutcomeUnknown,
    RateLimited,
    RequestInfo,
    UnexpectedResponse,
)  # fmt: skip
from dispute_evidence.api.pacer import RequestPacer
from dispute_evidence.api.response_errors import error_from_response
from dispute_evidence.api.retry import backoff, jitter, parse_retry_after, retry_wait, should_retry

REQ = RequestInfo("GET", "http://127.0.0.1/v1/disputes")


def test_should_retry_by_kind_not_number():
    assert should_retry(RateLimited("x", status=429))
    assert should_retry(ApiUnavailable("x", status=503))
    assert not should_retry(AuthenticationFailed("x", status=401))
    assert not should_retry(InvalidRequest("x", status=400))
    assert not should_retry(OutcomeUnknown("x"))
    assert not should_retry(UnexpectedResponse("x"))


def test_backoff_is_capped_and_jitter_pinned():
    assert [backoff(n, 0.5, 4) for n in range(1, 6)] == [0.5, 1, 2, 4, 4]
    assert jitter(8, rand=lambda: 0.0) == 4 and jitter(8, rand=lambda: 1.0) == 8


def test_retry_wait_honours_retry_after():
    assert retry_wait(RateLimited("x", retry_after=7.0), 1) == 7.0
    assert retry_wait(ApiUnavailable("x", retry_after=3.0), 4) == 3.0
    assert retry_wait(ApiUnavailable("x"), 3, base=1, cap=100, rand=lambda: 1.0) == 4


def test_parse_retry_after_seconds_and_http_date():
    now = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("12") == 12
    assert parse_retry_after("Sat, 21 Nov 2026 12:00:30 GMT", now=now) == 30
    assert parse_retry_after("Sat, 21 Nov 2026 11:00:00 GMT", now=now) == 0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("999999") == 999999  # what the API asked, never cut to an hour
    # RFC 9110's three HTTP-date forms: IMF-fixdate, obsolete RFC 850 and asctime
    assert parse_retry_after("Mon, 23 Nov 2026 12:00:00 GMT", now=now) == 2 * 86400
    assert parse_retry_after("Monday, 23-Nov-26 12:00:00 GMT", now=now) == 2 * 86400
    assert parse_retry_after("Mon Nov 23 12:00:00 2026", now=now) == 2 * 86400
    assert parse_retry_after("inf") is None and parse_retry_after("nan") is None


@pytest.mark.parametrize(("status", "body", "kind"), [
    (401, b'{"type":"invalid_request_error","message":"bad key"}', AuthenticationFailed),
    (415, b'{"type":"invalid_request_error","message":"type","param":"file"}', FileRejected),
    (400, b'{"error":{"type":"invalid_request_error","message":"wrapped","param":"limit"}}', InvalidRequest),
    (502, b"<html>Bad Gateway</html>", ApiUnavailable),
    (429, b"", RateLimited),
    (418, b"not json", InvalidRequest),
])  # fmt: skip
def test_error_mapping_tolerates_any_body(status, body, kind):
    exc = error_from_response(status, body, {"Retry-After": "5"}, REQ)
    assert type(exc) is kind and exc.status == status and exc.message
    if b"wrapped" in body:
        assert exc.param == "limit"
    if body.startswith(b"<html>"):
        assert "not the documented Error shape" in exc.message and "Bad Gateway" in exc.message


def run_with_fake_clock(coro_fn):
    """Run on a loop with virtual time: whenever the loop would sleep, the clock jumps instead.

    aiolimiter and asyncio.sleep both read loop.time(), so a 1-hour window takes milliseconds
    and every timestamp is exact.
    """
    loop = asyncio.new_event_loop()
    now = [1000.0]
    loop.time = lambda: now[0]  # type: ignore[method-assign]
    selector = loop._selector  # type: ignore[attr-defined]
    real_select = selector.select

    def select(timeout=None):
        events = real_select(0)
        # A real clock never stands still: aiolimiter reschedules itself "now" when float
        # rounding leaves it 1e-15 of a token short, which would spin forever at frozen time.
        now[0] += timeout if (timeout and not events) else 1e-6
        return events

    selector.select = select
    result: list[object] = []

    def run() -> None:  # own thread: no event-loop state shared with pytest-asyncio's loops
        try:
            result.append(loop.run_until_complete(coro_fn()))
        finally:
            loop.close()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=60)
    assert result, "fake-clock scenario did not finish"
    return result[0]


def test_pacer_never_exceeds_limit_in_any_window():
    limit, period = 300, 3600.0

    async def scenario():
        pacer = RequestPacer(limit, period, burst=10)
        loop = asyncio.get_running_loop()
        stamps: list[float] = []

        async def caller():
            for _ in range(20):
                await pacer.acquire()
                stamps.append(loop.time())

        await asyncio.gather(*(caller() for _ in range(40)))  # 800 acquisitions, ~2.7 periods
        return sorted(stamps)

    stamps = run_with_fake_clock(scenario)
    j = 0
    worst = 0
    for i, t in enumerate(stamps):
        while stamps[j] <= t - 3600.0:
            j += 1
        worst = max(worst, i - j + 1)
    assert worst <= limit
    achieved = (len(stamps) - 10) / (stamps[-1] - stamps[0]) * 3600
    assert achieved >= 0.95 * limit  # and it does spend the budget


def test_pause_holds_every_caller_until_retry_after():
    async def scenario():
        pacer = RequestPacer(100_000, 3600.0, burst=50)
        loop = asyncio.get_running_loop()
        pacer.pause(600.0)
        t0 = loop.time()
        stamps: list[float] = []

        async def caller():
            await pacer.acquire()
            stamps.append(loop.time())

        await asyncio.gather(*(caller() for _ in range(20)))
        return t0, stamps

    t0, stamps = run_with_fake_clock(scenario)
    assert len(stamps) == 20 and min(stamps) >= t0 + 600.0


def _max_in_window(stamps: list[float], window: float) -> int:
    j = worst = 0
    for i, t in enumerate(stamps):
        while stamps[j] <= t - window:
            j += 1
        worst = max(worst, i - j + 1)
    return worst


@pytest.mark.parametrize("limit", [5000, 36000])
def test_pacer_holds_the_rate_pro_rata_over_any_minute(limit):
    async def scenario():
        pacer = RequestPacer(limit, 3600.0)
        loop = asyncio.get_running_loop()
        stamps: list[float] = []

        async def caller():
            while len(stamps) < limit // 12:  # five minutes' worth
                await pacer.acquire()
                stamps.append(loop.time())

        await asyncio.gather(*(caller() for _ in range(50)))
        return sorted(stamps)

    stamps = run_with_fake_clock(scenario)
    per_minute = limit * 60 / 3600
    assert (
        _max_in_window(stamps, 60.0) <= per_minute
    )  # a 60 s sliding-window server never sees a spike
    achieved = (len(stamps) - 1) / (stamps[-1] - stamps[0]) * 3600
    assert achieved >= 0.97 * limit
