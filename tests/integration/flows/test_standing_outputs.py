"""The standing where a person looks besides the page: a Prefect table artifact of standing.csv
(the flow publishes what the report wrote), and a line in the run's summary and in `status`
when this month or last is at watch or over on a network."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.settings import RunRequest
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

HEADER = ["payment_id", "order_number", "paid_at", "payment_status", "card_brand"]


def _artifact_rows(key: str) -> list[dict[str, str]]:
    import json

    import httpx
    from prefect.settings import get_current_settings

    api = str(get_current_settings().api.url)
    body = {"limit": 5, "offset": 0, "sort": "CREATED_DESC", "artifacts": {"key": {"any_": [key]}}}
    found = httpx.post(f"{api}/artifacts/filter", json=body).json()
    assert found, f"no artifact {key}"
    data = found[0]["data"]
    return json.loads(data) if isinstance(data, str) else data


def test_the_flow_publishes_the_standing_and_the_summary_and_status_say_a_watch_month(
    prefect_harness, sandbox_factory, tmp_path, monkeypatch
):
    from flows.pipeline import evidence_run

    sb = sandbox_factory(rows=seed_rows(2))  # opened 3 days ago: this month or last
    for key, value in (("DISPUTE_API_BASE_URL", sb.base_url), ("DISPUTE_API_TOKEN", TOKEN),
                       ("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0"),
                       ("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")):  # fmt: skip
        monkeypatch.setenv(key, value)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    paid = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%d 10:00:00")
    month = paid[:7]
    write_rows(inbox / "payments.csv", HEADER,
               [[f"ch_{i}", 5000 + i, paid, "Paid", "Visa"] for i in range(100)])  # fmt: skip

    result = evidence_run(RunRequest(inbox=str(inbox)))
    rows = _artifact_rows("dispute-evidence-standing")
    (visa,) = [r for r in rows if r["month"] == month and r["network"] == "visa"]
    assert (visa["transactions"], visa["disputes"], visa["status"]) == ("100", "2", "watch")
    assert list(rows[0]) == ["month", "network", "descriptor", "transactions", "disputes", "fraud_reports",
                             "ratio_percent", "threshold_percent", "status", "acquirer_tier",
                             "estimated_fine_usd"]  # fmt: skip

    line = f"Visa {month}: 2.00% (2 fraud reports and disputes / 100 transactions) is on watch"
    report = Path(result["report"]).parent
    assert f"Dispute ratio: {line}" in (report / "summary.txt").read_text()
    md = (report / "summary.md").read_text()  # Markdown escapes its brackets
    assert f"**Dispute ratio:** Visa {month}: 2.00%" in md and "is on watch" in md
    assert line in (report / "summary.html").read_text()
    status = CliRunner().invoke(app, ["status", "--inbox", str(inbox)])
    assert f"Dispute ratio: {line}" in status.output, status.output
