"""Client and sandbox benchmarks (issues 2 and 3)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from bench.common import TOKEN, figure, heading, sandbox_process
from dispute_evidence.api import DisputeEvidenceClient


def cpu_rate(loop: Callable[..., Awaitable[Any]], *args: Any, **kw: Any) -> tuple[Any, float]:
    """What `loop` returns, and its requests per CPU second of this process (the server runs
    in its own): on a shared machine, wall-clock rates move with everyone else's load."""
    counted: list[int] = []
    cpu = time.process_time()
    result = asyncio.run(loop(*args, counted=counted, **kw))
    return result, counted[0] / (time.process_time() - cpu)


async def bare_loop(
    base: str, seconds: float, concurrency: int = 50, counted: list[int] | None = None
) -> float:
    """Requests/s of a plain aiohttp loop: the baseline."""
    count = 0
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as s:

        async def worker() -> None:
            nonlocal count
            while time.monotonic() < deadline:
                async with s.get(f"{base}/disputes", params={"limit": 1}) as r:
                    await r.read()
                    assert r.status == 200, r.status
                count += 1

        t0 = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        if counted is not None:
            counted.append(count)
        return count / (time.monotonic() - t0)


async def client_loop(base: str, seconds: float | None, concurrency: int, per_hour: int,
                      total: int | None = None, counted: list[int] | None = None,
                      **kw) -> tuple[float, int, int, int]:  # fmt: skip
    """(requests/s, successes, 429s seen, attempts) through our client."""
    done = 0
    deadline = time.monotonic() + seconds if seconds else None
    async with DisputeEvidenceClient(base, TOKEN, rate_limit_per_hour=per_hour, max_concurrency=concurrency,
                                     max_attempts=50, **kw) as c:  # fmt: skip

        async def worker() -> None:
            nonlocal done
            while (deadline is None or time.monotonic() < deadline) and (
                total is None or done < total
            ):
                done += 1
                await c.list_disputes(limit=1)

        t0 = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.monotonic() - t0
        if counted is not None:
            counted.append(done)
        return done / elapsed, done, c.stats.rate_limited, c.stats.attempts


def run(quick: bool = False) -> None:
    secs = 10 if quick else 60
    heading("Sandbox throughput and client overhead (rate limit lifted)")
    with sandbox_process("--generate", "50", "--rate-limit", "100000000") as base:
        bare, bare_cpu = cpu_rate(bare_loop, base, 5 if quick else 15)
        (rate, *_), cpu = cpu_rate(client_loop, base, 5 if quick else 15, 50, 1_000_000_000)
    figure("sandbox, bare aiohttp loop, 50 concurrent (req/s)", f"{bare:,.0f}", "target >= 1,000")
    figure("through our client, same server (req/s)", f"{rate:,.0f}", "")
    figure("client / bare", f"{rate / bare:.0%}", "target >= 70%")
    figure("bare aiohttp: requests per CPU second of the caller", f"{bare_cpu:,.0f}")
    figure("our client: requests per CPU second of the caller", f"{cpu:,.0f}")
    figure("client / bare, per CPU second (steadier on a shared machine)", f"{cpu / bare_cpu:.0%}",
           "target >= 70%")  # fmt: skip

    heading(f"Precision: client and server both 36,000/hour, 50 callers, {secs} s")
    for window in (3600, 60):
        limit = 36000 * window // 3600
        with sandbox_process(
            "--generate", "5", "--rate-limit", str(limit), "--rate-window", str(window)
        ) as base:
            rate, done, r429, attempts = asyncio.run(client_loop(base, secs, 50, 36000))
        figure(f"server window {window} s: achieved rate (req/hour)", f"{rate * 3600:,.0f}",
               f"{rate * 3600 / 36000:.1%} of configured; target >= 97%")  # fmt: skip
        figure(f"server window {window} s: 429s", f"{r429}", "target 0")

    heading("Stricter server: server 80% of the client's rate (28,800 vs 36,000/hour)")
    total = 600 if quick else 2400
    with sandbox_process("--generate", "5", "--rate-limit", "480", "--rate-window", "60") as base:
        t0 = time.monotonic()
        rate, done, r429, attempts = asyncio.run(client_loop(base, None, 50, 36000, total=total))
        elapsed = time.monotonic() - t0
    figure("requests completed successfully", f"{done:,} of {total:,}", f"in {elapsed:.0f} s")
    figure("429s / attempts", f"{r429} / {attempts} = {r429 / attempts:.2%}", "target <= 2%")
