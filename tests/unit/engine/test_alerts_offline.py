"""Alerts without a Prefect server: nothing is sent or recorded (no temporary server is
started for them), and a configured block says why in the report. Without any sink (the
engine alone, no Prefect), each alert is logged. (flows/ imports Prefect: imported by the test
that needs it, not at collection, so only the worker running it pays.)"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dispute_evidence.engine.prepare.build import prepare_step
from dispute_evidence.engine.reporting.deadline_alerts import NO_SINK, at_risk, send_alerts
from dispute_evidence.policies import AlertPolicy
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.state.store import StateStore
from tests.support.engine_helpers import ingest_inbox_step, make_inbox, options, write_rows


def _at_risk_state(tmp_path: Path, now: datetime) -> StateStore:
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [["dp_test_0", "#5000", "general", iso(now + timedelta(hours=30))],   # complete
                ["dp_test_1", "#5001", "fraudulent", iso(now + timedelta(hours=20))],  # incomplete
                ["dp_test_2", "#9999", "general", iso(now + timedelta(hours=10))],   # no order
                ["dp_test_3", "#5002", "fraudulent", iso(now + timedelta(days=9))]])  # not yet  # fmt: skip
    store = StateStore(tmp_path / "s.sqlite3")
    opts = options(inbox)
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
    return store


def test_without_a_prefect_server_alerts_are_not_sent_and_the_block_says_why(tmp_path):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.alerting import PrefectAlerts

    now = datetime.now(UTC)
    with _at_risk_state(tmp_path, now) as store:
        risks = at_risk(store, now, 48)
        assert [r.pid for r in risks] == ["dp_test_2", "dp_test_1"]  # nearest first
        assert risks[0].why.startswith("waiting for data")
        assert risks[1].why.startswith("evidence missing: ")
        with temporary_settings(restore_defaults={PREFECT_API_URL}):
            quiet = send_alerts(store, AlertPolicy(), "r", now, sink=PrefectAlerts())
            told = send_alerts(
                store, AlertPolicy(block="slack-webhook/ops"), "r", now, sink=PrefectAlerts()
            )
        assert quiet.alerted == [] and quiet.problem is None
        assert told.alerted == [] and "no Prefect server" in (told.problem or "")
        assert store.alerts.alerted_on(now.strftime("%Y-%m-%d")) == set()  # tried again next run


def test_without_a_sink_each_alert_is_logged_and_not_recorded(tmp_path, caplog):
    """The engine alone (no Prefect): the alerts are in the log; nothing was recorded as sent,
    and a configured block says it had no channel."""
    now = datetime.now(UTC)
    with _at_risk_state(tmp_path, now) as store, caplog.at_level(logging.INFO, "dispute_evidence"):
        out = send_alerts(store, AlertPolicy(block="slack-webhook/ops"), "r", now)
        assert out.alerted == [] and out.events == 0 and not out.notified
        assert out.problem == f"slack-webhook/ops: {NO_SINK}; not sent"
        assert store.alerts.alerted_on(now.strftime("%Y-%m-%d")) == set()
    logged = [r.getMessage() for r in caplog.records if r.name == "dispute_evidence.alerts"]
    assert [line.split(" ")[1] for line in logged] == ["dp_test_2", "dp_test_1"]
    assert (
        logged[0].startswith("alert: dp_test_2 (order 9999): due ")
        and "waiting for data" in logged[0]
    )
