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
