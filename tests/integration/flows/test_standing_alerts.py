"""The dispute-ratio alert: the first run a month crosses `watch` or `over` on a network tells
the `[alerts] block` (and emits a Prefect event); a later run of the same month says nothing
more; a month that goes on from watch to over is alerted again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from dispute_evidence.engine.reporting.standing_alerts import crossings, standing_alerted
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore
from flows.alerting import PrefectAlerts
from tests.conftest import TOKEN, seed_rows
from tests.integration.flows.test_alerts import Receiver
from tests.support.engine_helpers import make_inbox, write_rows

NOW = datetime(2026, 11, 20, tzinfo=UTC)


@pytest.fixture
def receiver():
    with Receiver() as r:
        yield r


def _table(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"month": m, "network": n, "transactions": 100, "disputes": 2, "fraud_reports": 1,
          "ratio_percent": 3.0, "threshold_percent": 1.5, "status": s} for m, n, s in rows]
    )  # fmt: skip


def test_only_this_and_last_months_new_levels_are_alerted():
    table = _table([("2026-11", "visa", "watch"), ("2026-10", "mastercard", "over"),
                    ("2026-09", "visa", "over"), ("2026-11", "amex", "ok")])  # fmt: skip
    found = crossings(table, set(), NOW)
    assert [(c.month, c.network, c.level) for c in found] == [
        ("2026-10", "mastercard", "over"),  # over first; September is history: not alerted
        ("2026-11", "visa", "watch"),
    ]
    assert found[1].events == 3  # Visa counts fraud reports with the disputes
    assert (
        "Visa 2026-11: 3.00% (3 fraud reports and disputes / 100 transactions)" in found[1].line()
    )
    sent = {c.key for c in found}
    assert crossings(table, sent, NOW) == []  # once per month, network and level
    later = _table([("2026-11", "visa", "over"), ("2026-10", "mastercard", "watch")])
    again = crossings(later, sent, NOW)  # watch -> over: again; over -> watch: nothing
    assert [(c.network, c.level) for c in again] == [("visa", "over")]


def test_a_month_crossing_watch_then_over_alerts_once_each(
    prefect_harness,
    receiver,
    sandbox_factory,
    tmp_path,
    monkeypatch,
):
    from prefect.blocks.notifications import CustomWebhookNotificationBlock

    CustomWebhookNotificationBlock(
        name="ratio", url=receiver.url, json_data={"subject": "{{subject}}", "body": "{{body}}"}
    ).save("ratio-alerts", overwrite=True)
    sb = sandbox_factory(rows=seed_rows(2))  # both opened 3 days ago (the API's initiated_at)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    paid = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%d 10:00:00")
    month = paid[:7]
    # 100 Visa charges that month, two of them disputed: 2% (watch; under VAMP's floor)
    write_rows(inbox / "payments.csv", ["payment_id", "order_number", "paid_at", "payment_status", "card_brand"],
               [[f"ch_{i}", 5000 + i, paid, "Paid", "Visa"] for i in range(100)])  # fmt: skip
    for key, value in (("INGEST__SETTLE_SECONDS", "0"), ("READBACK__ENABLED", "false"),
                       ("ALERTS__BLOCK", "custom-webhook/ratio-alerts")):  # fmt: skip
        monkeypatch.setenv(f"DISPUTE_EVIDENCE_{key}", value)
    settings = load_settings(None)
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)

    first = run_inbox(settings, RunRequest(inbox=inbox), api=api, alert_sink=PrefectAlerts())
    assert first.counts.get("ratio_alerted") == 1, first.counts
    ((message),) = [m for m in receiver.received if "Dispute ratio" in m["subject"]]
    assert message["subject"] == f"Dispute ratio on watch: Visa {month}"
    assert (
        f"Visa {month}: 2.00% (2 fraud reports and disputes / 100 transactions)" in message["body"]
    )

    # the same month: nothing
    second = run_inbox(settings, RunRequest(inbox=inbox), api=api, alert_sink=PrefectAlerts())
    assert "ratio_alerted" not in second.counts
    assert sum("Dispute ratio" in m["subject"] for m in receiver.received) == 1

    monkeypatch.setenv("DISPUTE_EVIDENCE_STANDING__VISA_FLOOR", "0")  # now it is over
    third = run_inbox(
        load_settings(None), RunRequest(inbox=inbox), api=api, alert_sink=PrefectAlerts()
    )
    assert third.counts.get("ratio_alerted") == 1
    over = [m for m in receiver.received if "Dispute ratio" in m["subject"]][-1]
    assert over["subject"] == f"Dispute ratio over its threshold: Visa {month}"
    with StateStore(default_state(inbox)) as store:
        assert standing_alerted(store.alerts) == {
            f"standing:{month}:visa:watch",
            f"standing:{month}:visa:over",
        }
    fourth = run_inbox(
        load_settings(None), RunRequest(inbox=inbox), api=api, alert_sink=PrefectAlerts()
    )
    assert "ratio_alerted" not in fourth.counts
