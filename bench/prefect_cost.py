"""Issue 32: Prefect's own cost per flow run with many merchants on one Prefect server
(`python -m bench scale --merchants 100 --quick`).

Each merchant has its own deployment, inbox, PostgreSQL schema and API key (so the local API's
request log says when each merchant's first request came); two process workers run them all.
Printed: seconds from a flow run's scheduled time to Running, from Running to its merchant's
first API request, and the Prefect database's size before and after, per flow run.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import figure, heading


def run_merchants(n: int, quick: bool) -> None:
    from support.fleet import Merchant, fleet_stack
    from support.pg import postgres_missing

    per = 3 if quick else 20
    heading(f"scale: {n} merchants x {per} disputes on one Prefect server, 2 process workers")
    if why := postgres_missing():
        print(f"  skipped: {why}")
        return
    keys = {f"k{i}": 1_000_000 for i in range(1, n + 1)}
    merchants = [Merchant(f"m{i}", f"k{i}", per) for i in range(1, n + 1)]
    with (
        tempfile.TemporaryDirectory(prefix="bench-prefect-cost-") as tmp,
        fleet_stack(Path(tmp), merchants, keys, window=60.0, summary_pdf=False) as fleet,
    ):
        t_deploy = time.monotonic()
        assert fleet.deploy().returncode == 0, "deploy failed"
        deployed = time.monotonic() - t_deploy
        size_before = _database_size(fleet.root)
        for name in ("w1", "w2"):
            fleet.start_worker(name, limit=4)
        time.sleep(4)
        wall_minus_mono = time.time() - time.monotonic()  # the request log is monotonic
        begun = time.monotonic()
        fleet.trigger_all()
        while not fleet.done():
            time.sleep(3)
        elapsed = time.monotonic() - begun
        runs = _triggered_runs(fleet)
        firsts = {
            k: min(t) + wall_minus_mono for k, t in fleet.sandbox.requests_by_key().items() if t
        }
        size_after = _database_size(fleet.root)
        _print(fleet, runs, firsts, deployed, elapsed, (size_before, size_after))


def _triggered_runs(fleet: Any) -> list[Any]:
    """Every flow run the bench triggered (not the schedule's future ones), all pages."""
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import FlowRunSort

    runs: list[Any] = []
    with fleet.client() as client:
        while page := client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=["dispute-evidence-merchant"])),
            limit=200,
            offset=len(runs),
            sort=FlowRunSort.EXPECTED_START_TIME_ASC,
        ):
            runs += page
    return [r for r in runs if r.parameters.get("trigger") == "test" and r.start_time]


def _print(fleet: Any, runs: list[Any], firsts: dict[str, float], deployed: float,
           elapsed: float, sizes: tuple[int, int]) -> None:  # fmt: skip
    waits = [(r.start_time - r.expected_start_time).total_seconds() for r in runs if r.start_time]
    to_first = []
    for r in runs:
        label = fleet.key_label(r.parameters["merchant"]["key"])
        if r.start_time and label in firsts:
            first = datetime.fromtimestamp(firsts[label], UTC)
            to_first.append((first - r.start_time).total_seconds())
    figure("flow runs (one per merchant, triggered at once)", f"{len(runs)}")
    figure(
        "flow runs finished per minute (8 slots: 2 workers x 4)", f"{len(runs) / elapsed * 60:.1f}"
    )
    figure("deploy every merchant (s)", f"{deployed:.1f}")
    figure("trigger -> every run finished (s)", f"{elapsed:.1f}")
    for name, values in (
        ("scheduled -> running (mostly waiting for a free slot)", waits),
        ("running -> first request (Prefect's start of a run)", to_first),
    ):
        if values:
            q = statistics.quantiles(values, n=10)
            figure(f"{name}, median (s)", f"{statistics.median(values):.1f}")
            figure(f"{name}, 90th percentile (s)", f"{q[-1]:.1f}")
    before, after = sizes
    figure("Prefect database after deploy (MB)", f"{before / 1e6:.1f}")
    figure("Prefect database after the runs (MB)", f"{after / 1e6:.1f}")
    figure("Prefect database growth per flow run (KB)", f"{(after - before) / 1e3 / len(runs):.0f}")


def _prefect_dsn(root: Path) -> str:
    url = next(
        line.split('"')[1]
        for line in (root / "merchants.toml").read_text().splitlines()
        if line.startswith("state_url")
    )
    return url.replace("postgresql+psycopg://", "postgresql://").rsplit("/", 1)[0] + "/prefect"


def _database_size(root: Path) -> int:
    """Bytes of the Prefect server's PostgreSQL database."""
    import psycopg

    with psycopg.connect(_prefect_dsn(root)) as conn:
        row = conn.execute("SELECT pg_database_size('prefect')").fetchone()
    return int(row[0]) if row else 0


def _table_sizes(root: Path) -> dict[str, int]:
    """Bytes of each table of the Prefect database, with its indexes and TOAST."""
    import psycopg

    with psycopg.connect(_prefect_dsn(root)) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
        ).fetchall()
    return {str(name): int(size) for name, size in rows}
