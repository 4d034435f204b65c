"""Alerts without a Prefect server: nothing is sent or recorded (no temporary server is
started for them), and a configured block says why in the report."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dispute_evidence.engine.prepare.build import prepare_step
from dispute_evidence.engine.reporting.alerts import at_risk, send_alerts
from dispute_evidence.policies import AlertPolicy
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.state.store import StateStore
from tests.engine.helpers import ingest_inbox_step, make_inbox, options, write_rows


def test_without_a_prefect_server_alerts_are_not_sent_and_the_block_says_why(tmp_path):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    now = datetime.now(UTC)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [["dp_test_0", "#5000", "general", iso(now + timedelta(hours=30))],   # complete
                ["dp_test_1", "#5001", "fraudulent", iso(now + timedelta(hours=20))],  # incomplete
                ["dp_test_2", "#9999", "general", iso(now + timedelta(hours=10))],   # no order
                ["dp_test_3", "#5002", "fraudulent", iso(now + timedelta(days=9))]])  # not yet  # fmt: skip
    with StateStore(tmp_path / "s.sqlite3") as store:
        opts = options(inbox)
        prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
        risks = at_risk(store, now, 48)
        assert [r.pid for r in risks] == ["dp_test_2", "dp_test_1"]  # nearest first
        assert risks[0].why.startswith("waiting for data")
        assert risks[1].why.startswith("evidence missing: ")
        with temporary_settings(restore_defaults={PREFECT_API_URL}):
            quiet = send_alerts(store, AlertPolicy(), "r", now)
            told = send_alerts(store, AlertPolicy(block="slack-webhook/ops"), "r", now)
        assert quiet.alerted == [] and quiet.problem is None
        assert told.alerted == [] and "no Prefect server" in (told.problem or "")
        assert store.alerted_on(now.strftime("%Y-%m-%d")) == set()  # tried again next run
