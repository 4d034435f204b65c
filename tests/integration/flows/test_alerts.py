"""Alerts: a dispute due soon that still needs something reaches a webhook (through Prefect's
own notification block) and a Prefect event, once per dispute per day."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

import pytest
from aiohttp import web

from dispute_evidence.engine.reporting.deadline_alerts import EVENT, RESOURCE, send_alerts
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.policies import AlertPolicy
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore
from flows.alerting import PrefectAlerts
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

PREFECT = PrefectAlerts()  # the sink the CLI and the flows hand the engine


class Receiver:
    """A webhook on loopback that keeps every JSON body POSTed to /hook."""

    def __init__(self) -> None:
        self.received: list[dict[str, str]] = []
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    async def _hook(self, request: web.Request) -> web.Response:
        self.received.append(await request.json())
        return web.json_response({"ok": True})

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()

    def __enter__(self) -> Receiver:
        self.thread.start()
        self.ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


@pytest.fixture
def receiver():
    with Receiver() as r:
        yield r


def test_an_alert_reaches_a_webhook_once_per_dispute_per_day(
    prefect_harness, receiver, sandbox_factory, tmp_path, monkeypatch
):
    from prefect.blocks.notifications import CustomWebhookNotificationBlock

    CustomWebhookNotificationBlock(
        name="disputes", url=receiver.url, json_data={"subject": "{{subject}}", "body": "{{body}}"}
    ).save("dispute-alerts", overwrite=True)
    now = datetime.now(UTC)
    due = [iso(now + timedelta(hours=h)) for h in (46, 240, 40)]
    rows = seed_rows(3)
    for row, when in zip(rows, due, strict=True):
        row["response_due_by"] = when
    sb = sandbox_factory(rows=rows)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)  # orders for dp_test_0 and dp_test_1; dp_test_2's order never came
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [[f"dp_test_{i}", f"#{5000 + i}", "general", due[i]] for i in range(3)])  # fmt: skip
    for key, value in (("INGEST__SETTLE_SECONDS", "0"), ("REVIEW__HOLD", "all"),
                       ("ALERTS__BLOCK", "custom-webhook/dispute-alerts")):  # fmt: skip
        monkeypatch.setenv(f"DISPUTE_EVIDENCE_{key}", value)
    settings = load_settings(None)
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)

    first = run_inbox(settings, RunRequest(inbox=inbox), api=api, alert_sink=PREFECT)
    assert first.counts["alerted"] == 2  # dp_test_1 is due in 10 days: not at risk yet
    assert len(receiver.received) == 1  # one message for the run, one line per dispute
    body = receiver.received[0]["body"]
    assert receiver.received[0]["subject"] == "2 disputes due within 48 h still need you"
    lines = body.splitlines()
    assert lines[0].startswith("dp_test_2 (order 5002)") and "waiting for data" in lines[0]
    assert lines[1].startswith("dp_test_0 (order 5000)") and "waiting for your approval" in lines[1]
    assert "dp_test_1" not in body

    assert sorted(_events_of(first.run_id)) == [RESOURCE + "dp_test_0", RESOURCE + "dp_test_2"]

    second = run_inbox(
        settings, RunRequest(inbox=inbox), api=api, alert_sink=PREFECT
    )  # the same day: nothing again
    assert second.counts["alerted"] == 0 and len(receiver.received) == 1

    with StateStore(default_state(inbox)) as store:  # the next day (UTC): once more
        next_day = (now + timedelta(days=1)).replace(hour=0, minute=1, second=0, microsecond=0)
        out = send_alerts(
            store, AlertPolicy(block="custom-webhook/dispute-alerts"), "r2", next_day, sink=PREFECT
        )
        assert sorted(out.alerted) == ["dp_test_0", "dp_test_2"] and out.events == 2
        assert out.notified and len(receiver.received) == 2


def _events_of(run_id: str, expect: int = 2) -> list[str]:
    """The resources of the at-risk events a run emitted, as the Prefect server stored them
    (events travel in the background: wait for them, a bounded while)."""
    import time

    from prefect import get_client
    from prefect.events.filters import EventFilter, EventNameFilter

    found: list[str] = []
    with get_client(sync_client=True) as client:
        for _ in range(60):
            page = client.read_events(EventFilter(event=EventNameFilter(name=[EVENT])), limit=50)
            found = [e.resource.id for e in page.events if e.payload.get("run_id") == run_id]
            if len(found) >= expect:
                break
            time.sleep(0.5)
    return found


def test_events_name_the_dispute_and_a_broken_block_is_reported_and_retried(
    prefect_harness, tmp_path
):
    from dispute_evidence.engine.reporting.deadline_alerts import _emit, at_risk

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    now = datetime.now(UTC)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "response_due_by"],
               [["dp_test_0", "#9999", iso(now + timedelta(hours=5))]])  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        from dispute_evidence.engine.prepare.build import prepare_step
        from tests.support.engine_helpers import ingest_inbox_step, options

        opts = options(inbox)
        prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
        (risk,) = at_risk(store, now, 48)
        assert risk.pid == "dp_test_0" and risk.why.startswith("waiting for data")
        assert _emit(PREFECT, risk, now, "r")  # a Prefect server takes it
        broken = AlertPolicy(block="custom-webhook/no-such-block")  # events go, the block not
        out = send_alerts(store, broken, "r", now=now, sink=PREFECT)
        assert out.alerted == [] and "no-such-block" in (out.problem or "")
        events_only = send_alerts(
            store, AlertPolicy(), "r", now=now, sink=PREFECT
        )  # tried again: sent
        assert events_only.alerted == ["dp_test_0"] and events_only.events == 1
    assert EVENT == "dispute-evidence.dispute.at-risk" and RESOURCE == "dispute-evidence.dispute."
