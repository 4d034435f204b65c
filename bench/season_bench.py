"""Issue 32: a season of nightly runs. One inbox, one state, a simulated year against the local
API (in this process, on the pipeline's clock, which the bench advances a day a night).

Each night N new disputes arrive at the API and in the inbox (disputes, orders and shipments
CSVs; a third with a proof PDF; one in twenty without its order, so it waits and its deadline
passes), the provider decides each dispute 30-75 days after it arrived, and one real run
(`engine.run_steps.run_inbox`, as `dispute-evidence run` makes it) ingests, builds, reads back,
sends and reports. Printed per simulated month: the nightly run's wall and CPU time (median;
CPU is this process's minus the local API's thread), requests to the API, the state's size, the
night's report folder's disk use (st_blocks, each file once; the PDFs it hard-links from the
stored copies in `.dispute-evidence/` add no bytes and are not counted) and the page's size
(report folders older than 30 days are removed by `[retention] reports_days`); at the end how
the last 30 nights compare with the first 30, bytes of state per dispute and peak memory.
"""

from __future__ import annotations

import cProfile
import gc
import io
import logging
import os
import pstats
import random
import resource
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import figure, heading
from dispute_evidence import clock
from dispute_evidence.inbox import PRIVATE
from dispute_evidence.sandbox.app import STATS_KEY, SandboxConfig
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.sandbox.runner import RunningSandbox, run_sandbox_in_thread
from dispute_evidence.sandbox.workload import write_rows
from dispute_evidence.settings import RunRequest

TOKEN = "sk_bench_season_token"
START = datetime(2027, 1, 1, 2, 0, tzinfo=UTC)  # the first night's run, 02:00 UTC
OUTCOMES = ("won", "won", "lost", "warning_closed", "charge_refunded")
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@dataclass
class Night:
    wall: float
    cpu: float
    requests: int
    state_bytes: int
    reports_bytes: int
    page_bytes: int
    gc_seconds: float = 0.0  # the collector's time during the run (all generations)
    standing_seconds: float = 0.0  # the run's own standing and CE 3.0 coverage (_StandingClock)
    standing_cpu: float = 0.0  # the same in CPU seconds


@dataclass
class Season:
    """The simulated world: what the provider decides when, and the figures of every night."""

    root: Path
    per_night: int
    rng: random.Random = field(default_factory=lambda: random.Random(32))
    decisions: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    nights: list[Night] = field(default_factory=list)

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def state(self) -> Path:
        return self.root / "state.sqlite3"

    @property
    def reports(self) -> Path:
        return self.root / "reports"


def arrive(season: Season, sb: RunningSandbox, night: int, today: datetime) -> None:
    """The night's new disputes: at the API, and their rows (and some proofs) in the inbox."""
    rng, disputes, orders, ships = season.rng, [], [], []
    (season.inbox / "proofs").mkdir(parents=True, exist_ok=True)
    for i in range(season.per_night):
        pid, order = f"dp_{night:03d}_{i:03d}", f"#{night:03d}{i:03d}"
        due = today + timedelta(days=rng.randint(7, 20))
        sb.call(lambda store, r: store.add_dispute(r), _api_row(pid, today, due, 1000 + i))
        disputes.append([pid, order, "product_not_received", iso(due)])
        if rng.random() >= 0.05:  # one in twenty waits for an order that never comes
            orders += [
                [
                    order[1:],
                    f"Item {j}",
                    9.5 + j,
                    1,
                    "USD",
                    f"c{pid}@example.com",
                    f"Customer {pid}",
                    "1 Main St, Springfield",
                ]
                for j in range(2)
            ]
            ships.append(
                [order[1:], f"1Z{night:03d}{i:05d}", "UPS", iso(today - timedelta(days=9))]
            )
        if i % 3 == 0:
            (season.inbox / "proofs" / f"{pid}_delivery.pdf").write_bytes(PDF + pid.encode())
        season.decisions[night + rng.randint(30, 75)].append(pid)
    write_rows(
        season.inbox / f"disputes-{night:03d}.csv",
        ["provider_dispute_id", "order_number", "reason", "response_due_by"],
        disputes,
    )
    write_rows(
        season.inbox / f"orders-{night:03d}.csv",
        [
            "order_number",
            "product_title",
            "price",
            "quantity",
            "currency_code",
            "customer_email",
            "customer_name",
            "shipping_address",
        ],
        orders,
    )
    write_rows(
        season.inbox / f"shipments-{night:03d}.csv",
        ["order_number", "tracking_number", "carrier", "delivered_at"],
        ships,
    )


def _api_row(pid: str, today: datetime, due: datetime, amount: int) -> dict[str, Any]:
    return {
        "provider_dispute_id": pid,
        "initiated_at": iso(today - timedelta(days=2)),
        "response_due_by": iso(due),
        "amount": amount,
        "currency": "USD",
        "reason": "product_not_received",
        "status": "needs_response",
        "provider": "stripe",
    }


def decide(season: Season, sb: RunningSandbox, night: int) -> None:
    """The provider's outcomes due tonight (30-75 days after each dispute arrived)."""
    for pid in season.decisions.pop(night, []):
        sb.move(pid, season.rng.choice(OUTCOMES))


class _GcClock:
    """Seconds the cyclic garbage collector ran (gc.callbacks), to tell its pauses, which grow
    with every object alive in this process (the local API's store too), from the run's work."""

    def __init__(self) -> None:
        self.total, self._began = 0.0, 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._began


GC = _GcClock()


def one_night(season: Season, sb: RunningSandbox, settings: Any, api: Any) -> Night:
    from dispute_evidence.engine.run_steps import run_inbox

    STANDING.install()
    standing0, standing_cpu0 = STANDING.total, STANDING.cpu
    thread = time.pthread_getcpuclockid(sb.thread.ident or 0)
    admitted = sb.call(lambda _s: sb.app[STATS_KEY]["admitted"])
    cpu0, api0, t0, gc0 = _cpu(), time.clock_gettime(thread), time.perf_counter(), GC.total
    result = run_inbox(
        settings, RunRequest(inbox=season.inbox, state=season.state, trigger="nightly"), api=api
    )
    wall = time.perf_counter() - t0
    cpu = _cpu() - cpu0 - (time.clock_gettime(thread) - api0)
    assert result.exit_code in (0, 1, 5), f"night run failed: {result.outcome}"
    page = result.report.parent / "summary.html"
    standing = STANDING.total - standing0
    return Night(
        wall,
        cpu,
        sb.call(lambda _s: sb.app[STATS_KEY]["admitted"]) - admitted,
        sum(_size(Path(f"{season.state}{s}")) for s in ("", "-wal")),
        _disk(page.parent, season.inbox / PRIVATE),
        _size(page),
        GC.total - gc0,
        standing,
        STANDING.cpu - standing_cpu0,
    )


class _StandingClock:
    """Seconds the run itself spent on the standing (ratios and CE 3.0 coverage, issue 40):
    a call after the run would find tonight's counts already kept, so the run's own calls are
    timed (engine/reporting/standing_alerts.py makes them, for the alerts and the report)."""

    def __init__(self) -> None:
        self.total = 0.0  # wall seconds
        self.cpu = 0.0  # CPU seconds of the thread that ran it (others' load aside)
        self._installed = False

    def install(self) -> None:
        from dispute_evidence.engine.reporting import standing_alerts

        if self._installed:
            return
        work = standing_alerts.merchant_standing

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return work(*args, **kwargs)
            finally:
                self.total += time.perf_counter() - t0
                self.cpu += time.thread_time() - c0

        standing_alerts.merchant_standing = timed  # type: ignore[assignment]
        self._installed = True


STANDING = _StandingClock()


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _disk(folder: Path, stored: Path) -> int:
    """Bytes the report folder takes on disk (st_blocks), each file (inode) once, leaving out
    the PDFs hard-linked from the stored copies in `stored` (.dispute-evidence/: the state keeps
    them anyway, so the report adds no bytes for them)."""
    kept = {p.stat().st_ino for p in stored.rglob("*") if p.is_file()}
    seen: set[int] = set()
    total = 0
    for path in folder.rglob("*"):
        st = path.lstat()
        if path.is_file() and st.st_ino not in kept and st.st_ino not in seen:
            seen.add(st.st_ino)
            total += st.st_blocks * 512
    return total


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def print_header() -> None:
    print(
        f"  {'month':<6}{'wall s':>9}{'CPU s':>8}{'requests':>10}{'state MB':>10}"
        f"{'report MB':>11}{'page KB':>9}{'GC s':>7}{'standing s':>12}{'its CPU':>10}"
    )


def print_month(nights: list[Night]) -> None:
    """The row of the month (30 nights) that ends with the last night run."""
    m = (len(nights) - 1) // 30 * 30
    month = nights[m:]
    last = month[-1]
    print(
        f"  {m // 30 + 1:<6}{statistics.median(n.wall for n in month):>9.2f}"
        f"{statistics.median(n.cpu for n in month):>8.2f}"
        f"{statistics.median(n.requests for n in month):>10.0f}"
        f"{last.state_bytes / 1e6:>10.1f}{last.reports_bytes / 1e6:>11.1f}"
        f"{last.page_bytes / 1e3:>9.0f}"
        f"{statistics.median(n.gc_seconds for n in month):>7.2f}"
        f"{statistics.median(n.standing_seconds for n in month):>12.3f}"
        f"{statistics.median(n.standing_cpu for n in month):>10.3f}",
        flush=True,
    )


def profiled_night(
    season: Season, sb: RunningSandbox, settings: Any, api: Any, night: int
) -> Night:
    """One night under cProfile: its requests by route, the steps and the functions that cost
    most (cumulative), and the stats kept in /tmp/season-night-N.prof for a closer look."""
    routes = dict(sb.call(lambda _s: sb.app[STATS_KEY]["by_route"]))
    profile = cProfile.Profile()
    done = profile.runcall(one_night, season, sb, settings, api)
    path = Path(tempfile.gettempdir()) / f"season-night-{night + 1}.prof"
    profile.dump_stats(path)
    after = sb.call(lambda _s: dict(sb.app[STATS_KEY]["by_route"]))
    grew = {k: n - routes.get(k, 0) for k, n in after.items() if n != routes.get(k, 0)}
    print(f"  -- night {night + 1}: {done.cpu:.2f} s CPU, requests {grew} ({path})")
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(40)
    print(text.getvalue(), flush=True)
    return done


def run(quick: bool = False, profile_nights: tuple[int, ...] = ()) -> None:
    """`profile_nights` (1-based): profile those nights and stop after the last of them."""
    from dispute_evidence.settings import load_settings

    per_night, days = (6, 365) if quick else (250, 365)
    if profile_nights:
        days = max(profile_nights)
    heading(f"season: {days} nightly runs, {per_night} new disputes a night, one inbox (issue 32)")
    logging.getLogger("dispute_evidence").setLevel(logging.ERROR)
    os.environ.update(DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS="0")
    config = SandboxConfig(tokens=(TOKEN,), rate_limit=10**9)
    with (
        tempfile.TemporaryDirectory(prefix="bench-season-") as tmp,
        run_sandbox_in_thread(config) as sb,
    ):
        season = Season(Path(tmp), per_night)
        # report folders go after 30 days ([retention]), as a merchant running it nightly sets
        settings = load_settings(
            None, paths={"reports": str(season.reports)}, retention={"reports_days": 30}
        )
        api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
        api = api.model_copy(update={"rate_limit_per_hour": 10**9})
        print_header()
        for night in range(days):
            today = START + timedelta(days=night)
            began = time.monotonic()
            with clock.use(lambda t=today, b=began: t + timedelta(seconds=time.monotonic() - b)):
                decide(season, sb, night)
                arrive(season, sb, night, today)
                if night + 1 in profile_nights:
                    season.nights.append(profiled_night(season, sb, settings, api, night))
                else:
                    season.nights.append(one_night(season, sb, settings, api))
            if (night + 1) % 30 == 0 or night == days - 1:
                print_month(season.nights)
        if profile_nights:  # a part of the season: its figures are the profiles
            return
        total = per_night * days
        first = statistics.median(n.wall for n in season.nights[:30])
        last = statistics.median(n.wall for n in season.nights[-30:])
        cpu_first = statistics.median(n.cpu for n in season.nights[:30])
        cpu_last = statistics.median(n.cpu for n in season.nights[-30:])
        cpu_steady = statistics.median(n.cpu for n in season.nights[90:120])
    figure(
        "nightly run, last 30 days / first 30 days (median)", f"{last / first:.2f}", "target <= 1.5"
    )
    figure("the same in CPU time", f"{cpu_last / cpu_first:.2f}")
    # the first month is a warm-up: no outcome arrives before day 30, so the disputes still
    # open (the work a night has) grow about fourfold until outcomes balance arrivals (~day 75)
    figure(
        "nightly CPU, last 30 days / days 91-120 (open work steady)", f"{cpu_last / cpu_steady:.2f}"
    )
    standing_first = statistics.median(n.standing_seconds for n in season.nights[:30])
    standing_last = statistics.median(n.standing_seconds for n in season.nights[-30:])
    figure("standing + CE 3.0 coverage per night, first 30 days (s)", f"{standing_first:.3f}")
    figure("the same, last 30 days (s)", f"{standing_last:.3f}")
    cpu = [n.standing_cpu for n in season.nights]
    figure(
        "the same in CPU seconds, first 30 / days 91-120 / last 30 days",
        f"{statistics.median(cpu[:30]):.3f} / {statistics.median(cpu[90:120]):.3f} / "
        f"{statistics.median(cpu[-30:]):.3f}",
    )
    figure("state bytes per dispute", f"{season.nights[-1].state_bytes / total:,.0f}")
    figure(
        "peak memory (MB, max RSS of this process)",
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f}",
    )
