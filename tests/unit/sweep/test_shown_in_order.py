"""A merchant's night never waits for the Prefect UI (issue 48, fleet/sweep.py ShownInOrder):
what a shard shows of its nights is queued and posted by one thread, in order."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from dispute_evidence.engine.reporting.report import RunResult
from dispute_evidence.exits import EXIT_OK
from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.fleet.nights import NightLedger
from dispute_evidence.fleet.sweep import ShardOutcome, ShownInOrder, run_one_night

NIGHT = "2026-11-28T02:00Z"


def _run(mid: str) -> MerchantRun:
    return MerchantRun(
        id=mid, inbox=f"/srv/{mid}", state=f"/var/{mid}.sqlite3", key="k", budget_url="/tmp/b"
    )


@pytest.fixture
def ledger(tmp_path: Path):
    kept = NightLedger(tmp_path / "nights.sqlite3")
    yield kept
    kept.close()


class _SlowUI:
    """The Prefect API answering each call once `gate` is open (a loaded server); `broken`
    merchants' calls raise (the API down for them)."""

    def __init__(self, broken: frozenset[str] = frozenset()) -> None:
        self.gate, self.broken, self.said = threading.Event(), broken, []

    def _answer(self, *what: object) -> None:
        self.gate.wait(10)
        if what[1] in self.broken:
            raise ConnectionError("the Prefect API is down")
        self.said.append(what)

    def begun(self, merchant: str, night: str, attempt: int) -> None:
        self._answer("begun", merchant, attempt)

    def ended(self, merchant: str, night: str, *, failed: str, outcome: str) -> None:
        self._answer("ended", merchant, outcome)

    def taken_over(self, merchant: str, night: str, *, left: str, shard: str) -> None:
        self._answer("taken over", merchant, left)


def test_nights_run_while_the_ui_has_not_answered_and_are_shown_in_order(ledger):
    """Before, a merchant began its work only once the Prefect API had made its task run, one
    merchant of the shard at a time: start-up waited on Prefect. Now three nights run to their
    end while the UI answers nothing, and are shown afterwards, each begun before ended."""
    ui, out, ran = _SlowUI(), ShardOutcome(), []

    def each(run: MerchantRun) -> RunResult:
        ran.append(run.id)
        return RunResult("r1", EXIT_OK, f"{run.id} sent", Path("report.md"), {}, None)

    shown = ShownInOrder(ui)
    for mid in ("m1", "m2", "m3"):
        run_one_night(_run(mid), NIGHT, "shard-1", ledger, each, out, shown)
    assert ran == ["m1", "m2", "m3"] and out.done == ran  # all three ran, nothing shown yet
    assert ui.said == []
    ui.gate.set()
    shown.close()
    assert ui.said == [
        ("begun", "m1", 1), ("ended", "m1", "m1 sent"),
        ("begun", "m2", 1), ("ended", "m2", "m2 sent"),
        ("begun", "m3", 1), ("ended", "m3", "m3 sent"),
    ]  # fmt: skip


def test_a_call_that_fails_is_logged_for_its_merchant_and_the_rest_are_shown(caplog):
    ui = _SlowUI(broken=frozenset({"m2"}))
    ui.gate.set()
    shown = ShownInOrder(ui)
    for mid in ("m1", "m2", "m3"):
        shown.begun(mid, NIGHT, 1)
    shown.close()
    assert ui.said == [("begun", "m1", 1), ("begun", "m3", 1)]
    assert "merchant m2: its night could not be shown begun: ConnectionError" in caplog.text


def test_closing_waits_a_bounded_time_and_says_what_was_not_shown(caplog):
    ui = _SlowUI()  # never answers within the close's timeout
    shown = ShownInOrder(ui, timeout=0.2)
    for mid in ("m1", "m2", "m3"):
        shown.begun(mid, NIGHT, 1)
    started = time.monotonic()
    shown.close()
    assert time.monotonic() - started < 5
    assert "were not shown in the Prefect UI within 0.2 s" in caplog.text
    assert "recorded in the ledger all the same" in caplog.text
    ui.gate.set()


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
