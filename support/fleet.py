"""Many machines on one: PostgreSQL, `prefect server start` on it, process workers, the local
API with one token per key, and a merchants file deployed with the real CLI.

Used by tests/e2e/fleet/test_multi_worker.py and `python -m bench scale`."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dispute_evidence.sandbox import RunningSandbox, SandboxConfig, run_sandbox_in_thread
from dispute_evidence.sandbox.workload import make_inbox, seed_rows
from flows.serve import healthy
from support.pg import free_port, throwaway_postgres

POOL = "dispute-evidence-pool"
ROOT = Path(__file__).resolve().parents[1]


# seconds the fleet's Prefect server may take to answer: a `make test` on a slow 2-core
# machine spent 410 s in one fleet module's setup, every worker starting something at once
SERVER_START = 420


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (from /proc): a worker's flow-run processes."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@dataclass
class Merchant:
    id: str
    key: str
    n: int
    files: int = 0  # evidence files written for it (traps excluded)
    traps: list[bytes] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return f"{self.id}_dp_"


@dataclass
class Fleet:
    root: Path
    sandbox: RunningSandbox
    prefect_url: str
    env: dict[str, str]
    merchants: list[Merchant]
    keys: dict[str, int]  # key name -> budget per hour
    window: float
    probe_token: str  # a key of the local API that no merchant uses
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def state_url(self) -> str:
        """The merchants file's shared database (states, the keys' budgets, the nights)."""
        line = next(
            x
            for x in (self.root / "merchants.toml").read_text().splitlines()
            if x.startswith("state_url")
        )
        return line.split('"')[1]

    def key_label(self, key: str) -> str:
        """The sandbox's name for a key's request log (key-1 is the first key's token)."""
        return f"key-{list(self.keys).index(key) + 1}"

    def start_worker(self, name: str, limit: int) -> None:
        log = (self.root / f"worker-{name}.log").open("ab")
        self.workers[name] = subprocess.Popen(
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL, "--name", name,
             "--limit", str(limit), "--type", "process"],
            env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def move_night(self) -> None:
        """The merchants' cron moved to a minute ago: the next sweep finds each merchant's
        next night come (the sweep reads the merchants file each time; no re-deploy)."""
        path = self.root / "merchants.toml"
        ago = datetime.now(UTC) - timedelta(minutes=1)
        lines = [
            f'schedule = "{ago.minute} {ago.hour} * * *"' if x.startswith("schedule = ") else x
            for x in path.read_text().splitlines()
        ]
        path.write_text("\n".join(lines) + "\n")

    def kill_worker(self, name: str) -> list[int]:
        """SIGKILL a worker and every flow-run process it started: its machine died."""
        proc = self.workers[name]
        pids = [proc.pid, *descendants(proc.pid)]
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
        return pids

    def client(self) -> Any:
        from prefect.client.orchestration import get_client
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings({PREFECT_API_URL: self.prefect_url}):
            return get_client(sync_client=True)

    def deploy(self, *extra: str, file: str = "merchants.toml") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dispute_evidence", "deploy", "--merchants",
             str(self.root / file), "--pool", POOL, *extra],
            env=self.env, cwd=self.root, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    def trigger_all(self) -> dict[str, str]:
        """One run of every merchant's deployment now; merchant id -> flow run id."""
        out = {}
        with self.client() as client:
            for m in self.merchants:
                dep = client.read_deployment_by_name(f"dispute-evidence-merchant/merchant-{m.id}")
                run = client.create_flow_run_from_deployment(dep.id, parameters={"trigger": "test"})
                out[m.id] = str(run.id)
        return out

    def trigger(self, deployment: str, **parameters: Any) -> str:
        """One run of `deployment` ("flow/name") now; its flow run id."""
        with self.client() as client:
            dep = client.read_deployment_by_name(deployment)
            return str(client.create_flow_run_from_deployment(dep.id, parameters=parameters).id)

    def runs_of(self, flow: str) -> list[Any]:
        """Every flow run of `flow`, oldest first."""
        from prefect.client.schemas.filters import FlowFilter, FlowFilterName
        from prefect.client.schemas.sorting import FlowRunSort

        runs: list[Any] = []
        with self.client() as client:
            while page := client.read_flow_runs(
                flow_filter=FlowFilter(name=FlowFilterName(any_=[flow])),
                limit=200,
                offset=len(runs),
                sort=FlowRunSort.EXPECTED_START_TIME_ASC,
            ):
                runs += page
                if len(page) < 200:
                    break
        return runs

    def flow_runs(self) -> list[Any]:
        """Every merchant flow run that has left Scheduled (the nightly schedule's ~100 future
        runs a deployment are filtered by the server, not read and parsed on every poll)."""
        from prefect.client.schemas.filters import (
            FlowFilter,
            FlowFilterName,
            FlowRunFilter,
            FlowRunFilterState,
            FlowRunFilterStateType,
        )
        from prefect.client.schemas.objects import StateType
        from prefect.client.schemas.sorting import FlowRunSort

        begun = FlowRunFilterState(type=FlowRunFilterStateType(not_any_=[StateType.SCHEDULED]))
        with self.client() as client:
            return list(
                client.read_flow_runs(
                    flow_filter=FlowFilter(name=FlowFilterName(any_=["dispute-evidence-merchant"])),
                    flow_run_filter=FlowRunFilter(state=begun),
                    limit=200,
                    sort=FlowRunSort.EXPECTED_START_TIME_ASC,
                )
            )

    def done(self) -> bool:
        """Every merchant's newest run finished (Completed, whatever its name); the nightly
        schedule's future runs do not count (flow_runs leaves them out)."""
        newest: dict[str, Any] = {}
        for run in self.flow_runs():
            if run.state is None:
                continue
            mid = run.parameters["merchant"]["id"]
            if mid not in newest or run.created > newest[mid].created:
                newest[mid] = run
        return len(newest) == len(self.merchants) and all(
            r.state is not None and r.state.type.value == "COMPLETED" for r in newest.values()
        )


def _write_inbox(root: Path, m: Merchant, other: Merchant | None) -> None:
    inbox = root / f"inbox-{m.id}"
    m.files = make_inbox(inbox, m.n, files=(1, 2), seed=sum(map(ord, m.id)), prefix=m.prefix)
    # traps: a non-PDF named for one of its disputes, a PDF for another merchant's dispute
    # (that merchant's dispute exists, but not in this inbox's list), and an unmatched PDF
    fake = f"not a pdf, for {m.id}".encode()
    (inbox / "proofs" / f"{m.prefix}0_receipt.pdf").write_bytes(fake)
    m.traps.append(fake)
    if other is not None:
        stray = f"%PDF-1.4 stray from {m.id}".encode()
        (inbox / "proofs" / f"{other.prefix}1_invoice.pdf").write_bytes(stray)
        m.traps.append(stray)
    lost = f"%PDF-1.4 unmatched in {m.id}".encode()
    (inbox / "proofs" / "scan_0007.pdf").write_bytes(lost)
    m.traps.append(lost)


def drop_second_batch(fleet: Fleet, m: Merchant) -> None:
    """One new dispute for `m` after its first night, as the next day brings: opened at the
    API, its disputes, orders and shipments sheets dropped in its inbox under new names (the
    first night's files stay), its PDFs beside the others."""
    for row in seed_rows(1, prefix=m.prefix, first=m.n):
        fleet.sandbox.call(lambda store, row=row: store.add_dispute(row))
    batch = fleet.root / f"batch-{m.id}"
    inbox = fleet.root / f"inbox-{m.id}"
    m.files += make_inbox(batch, 1, files=(1, 2), prefix=m.prefix, first=m.n)
    for sheet in batch.glob("*.csv"):
        shutil.copy(sheet, inbox / f"{sheet.stem}-2.csv")
    for pdf in (batch / "proofs").glob("*.pdf"):
        shutil.copy(pdf, inbox / "proofs" / pdf.name)
    m.n += 1


def night_cron(now: datetime | None = None) -> str:
    """The merchants' nightly cron (UTC), its hour half a day from now: tonight's night began
    about 12 hours ago (a sweep runs it at once) and the next is about 12 hours away, so no
    test or benchmark (a 10,000-merchant night takes hours) crosses into the next night, and
    Prefect's scheduler has no merchant run to make while it runs. A fixed "0 3 * * *" did: a
    night begun at 02:48 was superseded at 03:00 and its merchants handed out again."""
    return f"0 {((now or datetime.now(UTC)).hour + 12) % 24} * * *"


def _merchants_file(fleet: Fleet, pg: str, base_url: str) -> str:
    lines = [
        "[fleet]",
        f'state_url = "postgresql+psycopg://{pg}/fleet"',
        f'base_url = "{base_url}"',
        'config = "settings.toml"',
        f'schedule = "{night_cron()}"',
        "wait_for_lock = 600",
        "",
    ]
    for key, per_hour in fleet.keys.items():
        lines += [f"[keys.{key}]", f'token_env = "TOKEN_{key.upper()}"',
                  f"rate_limit_per_hour = {per_hour}", f"window_seconds = {fleet.window}", ""]  # fmt: skip
    for m in fleet.merchants:
        lines += ["[[merchant]]", f'id = "{m.id}"', f'inbox = "inbox-{m.id}"', f'key = "{m.key}"',
                  "[merchant.profile]", f'merchant_id = "acct_{m.id}"',
                  f'merchant_name = "Shop {m.id}"', 'merchant_website = "https://shop.example"', ""]  # fmt: skip
    return "\n".join(lines)


@contextmanager
def fleet_stack(
    root: Path,
    merchants: list[Merchant],
    keys: dict[str, int],
    *,
    window: float = 60.0,
    summary_pdf: bool = True,
    ui: bool = False,
    schedules: bool = True,
) -> Iterator[Fleet]:
    """Everything up, the merchants deployed (not yet run); torn down on exit. `schedules`
    False: Prefect's scheduler makes no runs of the deployments' crons, so a test that crosses
    a sweep's 10-minute mark sees only the runs it started."""
    tokens = tuple(f"sk_test_{key}_{os.getpid()}" for key in keys)
    probe = f"sk_test_probe_{os.getpid()}"  # a key no merchant uses, for benchmarks' probes
    pg_port, api_port = free_port(), free_port()
    with ExitStack() as stack:
        pg = stack.enter_context(throwaway_postgres(pg_port, ("prefect", "fleet")))
        env = {
            **os.environ,
            "PREFECT_HOME": str(root / "prefect-home"),
            "PREFECT_API_DATABASE_CONNECTION_URL": f"postgresql+asyncpg://{pg}/prefect",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
            "PREFECT_WORKER_QUERY_SECONDS": "2",
            "PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED": str(schedules).lower(),
            "PREFECT_UI_API_URL": f"http://127.0.0.1:{api_port}/api",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
            **{f"TOKEN_{k.upper()}": t for k, t in zip(keys, tokens, strict=True)},
        }
        env.pop("PREFECT_API_URL", None)
        server = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
             "--port", str(api_port), "--ui" if ui else "--no-ui"],
            env=env, cwd=root, stdout=(root / "server.log").open("ab"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        stack.callback(lambda: (server.terminate(), server.wait(30)))
        url = f"http://127.0.0.1:{api_port}/api"
        deadline = time.monotonic() + SERVER_START  # (a hung start still ends)
        while not healthy(url):
            assert server.poll() is None and time.monotonic() < deadline, (
                root / "server.log"
            ).read_text()[-3000:]
            time.sleep(0.5)
        env["PREFECT_API_URL"] = url
        rows = [r for m in merchants for r in seed_rows(m.n, prefix=m.prefix)]
        sandbox = run_sandbox_in_thread(
            SandboxConfig(tokens=(*tokens, probe), rate_limit=10**9, seed=3), rows
        )
        stack.callback(sandbox.stop)
        fleet = Fleet(root, sandbox, url, env, merchants, keys, window, probe)
        stack.callback(lambda: [fleet.kill_worker(w) for w in list(fleet.workers)])
        for i, m in enumerate(merchants):
            _write_inbox(
                root, m, merchants[(i + 1) % len(merchants)] if len(merchants) > 1 else None
            )
        (root / "settings.toml").write_text(
            f"[ingest]\nsettle_seconds = 0\n[evidence]\nsummary_pdf = {str(summary_pdf).lower()}\n"
        )
        (root / "merchants.toml").write_text(_merchants_file(fleet, pg, sandbox.base_url))
        yield fleet


def kill_mid_run(fleet: Fleet, merchant: Merchant) -> str:
    """Once `merchant` has sent some but not all evidence, SIGKILL the worker running it."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        snap = fleet.sandbox.snapshot()
        sent = sum(
            1 for pid, s in snap.items() if pid.startswith(merchant.prefix) and s["evidence"]
        )
        runs = fleet.flow_runs()
        # never while a worker is handing a run over (Pending/Submitting): a run killed there
        # is never marked crashed, and its merchant waits for ever (a race, not the product)
        handing_over = any(r.state and r.state.name in ("Pending", "Submitting") for r in runs)
        if 3 <= sent < merchant.n - 5 and not handing_over:
            for run in runs:
                if run.parameters["merchant"]["id"] == merchant.id and run.infrastructure_pid:
                    pid = int(str(run.infrastructure_pid).rsplit(":", 1)[-1])
                    for name, worker in fleet.workers.items():
                        if pid in descendants(worker.pid):
                            fleet.kill_worker(name)
                            return name
        time.sleep(0.2)
    raise AssertionError(f"{merchant.id} never got under way: {diagnose(fleet)}")


def diagnose(fleet: Fleet) -> str:
    """Every flow run's state and the tail of every log: what a failed wait shows."""
    states = [(r.name, r.state.name if r.state else None) for r in fleet.flow_runs()]
    tail = {p.name: p.read_text()[-1500:] for p in fleet.root.glob("*.log")}
    return f"runs: {states}\nlogs: {tail}"
