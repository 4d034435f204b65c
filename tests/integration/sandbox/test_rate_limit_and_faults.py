"""Rate limit exactness (fake clock and live) and each fault mode."""

from __future__ import annotations

import asyncio
import random
import time

import aiohttp
import pytest

from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.sandbox.ratelimit import SlidingWindowLimiter, retry_after_header
from tests.conftest import TOKEN
from tests.integration.sandbox.test_sandbox_http import auth, call


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_sliding_window_is_exact_over_any_window():
    clock = FakeClock()
    lim = SlidingWindowLimiter(limit=7, window=10.0, clock=clock)
    rng = random.Random(5)
    admitted: list[float] = []
    for _ in range(2000):
        clock.now += rng.expovariate(2.0)
        wait = lim.admit("k")
        in_window = [t for t in admitted if t > clock.now - 10.0]
        if wait is None:
            admitted.append(clock.now)
            assert len(in_window) < 7  # admitted only with room
        else:
            assert len(in_window) == 7  # refused only when full
            assert wait == pytest.approx(in_window[0] + 10.0 - clock.now)
    # over every window anchored at an admission, never more than the limit
    for i, t in enumerate(admitted):
        assert sum(1 for u in admitted[i:] if u < t + 10.0) <= 7


def test_keys_are_limited_separately_and_retry_after_rounds_up():
    clock = FakeClock()
    lim = SlidingWindowLimiter(limit=1, window=60, clock=clock)
    assert lim.admit("a") is None and lim.admit("b") is None
    clock.now += 0.5
    assert lim.admit("a") == pytest.approx(59.5)
    assert retry_after_header(59.5) == "60" and retry_after_header(0.01) == "1"


async def test_live_rate_limit_429_with_retry_after(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN, "other"), rate_limit=5, rate_window=2.0))
    started = time.monotonic()
    results = [await call("GET", f"{sb.base_url}/disputes", headers=auth()) for _ in range(6)]
    assert [s for s, _, _ in results] == [200] * 5 + [429]
    _, body, headers = results[-1]
    assert body["code"] == "rate_limited" and headers["Retry-After"] in ("1", "2")
    status, _, _ = await call("GET", f"{sb.base_url}/disputes", headers=auth("other"))
    assert status == 200  # per token
    await asyncio.sleep(max(0.0, started + 2.05 - time.monotonic()))
    status, _, _ = await call("GET", f"{sb.base_url}/disputes", headers=auth())
    assert status == 200


async def test_fail_fault_is_503_and_does_nothing(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=1.0))
    status, body, _ = await call("POST", f"{sb.base_url}/disputes/update-evidence", headers=auth(),
                                 json={"provider_dispute_id": "dp_test_0", "evidence": {"additional_evidence": {}}})  # fmt: skip
    assert status == 503 and body["type"] == "api_error"
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0


async def test_ambiguous_fault_commits_then_502_or_drops(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), ambiguous_rate=1.0, seed=11))
    outcomes = []
    for _ in range(8):
        try:
            status, _, _ = await call("POST", f"{sb.base_url}/disputes/update-evidence", headers=auth(),
                                      json={"provider_dispute_id": "dp_test_0", "evidence": {}})  # fmt: skip
            outcomes.append(status)
        except aiohttp.ServerDisconnectedError:
            outcomes.append("dropped")
    assert set(outcomes) == {502, "dropped"}
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 8  # every one committed


async def test_latency_fault_delays(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(150, 160)))
    t0 = time.monotonic()
    status, _, _ = await call("GET", f"{sb.base_url}/disputes", headers=auth())
    assert status == 200 and time.monotonic() - t0 >= 0.15


async def test_hang_fault_outlasts_client_timeout_and_does_nothing(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), hang_rate=1.0, hang_seconds=1.0))
    with pytest.raises(asyncio.TimeoutError):
        await call("POST", f"{sb.base_url}/disputes/update-evidence", headers=auth(),
                   json={"provider_dispute_id": "dp_test_0", "evidence": {}},
                   timeout=aiohttp.ClientTimeout(total=0.3))  # fmt: skip
    await asyncio.sleep(1.0)
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0
