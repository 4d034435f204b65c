"""Alerts that fail: a block that cannot deliver is never recorded as sent (the next run, the
same day, tries again), and a block's secret (its resolved URL, the answer's body) never
reaches the report, the state, the terminal or the Prefect server."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiohttp import web
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.prepare.build import prepare_step
from dispute_evidence.engine.reporting.deadline_alerts import AlertPolicy, send_alerts
from dispute_evidence.exits import EXIT_NEEDS_YOU
from dispute_evidence.inbox import default_state
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.state.store import StateStore
from flows.alerting import PrefectAlerts
from tests.conftest import TOKEN, seed_rows
from tests.integration.flows.test_alerts import Receiver
from tests.support.engine_helpers import ingest_inbox_step, make_inbox, options, write_rows

SECRET = "s3cr3t-K3y-7731"


class FailingReceiver(Receiver):
    """A webhook that answers 500, echoing the query (and so the secret) in its body."""

    async def _hook(self, request: web.Request) -> web.Response:
        self.received.append({"query": request.query_string})
        return web.Response(status=500, text=f"boom: {request.query_string}")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _at_risk_inbox(tmp_path: Path, now: datetime) -> Path:
    """dp_test_0 complete and due in 20 h (it is sent), dp_test_1 due in 30 h with no order
    (at risk: waiting for data), dp_test_2 complete and due in 10 days (not at risk)."""
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    due = [iso(now + timedelta(hours=h)) for h in (20, 30, 240)]
    orders = ["#5000", "#9999", "#5002"]
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "response_due_by"],
               [[f"dp_test_{i}", orders[i], due[i]] for i in range(3)])  # fmt: skip
    return inbox


def test_a_block_that_cannot_deliver_is_not_recorded_and_is_retried_that_day(
    prefect_harness, tmp_path
):
    from prefect.blocks.notifications import CustomWebhookNotificationBlock, MattermostWebhook

    from tests.integration.flows.test_alerts import Receiver

    MattermostWebhook(hostname="127.0.0.1", port=_closed_port(), token="tok").save(
        "closed-port", overwrite=True
    )
    now = datetime.now(UTC)
    inbox = _at_risk_inbox(tmp_path, now)
    with StateStore(tmp_path / "s.sqlite3") as store, Receiver() as receiver:
        opts = options(inbox)
        prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
        closed = AlertPolicy(block="mattermost-webhook/closed-port", events=False)
        out = send_alerts(store, closed, "r1", now, sink=PrefectAlerts())
        assert out.alerted == [] and not out.notified
        assert out.problem is not None and out.problem.startswith("mattermost-webhook/closed-port")
        assert "not sent, the next run tries again" in out.problem
        # nothing recorded as sent
        assert store.alerts.alerted_on(now.strftime("%Y-%m-%d")) == set()
        CustomWebhookNotificationBlock(
            name="ok", url=receiver.url, json_data={"body": "{{body}}"}
        ).save("works-now", overwrite=True)
        later = now + timedelta(minutes=30)  # the same day: tried again, and it goes
        again = send_alerts(
            store, AlertPolicy(block="custom-webhook/works-now"), "r2", later, sink=PrefectAlerts()
        )
        assert again.notified and again.alerted == ["dp_test_1"] and len(receiver.received) == 1
        assert store.alerts.alerted_on(later.strftime("%Y-%m-%d")) == {"dp_test_1"}


@pytest.fixture
def failing():
    with FailingReceiver() as r:
        yield r


@pytest.mark.slow  # a real flow run on the Prefect test server
def test_a_blocks_secret_never_leaks_when_it_fails(
    prefect_harness, failing, sandbox_factory, tmp_path, monkeypatch, capfd
):
    """The real CLI, recorded as a flow run on the Prefect server: a custom webhook whose URL
    takes {{key}} from its secrets answers 500 with the URL in its body. The problem names the
    block and the status; the secret is nowhere; the good disputes are each sent once."""
    from prefect.blocks.notifications import CustomWebhookNotificationBlock
    from prefect.settings import get_current_settings

    CustomWebhookNotificationBlock(
        name="ops", url=failing.url + "?key={{key}}", json_data={"body": "{{body}}"},
        secrets={"key": SECRET},
    ).save("leaky", overwrite=True)  # fmt: skip
    now = datetime.now(UTC)
    inbox = _at_risk_inbox(tmp_path, now)
    rows = seed_rows(3)
    for row, h in zip(rows, (20, 30, 240), strict=True):
        row["response_due_by"] = iso(now + timedelta(hours=h))
    sb = sandbox_factory(rows=rows)
    for key, value in {"DISPUTE_API_BASE_URL": sb.base_url, "DISPUTE_API_TOKEN": TOKEN,
                       "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
                       "DISPUTE_EVIDENCE_ALERTS__BLOCK": "custom-webhook/leaky",
                       "PREFECT_API_URL": str(get_current_settings().api.url)}.items():  # fmt: skip
        monkeypatch.setenv(key, value)

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert failing.received and SECRET in failing.received[0]["query"]  # the block did try
    assert r.exit_code == EXIT_NEEDS_YOU, r.output  # dp_test_1 waits for its order
    terminal = r.output + "".join(capfd.readouterr())
    assert SECRET not in terminal and "boom" not in terminal
    assert "custom-webhook/leaky: the service answered HTTP 500" in terminal

    report = Path(
        next(line.split()[1] for line in r.output.splitlines() if line.startswith("Report: "))
    )
    for f in report.rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f.name
    assert "custom-webhook/leaky" in (report / "problems.csv").read_text()
    state = Path(default_state(inbox))
    for f in state.parent.glob(state.name + "*"):  # the database, its WAL and journal
        assert SECRET.encode() not in f.read_bytes(), f.name

    logs, artifacts = _server_text(since=now - timedelta(seconds=1))
    assert "custom-webhook/leaky: the service answered HTTP 500" in artifacts  # the summary
    assert SECRET not in logs and SECRET not in artifacts

    snap = sb.snapshot()  # the good disputes went, once each; the one without data did not
    updates = {pid: d["evidence_updates"] for pid, d in snap.items()}
    assert updates == {"dp_test_0": 1, "dp_test_1": 0, "dp_test_2": 1}
    with StateStore(state) as store:
        assert store.alerts.alerted_on(now.strftime("%Y-%m-%d")) == set()


def _server_text(since: datetime, wait: float = 30.0) -> tuple[str, str]:
    """This test's flow run's log messages and the server's latest artifacts, read over its REST
    API. The server is the session's, shared with other tests, some of whose deployments have
    runs scheduled ahead: the run is the one started after `since` by no deployment (the CLI's),
    and it must be over. Its logs travel in the background, in batches: read until two reads a
    batch apart agree, a bounded while. (Under `make test` Prefect logs at WARNING, so these are
    its warnings and errors; at INFO, everything it said.)"""
    import time

    import httpx
    from prefect.settings import get_current_settings

    api = str(get_current_settings().api.url)
    cli_runs = {"start_time": {"after_": since.isoformat()}, "deployment_id": {"is_null_": True}}
    runs = httpx.post(
        f"{api}/flow_runs/filter",
        json={"flow_runs": cli_runs, "limit": 1, "sort": "START_TIME_DESC"},
    ).json()
    assert runs, f"no flow run of the CLI started after {since:%H:%M:%S}"
    assert runs[0]["state_type"] in ("COMPLETED", "FAILED"), runs[0]["state_type"]
    mine = {"logs": {"flow_run_id": {"any_": [runs[0]["id"]]}}, "limit": 200, "offset": 0}
    logs: str | None = None
    end = time.monotonic() + wait
    while True:
        read = " ".join(x["message"] for x in httpx.post(f"{api}/logs/filter", json=mine).json())
        if read == logs or time.monotonic() > end:
            break
        logs = read
        time.sleep(2.5)  # Prefect sends logs every 2 s
    body = {"limit": 50, "offset": 0, "sort": "CREATED_DESC"}
    artifacts = httpx.post(f"{api}/artifacts/filter", json=body).text
    return read, artifacts
