"""The merchant's standing in a real run's report (the CLI against the local API): standing.csv
with its columns in order, standing.xlsx opened with openpyxl, and the page's section with its
chart, loaded in headless Chromium at 1,400 and 400 px."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from dispute_evidence.standing.counts import COLUMNS
from tests.browser import Browser, chromium_missing_reason
from tests.conftest import TOKEN, seed_rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

PAYMENTS = ["payment_id", "order_number", "paid_at", "payment_status", "card_brand",
            "dispute_reason", "dispute_date"]  # fmt: skip


def _charges(month: str, brand: str, n: int, start: int) -> list[list[object]]:
    return [[f"ch_{brand}_{start + i}", 90000 + start + i, f"{month}-07 12:00:00", "Paid", brand, "", ""]
            for i in range(n)]  # fmt: skip


pytestmark = pytest.mark.sandbox_server  # starts the local API itself


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """Three months of charges (300 Visa and 100 Mastercard a month), two disputes, three
    fraud reports in February; one real run; its latest report folder."""
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,)), seed_rows(2))
    root = tmp_path_factory.mktemp("standing")
    inbox = root / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    rows = []
    for k, month in enumerate(("2026-01", "2026-02", "2026-03")):
        rows += _charges(month, "Visa", 300, k * 1000) + _charges(
            month, "MasterCard", 100, k * 1000 + 500
        )
    rows += [["ch_d0", 5000, "2026-01-03 10:00:00", "Paid", "Visa", "fraudulent", "2026-02-10 00:00:00"],
             ["ch_d1", 5001, "2026-01-04 10:00:00", "Paid", "MasterCard", "general", "2026-03-02 00:00:00"]]  # fmt: skip
    write_rows(inbox / "payments.csv", PAYMENTS, rows)
    write_rows(inbox / "fraud_warnings.csv", ["payment_id", "reported_at", "fraud_type"],
               [[f"ch_Visa_{1000 + i}", "2026-02-20", "misc"] for i in range(3)])  # fmt: skip
    try:
        with pytest.MonkeyPatch.context() as mp:
            use_sandbox(sb, mp)
            run_cli("--inbox", str(inbox))
    finally:
        sb.stop()
    return root / "inbox.reports" / "latest"


def _row(table: pd.DataFrame, month: str, network: str) -> pd.Series:
    return table.loc[(table["month"] == month) & (table["network"] == network)].iloc[0]


def test_standing_csv_has_its_columns_in_order_and_the_months_counts(report):
    table = pd.read_csv(report / "standing.csv", dtype={"month": str})
    assert list(table.columns) == COLUMNS
    assert set(table["network"]) == {"visa", "mastercard"}
    assert set(table["status"]) <= {"ok", "watch", "over", "in program", "no ratio"}
    jan, feb = _row(table, "2026-01", "visa"), _row(table, "2026-02", "visa")
    assert (jan["transactions"], feb["transactions"], feb["fraud_reports"]) == (301, 300, 3)
    # Mastercard's March ratio divides by February's 100 charges
    assert _row(table, "2026-03", "mastercard")["transactions"] == 100
    assert table["disputes"].sum() == 2  # each in the month it opened, API or export


def test_standing_xlsx_opens_with_the_table_its_what_if_and_its_notes(report):
    book = openpyxl.load_workbook(report / "standing.xlsx")
    assert book.sheetnames == ["Standing", "What if and notes", "Where the counts come from",
                               "CE 3.0 coverage", "CE 3.0 per fraud dispute"]  # fmt: skip
    sheet = book["Standing"]
    assert [c.value for c in sheet[1]] == COLUMNS
    values = [[c.value for c in r] for r in sheet.iter_rows(min_row=2)]
    feb = next(v for v in values if v[:2] == ["2026-02", "visa"])
    assert feb[2] == "all"  # every statement descriptor together (none in these exports)
    assert (feb[3], feb[5]) == (300, 3)  # transactions, fraud reports: numbers, not text
    assert feb[6] == pytest.approx((3 + feb[4]) / 300 * 100)  # (fraud + disputes) / charges
    assert feb[7] == 2.2  # Visa's threshold until April 2026
    notes = [c.value for c in book["Where the counts come from"]["A"]]
    assert "fraud reports: 3 from your fraud-warnings sheet" in notes
    assert not any(str(v).startswith("=") for r in values for v in r)  # no formula


def test_ce3_coverage_is_a_sheet_and_a_section_of_the_page(report):
    sheet = openpyxl.load_workbook(report / "standing.xlsx")["CE 3.0 coverage"]
    rows = [[c.value for c in r] for r in sheet.iter_rows()]
    assert rows[0][:4] == ["element", "orders with it", "orders", "share of orders (%)"]
    ip = next(r for r in rows if r[0] == "IP address")
    assert ip[1] == 0 and ip[2] > 1000  # every order and charge read; none logged an IP
    words = [r[0] for r in rows if r[0] and str(r[0]).startswith("no card fingerprint")]
    assert words  # no card can be followed: said, not a 0% share
    html = (report / "summary.html").read_text()
    assert 'id="ce3-coverage"' in html and "IP address: on 0 of " in html


def test_the_page_shows_the_standing_with_its_chart(report):
    html = (report / "summary.html").read_text()
    assert 'id="standing"' in html and '<div class="chart" role="img"' in html
    assert '<a href="standing.xlsx">' in html
    svg = (report / "standing.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and "Mastercard" in svg


@pytest.mark.parametrize("width", [1400, 400])
def test_the_chart_and_table_fit_the_page_at_desktop_and_phone_widths(report, tmp_path, width):
    if reason := chromium_missing_reason():
        pytest.skip(reason)
    with Browser(tmp_path / "chromium") as browser:
        browser.open((report / "summary.html").as_uri(), width)
        chart = browser.rect("#standing .chart svg")
        assert chart["width"] > 200 and chart["height"] > 80  # the SVG loaded and drew
        assert chart["x"] + chart["width"] <= width  # never wider than the screen
        assert browser.js("document.documentElement.scrollWidth") <= width  # nothing sideways
        browser.screenshot(tmp_path / f"standing-{width}.png")
