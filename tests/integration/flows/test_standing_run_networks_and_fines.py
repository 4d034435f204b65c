"""A real run's standing (the CLI against the local API) counts each brand as exports spell it
under its network, and gives the month its acquirer's tier and estimated fine, in standing.csv
and on the page (issue 46, items 1 and 4; issue 45 item 11)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from tests.conftest import TOKEN, seed_rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

PAYMENTS = ["payment_id", "order_number", "paid_at", "payment_status", "card_brand"]
BRANDS = {"Visa Debit": 500, "Visa Electron": 300, "Maestro": 200}

pytestmark = pytest.mark.sandbox_server  # starts the local API itself


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """January and February 2026: 500 'Visa Debit', 300 'Visa Electron' and 200 'Maestro'
    charges a month; 5 fraud reports in February on Visa Debit charges (5 / 800 = 0.625%)."""
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,)), seed_rows(2))
    root = tmp_path_factory.mktemp("networks")
    inbox = root / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    rows, n = [], 0
    for month in ("2026-01", "2026-02"):
        for brand, count in BRANDS.items():
            for _ in range(count):
                n += 1
                rows.append([f"ch_{n}", 70000 + n, f"{month}-07 12:00:00", "Paid", brand])
    write_rows(inbox / "payments.csv", PAYMENTS, rows)
    write_rows(inbox / "fraud_warnings.csv", ["payment_id", "reported_at", "fraud_type"],
               [[f"ch_{1000 + i}", "2026-02-20", "misc"] for i in range(1, 6)])  # fmt: skip
    try:
        with pytest.MonkeyPatch.context() as mp:
            use_sandbox(sb, mp)
            run_cli("--inbox", str(inbox))
    finally:
        sb.stop()
    return root / "inbox.reports" / "latest"


def _row(table: pd.DataFrame, month: str, network: str) -> pd.Series:
    return table.loc[(table["month"] == month) & (table["network"] == network)].iloc[0]


def test_visa_debit_electron_and_maestro_count_under_their_networks(report):
    table = pd.read_csv(report / "standing.csv", dtype={"month": str}, keep_default_na=False)
    assert _row(table, "2026-01", "visa")["transactions"] == 800
    assert _row(table, "2026-02", "mastercard")["transactions"] == 200  # January's Maestro


def test_the_months_tier_and_fine_are_in_the_file_and_on_the_page(report):
    table = pd.read_csv(report / "standing.csv", dtype={"month": str}, keep_default_na=False)
    feb = _row(table, "2026-02", "visa")
    assert (int(feb["fraud_reports"]), float(feb["ratio_percent"])) == (5, 0.625)
    assert (feb["acquirer_tier"], float(feb["estimated_fine_usd"])) == ("above standard", 20.0)
    html = (report / "summary.html").read_text()
    section = html[html.index('id="standing"') :]
    assert "<th>Acquirer&#39;s tier</th>" in section or "<th>Acquirer's tier</th>" in section
    assert '<td class="nowrap">above standard</td><td class="num">$20</td>' in section


def test_the_latest_tier_and_fine_are_said_above_the_table_at_any_width(report):
    """The table scrolls sideways on a phone: each network's latest tier and fine are said in a
    line above it too."""
    html = (report / "summary.html").read_text()
    section = html[html.index('id="standing"') : html.index("<table", html.index('id="standing"'))]
    assert (
        "Visa 2026-02: acquirer&#39;s tier above standard; estimated fine $20 (5 counted events)"
        in section
    )
