"""Issue 48: a platform's night, `python -m bench scale --merchants N [--compare]`.

N merchants with small inboxes (1-3 disputes each, one API key each, 5,000/h pro-rated per
minute) on one Prefect server (PostgreSQL), deployed with `deploy --sweep`; two process workers,
one SIGKILLed with its shard when half the merchants are done (a replacement worker starts, as
systemd would start it again); sweeps are triggered every SWEEP_EVERY s (the deployment's
schedule is every 10 min). After the night, the shared budget's overhead: one client's
requests/s without and with it, on the fleet's budget database (bench/scale_bench.py).
`--compare` runs today's one-deployment-per-merchant design on COMPARE merchants in the same run
(no kill there) and prints the same figures beside them.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import heading

SWEEP_EVERY = 60.0
COMPARE = 200
PER_HOUR, WINDOW = 5000, 60.0


def run_night(n: int, compare: bool) -> None:
    from support.pg import postgres_missing

    heading(f"scale: a platform's night, {n} merchants x 1-3 disputes, 2 workers (issue 48)")
    if why := postgres_missing():
        print(f"  skipped: {why}")
        return
    rows = {"sweep": _sweep_night(n)}
    if compare:
        rows["per merchant"] = _per_merchant_night(COMPARE)
    names = list(rows)
    labels = list(dict.fromkeys(label for figures in rows.values() for label in figures))
    print(f"  {'':<58}" + "".join(f"{k:>18}" for k in names))
    for label in labels:
        print(f"  {label:<58}" + "".join(f"{rows[k].get(label, '-'):>18}" for k in names))
    s = rows["sweep"]
    print(
        f"scale: duplicates {s['duplicates (files uploaded twice)']}, "
        f"over-budget windows {s['windows over budget']}, "
        f"shared-budget overhead {s['shared budget: overhead (%)']}%"
    )


def _merchants(n: int) -> tuple[list[Any], dict[str, int]]:
    from support.fleet import Merchant

    merchants = [Merchant(f"m{i}", f"k{i}", 1 + i % 3) for i in range(1, n + 1)]
    return merchants, {m.key: PER_HOUR for m in merchants}


PROGRESS_EVERY = 300.0  # seconds between a long night's progress lines


def _sweep_night(n: int) -> dict[str, str]:
    from flows.sweep import SHARD_FLOW, SWEEP_FLOW
    from support.fleet import fleet_stack

    merchants, keys = _merchants(n)
    with (
        tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp,
        fleet_stack(Path(tmp), merchants, keys, window=WINDOW, summary_pdf=False) as fleet,
    ):
        deployed = fleet.deploy("--sweep")
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        size_before = _table_sizes(fleet.root)
        fleet.start_worker("w1", limit=2)
        fleet.start_worker("w2", limit=2)
        time.sleep(4)
        offset = time.time() - time.monotonic()  # the request log is monotonic
        begun = time.monotonic()
        fleet.trigger(f"{SWEEP_FLOW}/sweep-utc", shard_size=(n + 1) // 2)
        nights, killed = _settle(fleet, n, begun, after="", kill=True)
        wall = time.monotonic() - begun
        size_after = _settled_sizes(fleet.root)
        logs = fleet.sandbox.requests_by_key()
        starts = {m: x.started_at for m, x in nights.items() if x.started_at}
        firsts = [
            min(logs[fleet.key_label(m.key)]) + offset - starts[m.id]
            for m in merchants
            if logs.get(fleet.key_label(m.key)) and m.id in starts
        ]
        runs = len(fleet.runs_of(SWEEP_FLOW)) + len(fleet.runs_of(SHARD_FLOW))
        failed = sum(1 for x in nights.values() if x.stage == "failed")
        first = _figures(
            fleet,
            merchants,
            keys,
            wall,
            firsts,
            runs,
            (size_before, size_after),
            extra={"merchants failed": str(failed), "shards killed mid-night": str(killed)},
        )
        return first | _second_night(fleet, merchants, max(x.night for x in nights.values()))


def _settle(fleet: Any, n: int, begun: float, after: str, kill: bool) -> tuple[dict[str, Any], int]:
    """Sweep every SWEEP_EVERY s until each merchant's night later than `after` (ISO) is done or
    failed; with `kill`, a shard's worker is SIGKILLed at half the merchants (a replacement
    starts, as systemd would start it). The nights, and how many shards died with the kill."""
    from flows.sweep import SWEEP_FLOW

    last_sweep, killed, said = time.monotonic(), 0, time.monotonic()
    while True:
        nights = _nights(fleet)
        settled = [x for x in nights.values() if x.night > after and x.stage in ("done", "failed")]
        if len(settled) == n:
            return nights, killed
        if time.monotonic() - said >= PROGRESS_EVERY:  # a long night says how far it is
            said = time.monotonic()
            print(f"  ... {len(settled):,} of {n:,} merchants settled after "
                  f"{said - begun:,.0f} s", flush=True)  # fmt: skip
        if kill and not killed and len(settled) >= n // 2 and (hit := _kill_a_shards_worker(fleet)):
            fleet.start_worker("w3", limit=2)
            killed = hit
        if time.monotonic() - last_sweep > SWEEP_EVERY:
            fleet.trigger(f"{SWEEP_FLOW}/sweep-utc", shard_size=(n + 1) // 2)
            last_sweep = time.monotonic()
        time.sleep(2)


def _second_night(fleet: Any, merchants: list[Any], first: str) -> dict[str, str]:
    """The next night, as most nights are: each merchant's state made already, and one new
    dispute for every other merchant (added at the API, its sheets and PDFs dropped in its
    inbox under new names), nothing new for the rest. A night with new work makes its first
    request once its files are read and its evidence built (its key was proven on the first
    night), so begun -> first request is start-up and that work; a night with nothing new
    makes no request, and its whole night (begun -> finished, its report written) is what a
    later night costs beyond its work."""
    from flows.sweep import SWEEP_FLOW
    from support.fleet import drop_second_batch

    busy = [m for i, m in enumerate(merchants) if i % 2 == 0]
    for m in busy:
        drop_second_batch(fleet, m)
    fleet.move_night()  # the merchants' cron moved to a minute ago: their next night is now
    size_before = _table_sizes(fleet.root)
    offset = time.time() - time.monotonic()
    begun = time.monotonic()
    fleet.trigger(f"{SWEEP_FLOW}/sweep-utc", shard_size=(len(merchants) + 1) // 2)
    nights, _ = _settle(fleet, len(merchants), begun, after=first, kill=False)
    wall = time.monotonic() - begun
    grown = (sum(_settled_sizes(fleet.root).values()) - sum(size_before.values())) / 1e6
    logs = fleet.sandbox.requests_by_key()
    firsts = [
        min(t for t in logs[fleet.key_label(m.key)] if t >= begun) + offset - started
        for m in busy
        if (started := nights[m.id].started_at)
        and any(t >= begun for t in logs.get(fleet.key_label(m.key), []))
    ]
    quiet = [
        x.finished_at - x.started_at
        for m in merchants[1::2]
        if (x := nights[m.id]).finished_at and x.started_at
    ]
    snap = fleet.sandbox.snapshot()
    sent = sum(1 for s in snap.values() if s["evidence"])
    failed = sum(1 for x in nights.values() if x.stage == "failed")
    q = statistics.quantiles(firsts, n=10) if len(firsts) >= 2 else [0.0] * 9
    median = statistics.median
    return {
        "2nd night: merchants with a new dispute / nothing new": f"{len(busy):,} / {len(quiet):,}",
        "2nd night: disputes with evidence / disputes": f"{sent:,} / {len(snap):,}",
        "2nd night: merchants failed": str(failed),
        "2nd night: wall time (s)": f"{wall:,.0f}",
        "2nd night, new work: begun -> 1st request, median (s)": f"{median(firsts):.2f}"
        if firsts
        else "-",
        "2nd night, new work: begun -> 1st request, p90 (s)": f"{q[-1]:.2f}",
        "2nd night, nothing new: the whole night, median (s)": f"{median(quiet):.2f}"
        if quiet
        else "-",
        "2nd night: Prefect database growth (MB)": f"{grown:,.1f}",
        "2nd night: duplicates after both nights": f"{_twice(snap)}",
    }


def _per_merchant_night(n: int) -> dict[str, str]:
    from bench.prefect_cost import _triggered_runs
    from support.fleet import fleet_stack

    merchants, keys = _merchants(n)
    with (
        tempfile.TemporaryDirectory(prefix="bench-per-merchant-") as tmp,
        fleet_stack(Path(tmp), merchants, keys, window=WINDOW, summary_pdf=False) as fleet,
    ):
        assert fleet.deploy().returncode == 0, "deploy failed"
        size_before = _table_sizes(fleet.root)
        fleet.start_worker("w1", limit=4)
        fleet.start_worker("w2", limit=4)
        time.sleep(4)
        offset = time.time() - time.monotonic()
        begun = time.monotonic()
        fleet.trigger_all()
        while not fleet.done():
            time.sleep(3)
        wall = time.monotonic() - begun
        runs = _triggered_runs(fleet)
        logs = fleet.sandbox.requests_by_key()
        firsts = []
        for r in runs:
            times = logs.get(fleet.key_label(r.parameters["merchant"]["key"]))
            if times and r.start_time:
                firsts.append(min(times) + offset - r.start_time.timestamp())
        size_after = _settled_sizes(fleet.root)
        return _figures(
            fleet,
            merchants,
            keys,
            wall,
            firsts,
            len(runs),
            (size_before, size_after),
            extra={"merchants failed": "0"},
        )


def _figures(
    fleet: Any,
    merchants: list[Any],
    keys: dict[str, int],
    wall: float,
    firsts: list[float],
    runs: int,
    sizes: tuple[dict[str, int], dict[str, int]],
    extra: dict[str, str],
) -> dict[str, str]:
    from bench.scale_bench import budget_overhead
    from dispute_evidence.sandbox.ratelimit import over_budget

    snap = fleet.sandbox.snapshot()
    logs = fleet.sandbox.requests_by_key()
    sent = sum(1 for s in snap.values() if s["evidence"])
    over = 0
    for key, per_hour in keys.items():
        times = logs.get(fleet.key_label(key), [])
        for window in (WINDOW, 3600.0):
            over += over_budget(times, window, per_hour * window / 3600)
    # the shared budget's cost, A/B on this fleet's budget database after its night
    plain, gated, per_take = budget_overhead(fleet.sandbox.base_url, fleet.probe_token, fleet.root)
    n = len(merchants)
    q = statistics.quantiles(firsts, n=10) if len(firsts) >= 2 else [0.0] * 9
    grown = (sum(sizes[1].values()) - sum(sizes[0].values())) / 1e6
    return {
        "merchants": f"{n:,}",
        **extra,
        "disputes with evidence / disputes": f"{sent:,} / {sum(m.n for m in merchants):,}",
        "wall time for the night (s)": f"{wall:,.0f}",
        "merchants per minute": f"{n / wall * 60:,.1f}",
        "start-up per merchant, median (s)": f"{statistics.median(firsts):.2f}" if firsts else "-",
        "start-up per merchant, p90 (s)": f"{q[-1]:.2f}",
        "flow runs created": f"{runs:,}",
        "Prefect database growth (MB)": f"{grown:,.1f}",
        "Prefect database growth per merchant (KB)": f"{grown * 1000 / n:,.1f}",
        "duplicates (files uploaded twice)": f"{_twice(snap)}",
        "evidence sent again (in flight at the kill)": f"{sum(s['evidence_updates'] for s in snap.values()) - sent}",
        "windows over budget": f"{over}",
        "shared budget: requests/s without it / with it": f"{plain:,.0f} / {gated:,.0f}",
        "shared budget: overhead (%)": f"{(plain - gated) / plain * 100:.1f}",
        "shared budget: ms per take (PostgreSQL)": f"{per_take:.2f}",
        "10,000 merchants at this rate (h, extrapolated)": f"{10_000 / (n / wall) / 3600:,.1f}",
        **_by_table(sizes, n),
    }


def _twice(snap: dict[str, Any]) -> int:
    """Files the local API holds more than once for one dispute (the same content twice)."""
    uploads = Counter((pid, f["sha256"]) for pid, s in snap.items() for f in s["files"])
    return sum(c - 1 for c in uploads.values())


def _by_table(sizes: tuple[dict[str, int], dict[str, int]], n: int) -> dict[str, str]:
    """Each Prefect table that grew by 100 bytes a merchant or more: KB a merchant (with its
    indexes and TOAST), largest first: where the database's growth goes."""
    before, after = sizes
    grown = {t: (after[t] - before.get(t, 0)) / n for t in after}
    big = sorted((t for t in grown if grown[t] >= 100), key=lambda t: -grown[t])
    return {f"  of which {t} (KB per merchant)": f"{grown[t] / 1000:,.1f}" for t in big}


def _kill_a_shards_worker(fleet: Any) -> int:
    """SIGKILL the worker running a shard (with it), as its machine dying would; how many
    shards died with it (0: no shard running yet, nothing killed)."""
    from flows.sweep import SHARD_FLOW
    from support.fleet import descendants

    pids = [
        int(str(r.infrastructure_pid).rsplit(":", 1)[-1])
        for r in fleet.runs_of(SHARD_FLOW)
        if r.state and r.state.is_running() and r.infrastructure_pid
    ]
    for name, worker in list(fleet.workers.items()):
        if hit := sum(1 for pid in pids if pid in descendants(worker.pid)):
            fleet.kill_worker(name)
            return hit
    return 0


def _nights(fleet: Any) -> dict[str, Any]:
    from dispute_evidence.fleet.nights import NightLedger

    ledger = NightLedger(fleet.state_url)
    try:
        return ledger.latest()
    finally:
        ledger.close()


def _table_sizes(root: Path) -> dict[str, int]:
    from bench.prefect_cost import _table_sizes as sizes

    return sizes(root)


def _settled_sizes(root: Path) -> dict[str, int]:
    """The tables' sizes once the server has written the night's last events (its event
    persister and task-run recorder flush every 5 s)."""
    time.sleep(12)
    return _table_sizes(root)


__all__ = ["run_night"]
