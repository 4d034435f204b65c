"""A whole one-off run through the CLI, as a user starts it (issue 10): the no-op run and a
small run's overhead beyond its requests, against a bare `import dispute_evidence`."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.common import TOKEN, figure, heading, sandbox_process
from bench.engine_bench import seed_file
from dispute_evidence.sandbox.workload import make_inbox

SMALL = 13
REPEAT = 3


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


async def _plain_requests(base: str, n: int) -> float:
    """Seconds for n sequential loopback requests with a bare aiohttp session (no engine)."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with aiohttp.ClientSession(headers=headers) as s:
        t0 = time.perf_counter()
        for _ in range(n):
            async with s.get(f"{base}/disputes", params={"limit": 1}) as r:
                await r.read()
        return time.perf_counter() - t0


def run(quick: bool = False) -> None:
    heading("one-off run through the CLI (no Prefect server configured)")
    cli = [sys.executable, "-m", "dispute_evidence"]
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    # the budget is lifted: at 5,000/hour the pacer alone spaces 40 requests over ~29 s, and
    # that is the budget working, not overhead
    env.update(
        DISPUTE_API_TOKEN=TOKEN,
        DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS="0",
        DISPUTE_API_RATE_LIMIT_PER_HOUR="10000000",
    )
    baseline = statistics.median(
        _wall([sys.executable, "-c", "import dispute_evidence"], env) for _ in range(REPEAT)
    )
    figure("bare `import dispute_evidence` wall (s)", f"{baseline:.2f}", "baseline")
    with (
        tempfile.TemporaryDirectory() as tmp,
        sandbox_process("--seed-file", str(seed_file(Path(tmp), SMALL))) as base,
    ):
        env["DISPUTE_API_BASE_URL"] = base
        empty = Path(tmp) / "empty"
        empty.mkdir()
        noop = statistics.median(
            _wall([*cli, "run", "--inbox", str(empty)], env) for _ in range(REPEAT)
        )
        figure("no-op run wall (s)", f"{noop:.2f}", "target <= 3")
        flow = [
            sys.executable,
            "-c",
            "from flows.pipeline import evidence_run; from dispute_evidence.settings import "
            f"RunRequest; evidence_run(RunRequest(inbox={str(empty)!r}))",
        ]
        figure(
            "same no-op run as a flow on a temporary Prefect server (s)",
            f"{_wall(flow, env):.2f}",
            "before",
        )
        walls, requests = [], 0
        for i in range(REPEAT):
            inbox = Path(tmp) / f"small{i}"  # fresh files each time: every repeat sends all
            # the key check, one update and one summary PDF per dispute, and its files
            requests = 1 + 2 * SMALL + make_inbox(inbox, SMALL, seed=i, prefix="dp_test_")
            walls.append(
                _wall(
                    [
                        *cli,
                        "run",
                        "--inbox",
                        str(inbox),
                        "--state",
                        str(Path(tmp) / f"s{i}.sqlite3"),
                    ],
                    env,
                )
            )
        small = statistics.median(walls)
        plain = asyncio.run(_plain_requests(base, requests))
        figure(f"{SMALL}-dispute run wall (s), {requests} requests, budget lifted", f"{small:.2f}")
        figure(f"{requests} plain loopback requests (s)", f"{plain:.3f}")
        figure(f"{SMALL}-dispute run overhead (s)", f"{small - plain:.2f}", "target <= 3")
