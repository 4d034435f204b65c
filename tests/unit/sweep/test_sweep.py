"""The sweep's decisions (issue 48, fleet/sweep.py) on the real night ledger (SQLite): whose
night has come, what a killed shard left, how failures are retried and kept apart."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dispute_evidence.engine.reporting.report import RunResult
from dispute_evidence.exits import EXIT_AUTH, EXIT_NEEDS_YOU, EXIT_OK
from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.fleet.nights import NightLedger
from dispute_evidence.fleet.sweep import (
    MAX_ATTEMPTS,
    ShardOutcome,
    assign,
    due,
    last_night,
    next_night,
    run_one_night,
    shards_of,
    status_rows,
)

NOW = datetime(2026, 11, 28, 3, 30, tzinfo=UTC)
NIGHT = "2026-11-28T02:00Z"


def _run(mid: str, schedule: str = "0 2 * * *", zone: str = "UTC") -> MerchantRun:
    return MerchantRun(
        id=mid, inbox=f"/srv/{mid}", state=f"/var/{mid}.sqlite3", key="k", budget_url="/tmp/b",
        schedule=schedule, timezone=zone,
    )  # fmt: skip


@pytest.fixture
def ledger(tmp_path: Path):
    kept = NightLedger(tmp_path / "nights.sqlite3")
    yield kept
    kept.close()


def _result(code: int, outcome: str = "3 sent", stopped: str | None = None) -> RunResult:
    return RunResult("r1", code, outcome, Path("report.md"), {}, stopped)


def test_a_merchants_night_is_its_own_cron_in_its_own_zone():
    assert last_night(_run("a"), NOW) == datetime(2026, 11, 28, 2, 0, tzinfo=UTC)
    berlin = _run("b", zone="Europe/Berlin")  # 02:00 in Berlin is 01:00 UTC in November
    assert last_night(berlin, NOW) == datetime(2026, 11, 28, 1, 0, tzinfo=UTC)
    assert next_night(berlin, NOW) == datetime(2026, 11, 29, 1, 0, tzinfo=UTC)
    weekly = _run("c", schedule="0 2 * * 1")  # Mondays; 28 Nov 2026 is a Saturday
    assert last_night(weekly, NOW) is None  # five days ago: not run late, the next one is


def test_due_is_every_night_not_done_and_not_in_a_live_shard(ledger):
    runs = [_run(m) for m in ("new", "done", "live", "dead", "failed_once", "failed_out")]
    for mid in ("done", "live", "dead", "failed_once", "failed_out"):
        ledger.queue([(mid, NIGHT)], f"shard-{mid}")
    for mid in ("done", "failed_once", "failed_out"):
        ledger.begin(mid, NIGHT, f"shard-{mid}")
    ledger.finish("done", NIGHT, outcome="3 sent")
    ledger.finish("failed_once", NIGHT, failed="RunLocked: held by another run")
    for _ in range(MAX_ATTEMPTS - 1):
        ledger.begin("failed_out", NIGHT, "shard-failed_out")
    ledger.finish("failed_out", NIGHT, failed="ConfigError: bad token")
    work = due(runs, NOW, ledger, alive={"shard-live"}.__contains__)
    why = {d.run.id: d.why for d in work}
    assert set(why) == {"new", "dead", "failed_once"}
    assert why["new"] == "its night has come"
    assert "left queued by shard-dead" in why["dead"]
    assert why["failed_once"].startswith("failed 1 time(s): RunLocked")
    assert {d.night for d in work} == {NIGHT}


def test_handing_out_again_never_reopens_a_done_night(ledger):
    ledger.queue([("a", NIGHT)], "shard-1")
    ledger.begin("a", NIGHT, "shard-1")
    ledger.finish("a", NIGHT, outcome="2 sent")
    assign(ledger, due([_run("a"), _run("b")], NOW, ledger, lambda _s: False), "shard-2")
    rows = ledger.of([("a", NIGHT), ("b", NIGHT)])
    assert (rows["a"].stage, rows["a"].shard) == ("done", "shard-1")
    assert (rows["b"].stage, rows["b"].shard, rows["b"].attempts) == ("queued", "shard-2", 0)


def test_one_merchant_failing_never_stops_its_shard(ledger):
    """A merchant that raises (a full disk, a broken config) and one whose key is refused are
    recorded failed with one line; the others of the shard are run and done."""
    runs = [_run(m) for m in ("m1", "broken", "m3", "refused", "m5")]

    def each(run: MerchantRun) -> RunResult:
        if run.id == "broken":
            raise OSError(28, "No space left on device")
        if run.id == "refused":
            return _result(EXIT_AUTH, "stopped: the API refused the key", "The API refused the key")
        return _result(EXIT_NEEDS_YOU if run.id == "m3" else EXIT_OK)

    out = ShardOutcome()
    for run in runs:
        run_one_night(run, NIGHT, "shard-1", ledger, each, out)
    assert out.done == ["m1", "m3", "m5"]
    assert out.failed == {
        "broken": "OSError: [Errno 28] No space left on device",
        "refused": "The API refused the key",
    }
    rows = ledger.of([(r.id, NIGHT) for r in runs])
    assert {m: r.stage for m, r in rows.items()} == {
        "m1": "done", "broken": "failed", "m3": "done", "refused": "failed", "m5": "done",
    }  # fmt: skip
    assert rows["broken"].detail.startswith("OSError")


class _Shown:
    """Records what run_one_night shows; `broken` raises instead (the Prefect API down)."""

    def __init__(self, broken: bool = False) -> None:
        self.broken, self.said = broken, []

    def begun(self, merchant: str, night: str, attempt: int) -> None:
        if self.broken:
            raise ConnectionError("the Prefect API is down")
        self.said.append(("begun", merchant, night, attempt))

    def ended(self, merchant: str, night: str, *, failed: str, outcome: str) -> None:
        if self.broken:
            raise ConnectionError("the Prefect API is down")
        self.said.append(("ended", merchant, failed, outcome))

    def taken_over(self, merchant: str, night: str, *, left: str, shard: str) -> None:
        self.said.append(("taken over", merchant, left, shard))


def test_each_night_is_shown_begun_then_ended_with_its_outcome_or_why_it_failed(ledger):
    """What the Prefect UI shows of a merchant's night (flows/sweep.py TaskRunsShown: a task
    run, Running then Completed or Failed) comes from run_one_night, attempt by attempt."""

    def each(run: MerchantRun) -> RunResult:
        if run.id == "refused":
            return _result(EXIT_AUTH, "stopped: the API refused the key", "The API refused the key")
        return _result(EXIT_OK)

    shown, out = _Shown(), ShardOutcome()
    for mid in ("m1", "refused", "refused"):
        run_one_night(_run(mid), NIGHT, "shard-1", ledger, each, out, shown)
    refused = "The API refused the key"
    assert shown.said == [
        ("begun", "m1", NIGHT, 1),
        ("ended", "m1", "", "3 sent"),
        ("begun", "refused", NIGHT, 1),
        ("ended", "refused", refused, ""),
        ("begun", "refused", NIGHT, 2),
        ("ended", "refused", refused, ""),
    ]


def test_a_night_that_cannot_be_shown_is_run_all_the_same(ledger, caplog):
    out = ShardOutcome()
    run_one_night(_run("m1"), NIGHT, "s", ledger, lambda _r: _result(EXIT_OK), out, _Shown(True))
    assert out.done == ["m1"] and ledger.of([("m1", NIGHT)])["m1"].stage == "done"
    assert "m1: its night could not be shown begun: ConnectionError" in caplog.text


def test_a_card_number_in_a_failure_is_never_kept(ledger):
    def each(_run: MerchantRun) -> RunResult:
        raise ValueError("row 4: 4111 1111 1111 1111 is not an amount")

    out = ShardOutcome()
    run_one_night(_run("m1"), NIGHT, "s", ledger, each, out)
    assert "4111 1111 1111 1111" not in out.failed["m1"]
    assert "4111 1111 1111 1111" not in ledger.of([("m1", NIGHT)])["m1"].detail


def test_shards_are_few_and_bounded():
    work = due([_run(f"m{i}") for i in range(1, 1201)], NOW, _EmptyLedger(), lambda _s: False)
    assert [len(s) for s in shards_of(work, 500)] == [500, 500, 200]


def test_status_says_each_merchants_last_and_next_night(ledger):
    ledger.queue([("a", NIGHT), ("b", NIGHT)], "shard-1")
    ledger.begin("a", NIGHT, "shard-1")
    ledger.finish("a", NIGHT, failed="The API refused the key")
    rows = {r["merchant"]: r for r in status_rows([_run("a"), _run("b"), _run("c")], ledger, NOW)}
    assert (rows["a"]["state"], rows["a"]["last outcome"]) == ("failing", "The API refused the key")
    assert rows["b"]["state"] == "waiting" and rows["c"]["state"] == "never run"
    assert rows["c"]["next night"] == "2026-11-29T02:00Z"


class _EmptyLedger:
    def of(self, _wanted: object) -> dict[str, object]:
        return {}


def test_a_shards_merchants_do_their_own_work_a_few_at_a_time_and_submit_without_a_slot(
    monkeypatch,
):
    """Sixteen merchants at once in one shard process: at most `slots` of them ingest, prepare
    or write reports at the same time (a merchant starting its night competes with a few, not
    with fifteen); one submitting, waiting on its key's budget, holds no slot."""
    import threading

    from dispute_evidence.fleet import sweep as fleet_sweep

    slots = fleet_sweep.OwnWorkSlots(2)
    busy, most, lock = [0], [0], threading.Lock()
    release = threading.Event()

    def own_work() -> str:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        release.wait(5)
        with lock:
            busy[0] -= 1
        return "done"

    def fake_submit() -> str:
        return "sent"

    monkeypatch.setattr(fleet_sweep, "submit", fake_submit)
    threads = [threading.Thread(target=slots, args=("ingest inbox", own_work)) for _ in range(6)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 5
    while busy[0] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert slots("submit to the API", fake_submit) == "sent"  # both slots held meanwhile
    assert busy[0] == 2
    release.set()
    for t in threads:
        t.join(5)
    assert most[0] == 2 and busy[0] == 0


def test_a_night_handed_to_another_shard_since_is_not_begun_by_the_first(ledger):
    """A crashed shard's rerun (same name, same nights) and the next sweep's new shard never
    both run a night: the ledger begins it only for the shard it is handed to now."""
    ledger.queue([("a", NIGHT), ("b", NIGHT)], "shard-1")
    assert ledger.begin("a", NIGHT, "shard-1").attempt == 1  # then shard-1 is killed
    work = due([_run("a"), _run("b")], NOW, ledger, lambda _s: False)
    assert [d.run.id for d in assign(ledger, work, "shard-2")] == ["a", "b"]
    assert ledger.begin("a", NIGHT, "shard-1") is None  # shard-1's rerun: not its own now
    out = ShardOutcome()
    run_one_night(_run("b"), NIGHT, "shard-1", ledger, lambda _r: _result(EXIT_OK), out)
    assert out.skipped == {"b": "handed to another shard since, or done"} and not out.done
    took = ledger.begin("a", NIGHT, "shard-2")
    assert (took.attempt, took.left) == (2, "an earlier shard")


def test_the_sweep_never_hands_out_a_night_a_rerun_began_since_it_read(ledger):
    ledger.queue([("a", NIGHT)], "shard-1")
    ledger.begin("a", NIGHT, "shard-1")  # shard-1 killed; the sweep reads it as left
    work = due([_run("a")], NOW, ledger, lambda _s: False)
    again = ledger.begin("a", NIGHT, "shard-1")  # meanwhile shard-1's rerun begins it
    assert (again.attempt, again.left) == (2, "shard-1")
    assert assign(ledger, work, "shard-2") == []
    row = ledger.of([("a", NIGHT)])["a"]
    assert (row.stage, row.shard, row.attempts) == ("running", "shard-1", 2)


def test_a_night_left_running_is_shown_taken_over_before_it_is_begun_again(ledger):
    """The task run a killed shard left Running is ended (flows/sweep.py: set Crashed, saying
    who took the night over) when the night is taken over; a first night is not."""
    shown, out = _Shown(), ShardOutcome()
    ledger.queue([("m1", NIGHT)], "shard-1")
    ledger.begin("m1", NIGHT, "shard-1")  # killed mid-night: never finished
    run_one_night(_run("m1"), NIGHT, "shard-1", ledger, lambda _r: _result(EXIT_OK), out, shown)
    run_one_night(_run("m2"), NIGHT, "shard-1", ledger, lambda _r: _result(EXIT_OK), out, shown)
    assert shown.said == [
        ("taken over", "m1", "shard-1", "shard-1"),
        ("begun", "m1", NIGHT, 2),
        ("ended", "m1", "", "3 sent"),
        ("begun", "m2", NIGHT, 1),
        ("ended", "m2", "", "3 sent"),
    ]


def test_a_fleet_test_or_benchmark_night_is_not_superseded_while_it_runs():
    """The fleet harness's merchants (support/fleet.py) had "0 3 * * *": a 10,000-merchant
    bench begun at 02:48 UTC saw a new night at 03:00, which the next sweep handed out again
    for every merchant (its count of merchants settled fell from 872 to 170). Their night is
    now the one begun about 12 hours before the harness starts, for hours to come."""
    from datetime import UTC, datetime, timedelta

    from dispute_evidence.fleet.sweep import last_night
    from support.fleet import night_cron

    for start in (
        datetime(2026, 11, 29, 2, 48, tzinfo=UTC),
        datetime(2026, 11, 29, 14, 59, tzinfo=UTC),
    ):
        run = _run("m1").model_copy(update={"schedule": night_cron(start)})
        begun = last_night(run, start)
        assert begun is not None and timedelta(hours=11) < start - begun < timedelta(hours=13)
        assert last_night(run, start + timedelta(hours=10, minutes=59)) == begun


def test_two_sweeps_queuing_one_new_night_at_once_leave_it_to_the_first(ledger):
    """Sweeps have no concurrency limit. Two at once both read no row for a new night and both
    insert it: the second used to fail on the primary key (its flow run Failed, its other
    merchants not handed out). Now the row made meanwhile stays the other sweep's, and the
    rest of this sweep's nights are handed to its shard."""
    from sqlalchemy import event

    def the_other_sweep(conn, cursor, statement, *_args):
        if statement.lstrip().upper().startswith("INSERT INTO FLEET_NIGHTS") and not made:
            made.append(1)  # just before this sweep's insert, the other one's lands
            cursor.execute(
                "INSERT INTO fleet_nights (merchant, night, stage, shard, attempts, outcome, "
                "detail) VALUES ('m2', ?, 'queued', 'shard-other', 0, '', '')",
                (NIGHT,),
            )

    made: list[int] = []
    event.listen(ledger.engine, "before_cursor_execute", the_other_sweep)
    handed = ledger.queue([("m1", NIGHT), ("m2", NIGHT), ("m3", NIGHT)], "shard-mine")
    event.remove(ledger.engine, "before_cursor_execute", the_other_sweep)
    assert made and handed == {("m1", NIGHT), ("m3", NIGHT)}
    rows = ledger.of([(m, NIGHT) for m in ("m1", "m2", "m3")])
    assert {m: r.shard for m, r in rows.items()} == {
        "m1": "shard-mine", "m2": "shard-other", "m3": "shard-mine"
    }  # fmt: skip
    assert ledger.begin("m2", NIGHT, "shard-mine") is None  # not this shard's to run
