"""Client and sandbox benchmarks (issues 2 and 3)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from bench.common import TOKEN, figure, heading, sandbox_process
from dispute_evidence.api import DisputeEvidenceClient


@dataclass
class Side:
    """One side of the overhead comparison: requests done, wall and CPU seconds spent."""

    done: int = 0
    wall: float = 0.0
    cpu: float = 0.0

    def add(self, done: int, wall: float, cpu: float) -> None:
        self.done, self.wall, self.cpu = self.done + done, self.wall + wall, self.cpu + cpu


async def for_seconds(
    call: Callable[[], Awaitable[Any]], seconds: float, concurrency: int = 50
) -> int:
    """Requests made by `concurrency` callers of `call` in `seconds`."""
    count = 0
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        nonlocal count
        while time.monotonic() < deadline:
            await call()
            count += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return count


async def overhead(base: str, rounds: int, seconds: float) -> tuple[Side, Side]:
    """A plain aiohttp loop (the baseline) and our client, in turns of `seconds` on one event
    loop and one server, each keeping its connections: a shared machine's load drifts over
    seconds, so the two sides see the same load only if they take turns (the first goes
    second in every other round). Wall and CPU time of this process (the server has its own)."""
    bare, ours = Side(), Side()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        aiohttp.ClientSession(headers=auth) as s,
        DisputeEvidenceClient(
            base, TOKEN, rate_limit_per_hour=1_000_000_000, max_concurrency=50, max_attempts=50
        ) as c,
    ):

        async def plain() -> None:
            async with s.get(f"{base}/disputes", params={"limit": 1}) as r:
                await r.read()
                assert r.status == 200, r.status

        async def client() -> None:
            await c.list_disputes(limit=1)

        turns = [(bare, plain), (ours, client)]
        for _, call in turns:  # connect and warm up: not counted
            await for_seconds(call, 0.3)
        for n in range(rounds):
            for side, call in turns if n % 2 == 0 else turns[::-1]:
                wall, cpu = time.monotonic(), time.process_time()
                done = await for_seconds(call, seconds)
                side.add(done, time.monotonic() - wall, time.process_time() - cpu)
    return bare, ours


async def client_loop(
    base: str,
    seconds: float | None,
    concurrency: int,
    per_hour: int,
    total: int | None = None,
    **kw,
) -> tuple[float, int, int, int]:
    """(requests/s, successes, 429s seen, attempts) through our client."""
    done = 0
    deadline = time.monotonic() + seconds if seconds else None
    async with DisputeEvidenceClient(
        base,
        TOKEN,
        rate_limit_per_hour=per_hour,
        max_concurrency=concurrency,
        max_attempts=50,
        **kw,
    ) as c:

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
        return done / elapsed, done, c.stats.rate_limited, c.stats.attempts


def run(quick: bool = False) -> None:
    secs = 10 if quick else 60
    heading("Sandbox throughput and client overhead (rate limit lifted)")
    rounds = 5 if quick else 15
    with sandbox_process("--generate", "50", "--rate-limit", "100000000") as base:
        bare, ours = asyncio.run(overhead(base, rounds, 1.0))
    print(f"  ({rounds} turns of 1 s each side, alternating, on one server and one event loop)")
    rate, bare_rate = ours.done / ours.wall, bare.done / bare.wall
    cpu, bare_cpu = ours.done / ours.cpu, bare.done / bare.cpu
    figure(
        "sandbox, bare aiohttp loop, 50 concurrent (req/s)", f"{bare_rate:,.0f}", "target >= 1,000"
    )
    figure("through our client, same server (req/s)", f"{rate:,.0f}", "")
    figure("client / bare", f"{rate / bare_rate:.0%}", "target >= 70%")
    figure("bare aiohttp: requests per CPU second of the caller", f"{bare_cpu:,.0f}")
    figure("our client: requests per CPU second of the caller", f"{cpu:,.0f}")
    figure(
        "client / bare, per CPU second (steadier on a shared machine)",
        f"{cpu / bare_cpu:.0%}",
        "target >= 70%",
    )

    heading(f"Precision: client and server both 36,000/hour, 50 callers, {secs} s")
    for window in (3600, 60):
        limit = 36000 * window // 3600
        with sandbox_process(
            "--generate", "5", "--rate-limit", str(limit), "--rate-window", str(window)
        ) as base:
            rate, done, r429, attempts = asyncio.run(client_loop(base, secs, 50, 36000))
        figure(
            f"server window {window} s: achieved rate (req/hour)",
            f"{rate * 3600:,.0f}",
            f"{rate * 3600 / 36000:.1%} of configured; target >= 97%",
        )
        figure(f"server window {window} s: 429s", f"{r429}", "target 0")

    heading("Stricter server: server 80% of the client's rate (28,800 vs 36,000/hour)")
    total = 600 if quick else 2400
    with sandbox_process("--generate", "5", "--rate-limit", "480", "--rate-window", "60") as base:
        t0 = time.monotonic()
        rate, done, r429, attempts = asyncio.run(client_loop(base, None, 50, 36000, total=total))
        elapsed = time.monotonic() - t0
    figure("requests completed successfully", f"{done:,} of {total:,}", f"in {elapsed:.0f} s")
    figure("429s / attempts", f"{r429} / {attempts} = {r429 / attempts:.2%}", "target <= 2%")
