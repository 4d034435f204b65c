"""A platform's night (issue 48) on a real Prefect server on PostgreSQL: `deploy --sweep`
makes a sweep and a shard deployment, not one per merchant; a sweep hands the merchants whose
night has come to a shard, which runs them one after another. A merchant whose inbox is broken
and one whose key is refused leave their shard's other merchants sent; a shard killed mid-night
is finished exactly once by the next sweep; a merchant added to the file is picked up by the
next sweep without a re-deploy."""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from dispute_evidence.fleet.nights import Night, NightLedger
from flows.sweep import SHARD_FLOW, SWEEP_FLOW
from support.fleet import Fleet, Merchant, diagnose, fleet_stack
from support.pg import postgres_missing

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
BIG, SMALL = 30, 3  # disputes: the merchant killed mid-night, the others
SWEEP = f"{SWEEP_FLOW}/sweep-utc"
FIRST = ["big", "m1", "m2", "broken", "refused", "m3"]  # the file's order is the shard's


@dataclass
class Night2:
    fleet: Fleet
    merchants: list[Merchant]
    deployed: Any
    deployments: list[str]
    nights: dict[str, Night]
    snap: dict[str, Any]
    killed_in: str
    status: str
    every: str  # the merchants file with big2, who joins after the night


def _nights(fleet: Fleet) -> dict[str, Night]:
    ledger = NightLedger(fleet.state_url)
    try:
        return ledger.latest()
    finally:
        ledger.close()


def _wait(fleet: Fleet, done: Any, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"{what}: {diagnose(fleet)} {_nights(fleet)}"
        time.sleep(1)


def _shards_ended(fleet: Fleet) -> None:
    """Every shard's flow run has ended: a shard shows its nights in the Prefect UI from a
    thread of its own (ShownInOrder) and ends once all are shown, so the ledger may say a night
    is done a moment before the UI does."""

    def ended() -> bool:
        return not any(r.state and r.state.is_running() for r in fleet.runs_of(SHARD_FLOW))

    _wait(fleet, ended, "a shard's flow run never ended", seconds=120)


def _kill_shard_mid_night(fleet: Fleet, big: Merchant, worker: str = "w1") -> str:
    """SIGKILL `worker`, running the shard, once `big` has sent some but not all."""

    def under_way() -> bool:
        snap = fleet.sandbox.snapshot()
        sent = sum(1 for p, s in snap.items() if p.startswith(big.prefix) and s["evidence"])
        return 3 <= sent < big.n - 5

    _wait(fleet, under_way, "the big merchant never got under way")
    shard = next(r for r in fleet.runs_of(SHARD_FLOW) if r.state and r.state.is_running())
    fleet.kill_worker(worker)
    return str(shard.name)


def _crashed(fleet: Fleet, name: str, rerun: bool = False) -> None:
    """What the zombie automation does 3 heartbeats (90 s) after a worker dies (its own test:
    test_multi_worker.py): the shard's run is marked Crashed. Without `rerun`, the rerun
    automations are removed first, so only the next sweep can finish the shard's merchants."""
    from prefect.states import Crashed

    with fleet.client() as client:
        if not rerun:
            for automation in client.read_automations():
                if automation.name.startswith("dispute-evidence: run a crashed"):
                    client.delete_automation(automation.id)
        run = next(
            r
            for r in fleet.runs_of(SHARD_FLOW)
            if r.name == name and r.state and r.state.is_running()
        )
        client.set_flow_run_state(run.id, Crashed(), force=True)


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Iterator[Night2]:
    if why := postgres_missing():
        pytest.skip(f"the sweep test needs PostgreSQL: {why}")
    merchants = (
        [Merchant("big", "kbig", BIG)]
        + [
            Merchant(mid, "kbad" if mid == "refused" else f"k{mid}", SMALL)
            for mid in [*FIRST[1:], "late"]
        ]
        + [Merchant("big2", "kbig2", BIG)]
    )  # joins after the night (the `rerun` fixture)
    keys = {m.key: 18_000 for m in merchants}
    with fleet_stack(
        tmp_path_factory.mktemp("sweep"), merchants, keys, window=10.0, schedules=False
    ) as fleet:
        every = (fleet.root / "merchants.toml").read_text()
        whole = every[: every.index('[[merchant]]\nid = "big2"')]
        late = whole.index('[[merchant]]\nid = "late"')
        (fleet.root / "merchants.toml").write_text(whole[:late])  # "late" comes later
        shutil.rmtree(fleet.root / "inbox-broken")  # its inbox is gone
        fleet.env["TOKEN_KBAD"] = "sk_test_not_a_key_the_api_knows"
        deployed = fleet.deploy("--sweep")
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        with fleet.client() as client:
            deployments = sorted(d.name for d in client.read_deployments(limit=50))
        fleet.start_worker("w1", limit=2)
        fleet.trigger(SWEEP)
        killed_in = _kill_shard_mid_night(fleet, merchants[0])
        _crashed(fleet, killed_in)
        (fleet.root / "merchants.toml").write_text(whole)  # "late" joins: no re-deploy
        fleet.start_worker("w2", limit=2)
        fleet.trigger(SWEEP)

        def settled() -> bool:
            nights = _nights(fleet)
            return len(nights) == len(merchants) - 1 and all(
                n.stage in ("done", "failed") for n in nights.values()
            )

        _wait(fleet, settled, "the nights never settled")
        _shards_ended(fleet)
        from typer.testing import CliRunner

        from dispute_evidence.cli import app

        shown = CliRunner().invoke(
            app, ["status", "--merchants", str(fleet.root / "merchants.toml")], env=fleet.env
        )
        yield Night2(fleet, merchants, deployed, deployments, _nights(fleet),
                     fleet.sandbox.snapshot(), killed_in, shown.output, every)  # fmt: skip


def _sent_once(night: Night2, m: Merchant) -> None:
    traps = {hashlib.sha256(t).hexdigest() for x in night.merchants for t in x.traps}
    mine = {pid: s for pid, s in night.snap.items() if pid.startswith(m.prefix)}
    assert len(mine) == m.n and all(s["evidence"] for s in mine.values()), m.id
    uploaded = [(pid, f["sha256"]) for pid, s in mine.items() for f in s["files"]]
    assert len(uploaded) == len(set(uploaded)), f"{m.id}: a file was uploaded twice"
    proofs = [f for s in mine.values() for f in s["files"] if "proof" in f["file_name"]]
    assert len(proofs) == m.files, f"{m.id}: {len(proofs)} of its {m.files} files uploaded"
    assert not traps & {sha for _, sha in uploaded}, "a trap was uploaded"


def test_deploy_makes_a_sweep_and_a_shard_not_a_deployment_per_merchant(night):
    assert night.deployments == ["shard", "sweep-utc"]
    assert "Deployed the sweep for 6 merchant(s)" in night.deployed.stdout


@pytest.mark.parametrize("mid", ["m1", "m2", "m3"])
def test_a_broken_inbox_and_a_refused_key_leave_the_shards_others_sent(night, mid):
    _sent_once(night, next(m for m in night.merchants if m.id == mid))
    assert night.nights[mid].stage == "done"


def test_the_broken_and_the_refused_merchant_are_failing_with_one_line_each(night):
    broken, refused = night.nights["broken"], night.nights["refused"]
    assert (broken.stage, refused.stage) == ("failed", "failed")
    assert "inbox" in broken.detail and "refused the key" in refused.detail
    # tried by the first shard (4 merchants at once: it was among them) and again by the next
    # sweep, which a failed night under 3 attempts is
    assert broken.attempts == 2
    assert "sk_test_not_a_key" not in refused.detail + night.status
    assert "failing 2" in night.status and "done 5" in night.status


def test_a_killed_shard_is_finished_exactly_once_by_the_next_sweep(night):
    big = night.merchants[0]
    _sent_once(night, big)
    row = night.nights["big"]
    assert row.stage == "done" and row.attempts == 2 and row.shard != night.killed_in
    updates = sum(s["evidence_updates"] for p, s in night.snap.items() if p.startswith(big.prefix))
    assert updates - big.n <= 8  # at most one resend per dispute the killed run had in hand
    assert all(night.nights[m].stage == "done" for m in ("m1", "m2", "m3"))


def test_a_merchant_added_to_the_file_is_picked_up_without_a_redeploy(night):
    _sent_once(night, next(m for m in night.merchants if m.id == "late"))
    assert night.nights["late"].stage == "done"
    with night.fleet.client() as client:
        assert sorted(d.name for d in client.read_deployments(limit=50)) == night.deployments


def test_each_merchants_night_is_a_task_run_named_for_it(night):
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    with night.fleet.client() as client:
        tasks = client.read_task_runs(
            task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_="merchant-m1 ")), limit=20
        )
    assert tasks and all("merchant:m1" in t.tags for t in tasks)
    assert len(night.fleet.runs_of(SHARD_FLOW)) == 2  # one shard a sweep, not one run a merchant


def test_a_merchants_night_costs_prefect_two_task_run_states_and_no_events(night):
    """Prefect's database grows by what a merchant's night writes there (issue 48: at most
    100 MB a night at 10,000 merchants). Its task run is recorded Running, then Completed or
    Failed with why; Prefect's task engine would add a Pending state, three events with their
    resources and a log line each (~25 KB a merchant against ~6 KB)."""
    import psycopg
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    with night.fleet.client() as client:
        tasks = client.read_task_runs(
            task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_="merchant-")), limit=200
        )
        states = {t.name: [s.type.value for s in client.read_task_run_states(t.id)] for t in tasks}
    assert len(tasks) >= len(night.merchants)
    assert all(kept[0] == "RUNNING" and len(kept) <= 2 for kept in states.values()), states
    refused = [t for t in tasks if t.name.startswith("merchant-refused ")]
    # a refused night in flight when its shard was killed is shown Crashed (taken over), then
    # Failed by whoever took it over: which nights were in flight depends on the machine's load
    failed = [t for t in refused if t.state and t.state.is_failed()]
    assert failed and all(
        t.state and (t.state.is_failed() or t.state.is_crashed()) for t in refused
    )
    assert all("refused the key" in str(t.state.message) for t in failed if t.state)
    prefect_db = night.fleet.state_url.replace("+psycopg", "").rsplit("/", 1)[0] + "/prefect"
    with psycopg.connect(prefect_db) as conn:
        row = conn.execute("SELECT count(*) FROM events WHERE event LIKE 'prefect.task-run.%'")
        assert row.fetchone() == (0,)


@dataclass
class Rerun:
    killed_in: str  # the shard killed mid-night, then marked Crashed: its rerun finishes it
    nights: dict[str, Night]
    snap: dict[str, Any]
    runs: list[Any]  # the shard's flow runs of that name: the crashed one and its rerun


@pytest.fixture(scope="module")
def rerun(night: Night2) -> Rerun:
    """After the night: big2 joins and a sweep hands it to a shard, whose worker is killed
    mid-night and the run marked Crashed; no sweep runs after that, so only the rerun
    automation (deployed again, as `deploy --sweep` makes it) can finish big2."""
    fleet, big2 = night.fleet, night.merchants[-1]
    assert fleet.deploy("--sweep").returncode == 0  # the rerun automations, made again
    (fleet.root / "merchants.toml").write_text(night.every)
    fleet.trigger(SWEEP)
    killed_in = _kill_shard_mid_night(fleet, big2, worker="w2")
    fleet.start_worker("w3", limit=2)
    _crashed(fleet, killed_in, rerun=True)

    def settled() -> bool:
        row = _nights(fleet).get("big2")
        return row is not None and row.stage in ("done", "failed")

    _wait(fleet, settled, "the crashed shard's merchant never settled", seconds=180)
    _shards_ended(fleet)
    runs = [r for r in fleet.runs_of(SHARD_FLOW) if r.name == killed_in]
    return Rerun(killed_in, _nights(fleet), fleet.sandbox.snapshot(), runs)


def test_a_crashed_shard_is_run_again_with_its_own_parameters_and_finishes_once(night, rerun):
    """Prefect's rerun automation starts the crashed shard again with its merchants file, name
    and nights (and reruns 1): it finishes the merchant it was killed in, sending nothing twice."""
    big2 = night.merchants[-1]
    _sent_once(Night2(**{**night.__dict__, "snap": rerun.snap}), big2)
    row = rerun.nights["big2"]
    assert (row.stage, row.shard, row.attempts) == ("done", rerun.killed_in, 2)
    updates = sum(s["evidence_updates"] for p, s in rerun.snap.items() if p.startswith(big2.prefix))
    assert updates - big2.n <= 8  # at most one resend per dispute the killed run had in hand
    states = sorted(r.state.type.value for r in rerun.runs if r.state)
    assert states == ["COMPLETED", "CRASHED"], states
    crashed, again = sorted(rerun.runs, key=lambda r: r.created)
    assert again.parameters["nights"] == crashed.parameters["nights"]
    assert again.parameters["reruns"] == 1 and "reruns" not in crashed.parameters


@pytest.mark.parametrize("mid", ["big", "big2"])
def test_the_task_run_a_killed_shard_left_running_is_ended_when_taken_over(night, rerun, mid):
    """The merchant's task run in flight at the kill does not stay Running in the UI: the shard
    that takes the night over (the next sweep's for big, the rerun for big2) sets it Crashed,
    saying why; the new one is Completed."""
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    with night.fleet.client() as client:
        tasks = client.read_task_runs(
            task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_=f"merchant-{mid} ")),
            limit=20,
        )
    states = sorted((t.state.type.value, str(t.state.message)) for t in tasks if t.state)
    assert [s for s, _ in states] == ["COMPLETED", "CRASHED"], states
    said = states[1][1]
    assert "stopped mid-night (its worker died)" in said and "took this night over" in said
    if mid == "big2":
        assert said.startswith(rerun.killed_in) and "its rerun took" in said
