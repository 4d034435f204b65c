"""Many merchants on a real Prefect server (on PostgreSQL) with two process workers; one worker
dies mid-run; the API must end exactly right and no key over its budget in any window."""

from __future__ import annotations

import hashlib
import time

import pytest
from prefect.client.schemas.sorting import DeploymentSort

from dispute_evidence.sandbox.ratelimit import busiest_window
from support.fleet import Merchant, fleet_stack, kill_mid_run
from support.fleet import diagnose as _diagnose
from support.pg import postgres_missing

BUDGET = 18_000  # per key per hour; pro-rated over WINDOW seconds: 50 per 10 s
WINDOW = 10.0
N = 24  # disputes per merchant


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_six_merchants_two_workers_one_killed(tmp_path):
    if why := postgres_missing():
        pytest.skip(f"multi-worker test needs PostgreSQL: {why}")
    merchants = [Merchant(f"m{i}", key, N) for i, key in
                 enumerate(["shared", "shared", "k2", "k3", "k4", "k5"], start=1)]  # fmt: skip
    keys = {k: BUDGET for k in ["shared", "k2", "k3", "k4", "k5"]}
    with fleet_stack(tmp_path, merchants, keys, window=WINDOW) as fleet:
        first = fleet.deploy()
        assert first.returncode == 0, first.stderr
        again = fleet.deploy()  # idempotent: updates, never duplicates
        assert again.returncode == 0, again.stderr
        with fleet.client() as client:
            deployments = client.read_deployments(limit=50, sort=DeploymentSort.NAME_ASC)
            assert sorted(d.name for d in deployments) == [f"merchant-m{i}" for i in range(1, 7)]
            assert all(len(d.schedules) == 1 for d in deployments)
            assert (
                len(
                    client.read_automations_by_name(
                        "dispute-evidence: run a crashed merchant again"
                    )
                )
                == 1
            )
        fleet.start_worker("w1", limit=3)
        fleet.start_worker("w2", limit=3)
        time.sleep(4)  # both workers polling before the runs exist
        fleet.trigger_all()
        victim = kill_mid_run(fleet, merchants[0])
        deadline = time.monotonic() + 600
        while not fleet.done():
            assert time.monotonic() < deadline, _diagnose(fleet)
            failed = [r.name for r in fleet.flow_runs() if r.state and r.state.is_failed()]
            assert not failed, f"{failed} failed: {_diagnose(fleet)}"  # fail fast, not at 600 s
            time.sleep(3)
        snap = fleet.sandbox.snapshot()
        runs = fleet.flow_runs()
        logs = fleet.sandbox.requests_by_key()
        _drop_starts_the_merchant(fleet, merchants[2])
        _a_merchant_leaves(fleet)

    crashed = [r for r in runs if r.state and r.state.type.value == "CRASHED"]
    assert crashed, f"the kill of {victim} left no crashed run: {[r.state for r in runs]}"
    reruns = [r for r in runs if r.parameters.get("trigger") == "after-crash"]
    assert len(reruns) == len(crashed)  # the automation started each crashed merchant again
    assert all(r.state.type.value == "COMPLETED" for r in reruns)
    # exact final API state: every dispute's evidence, every file once, no trap
    traps = {hashlib.sha256(t).hexdigest() for m in merchants for t in m.traps}
    for m in merchants:
        mine = {pid: s for pid, s in snap.items() if pid.startswith(m.prefix)}
        assert len(mine) == N and all(s["evidence"] for s in mine.values()), m.id
        uploaded = [(pid, f["sha256"]) for pid, s in mine.items() for f in s["files"]]
        assert len(uploaded) == len(set(uploaded)), f"{m.id}: a file was uploaded twice"
        proofs = [f for s in mine.values() for f in s["files"] if "proof" in f["file_name"]]
        summaries = [f for s in mine.values() for f in s["files"] if "summary" in f["file_name"]]
        assert len(proofs) == m.files and len(summaries) == N, m.id
        assert not traps & {sha for _, sha in uploaded}, f"{m.id}: a trap was uploaded"
        assert all(s["evidence"]["merchant_profile"]["merchant_id"] == f"acct_{m.id}"
                   for s in mine.values())  # fmt: skip
    # resent at most once per dispute a killed run had in hand (8 at once, [api] concurrency)
    updates = sum(s["evidence_updates"] for s in snap.values())
    assert updates - len(merchants) * N <= 8 * len(crashed), updates
    # no key over its budget in any window: pro rata per WINDOW, and per hour
    for key, per_hour in keys.items():
        times = logs[fleet.key_label(key)]
        assert busiest_window(times, WINDOW) <= per_hour * WINDOW / 3600, key
        assert busiest_window(times, 3600) <= per_hour, key
    shared = logs[fleet.key_label("shared")]
    assert len(shared) > 2 * N  # both merchants of the shared key really went through it


def _a_merchant_leaves(fleet) -> None:
    """A merchant removed from the file: named by deploy, deleted only with --prune."""
    text = (fleet.root / "merchants.toml").read_text()
    (fleet.root / "fewer.toml").write_text(text[: text.index('[[merchant]]\nid = "m6"')])
    kept = fleet.deploy(file="fewer.toml")
    assert kept.returncode == 0, kept.stderr
    assert (
        "not in the file (--prune deletes it): dispute-evidence-merchant/merchant-m6" in kept.stdout
    )
    pruned = fleet.deploy("--prune", file="fewer.toml")
    assert "deleted: dispute-evidence-merchant/merchant-m6" in pruned.stdout
    with fleet.client() as client:
        left = client.read_deployments(limit=50, sort=DeploymentSort.NAME_ASC)
    assert [d.name for d in left] == [f"merchant-m{i}" for i in range(1, 6)]


def _drop_starts_the_merchant(fleet, merchant: Merchant) -> None:
    """`watch --merchants`: a file dropped in one merchant's inbox starts that merchant's
    deployment (trigger "inbox"), and its evidence reaches the API."""
    import subprocess
    import sys

    watcher = subprocess.Popen(
        [sys.executable, "-m", "dispute_evidence", "watch", "--merchants",
         str(fleet.root / "merchants.toml"), "--config", str(fleet.root / "settings.toml")],
        env=fleet.env, cwd=fleet.root, stdout=(fleet.root / "watch.log").open("ab"),
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        time.sleep(3)  # its first look finds nothing new
        (fleet.root / f"inbox-{merchant.id}" / "late_shipments.csv").write_text(
            f"order_number,tracking_number,carrier\n5002,1ZLATE{merchant.id},UPS\n"
        )
        deadline = time.monotonic() + 180
        pid = f"{merchant.prefix}2"
        want = {"1Z000002", f"1ZLATE{merchant.id}"}
        while (
            set(fleet.sandbox.snapshot()[pid]["evidence"].get("shipping_tracking_numbers", []))
            != want
        ):
            assert time.monotonic() < deadline, _diagnose(fleet)
            time.sleep(1)
        inbox_runs = [
            r for r in fleet.flow_runs()
            if r.parameters.get("trigger") == "inbox" and r.parameters["merchant"]["id"] == merchant.id
        ]  # fmt: skip
        assert len(inbox_runs) == 1
    finally:
        watcher.terminate()
        watcher.wait(10)
