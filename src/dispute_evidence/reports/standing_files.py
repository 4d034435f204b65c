"""The merchant's standing in the report: standing.csv and standing.xlsx (the month's ratio per
card network against its program), standing.svg (the last 12 months, reports/standing_chart.py),
and what the page shows of it (the chart inline: our own drawing of numbers and network names).

Every value is a number, a date or one of our own words, but the cells are escaped as every
other report file's are (reports/writer.py): a file's rules do not depend on today's columns."""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd
import xlsxwriter

from dispute_evidence import clock
from dispute_evidence.reports.run_report import StandingSection
from dispute_evidence.reports.writer import (
    _XLSX_OPTIONS,
    _escape_frame,
    escape_cell,
    private_folder,
)
from dispute_evidence.standing.ce3_coverage import Coverage
from dispute_evidence.standing.counts import NAMES, WHAT_IF, Standing, attention_lines
from dispute_evidence.standing.descriptors import EVERY
from dispute_evidence.standing.fraud_checks import FRAUD_CHECKS_CSV, summary_lines
from dispute_evidence.standing.ratios import IN_PROGRAM
from dispute_evidence.standing.words import cost_lines

CHART_MONTHS = 12
STATUS_FILLS = {"ok": "#C6EFCE", "watch": "#FFEB9C", "over": "#FFC7CE", IN_PROGRAM: "#FFC7CE"}
TITLES = {
    "ratio_without_ce3_percent": "ratio without CE 3.0 fraud (%)",
    "projected_percent": "at this pace by month end (%)",
    "projected_events": "events by month end at this pace",
    "note": "note",
}


def write_standing(result: Standing, folder: Path, now: datetime | None = None) -> StandingSection:
    """standing.csv, standing.xlsx (the table, then what-if columns and notes) and
    standing.svg (the chart, when there is a month to show); what the page shows of them.
    Written before the rest of the report, which makes the files private and copies them."""
    private_folder(folder)
    rows = _escape_frame(result.file_rows())
    rows.to_csv(folder / "standing.csv", index=False)
    checks = result.fraud_checks
    if checks is not None and not checks.empty:
        _escape_frame(checks).to_csv(folder / FRAUD_CHECKS_CSV, index=False)
    else:
        checks = None
    with xlsxwriter.Workbook(str(folder / "standing.xlsx"), _XLSX_OPTIONS) as book:
        header = book.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        fills = {k: book.add_format({"bg_color": c}) for k, c in STATUS_FILLS.items()}
        sheet = book.add_worksheet("Standing")
        _rows(sheet, header, result.file_rows(), fills)
        extra = result.rows()[["month", "network", "descriptor", *WHAT_IF]].rename(columns=TITLES)
        _rows(book.add_worksheet("What if and notes"), header, extra, {})
        notes = book.add_worksheet("Where the counts come from")
        for i, line in enumerate(result.notes):
            notes.write_string(i, 0, escape_cell(line))
        notes.set_column(0, 0, 110)
        if result.coverage is not None:  # what checkout logs decides CE 3.0 months later
            _coverage_sheet(book.add_worksheet("CE 3.0 coverage"), header, result.coverage)
        if checks is not None:  # per fraud dispute: 3-D Secure, Visa's 2026 rules
            _rows(book.add_worksheet("CE 3.0 per fraud dispute"), header, checks, {})
    chart = ""
    if not result.table.empty:  # reportlab's graphics: loaded when there is a month to draw
        from dispute_evidence.reports.standing_chart import chart_svg

        svg = chart_svg(last_months(result.table))
        (folder / "standing.svg").write_text(svg, encoding="utf-8")
        chart = svg[svg.index("<svg") :]  # in the page itself: it stays self-contained
    attention = attention_lines(result.table, now or clock.now()) if not result.table.empty else []
    covered = list(result.coverage.lines) if result.coverage is not None else []
    covered += summary_lines(checks) if checks is not None else []
    costs = cost_lines(result.rows()) if not result.table.empty else []
    return StandingSection(
        PAGE_TITLES,
        page_rows(result),
        list(result.notes),
        chart,
        attention,
        covered,
        PAGE_CLASSES,
        costs,
    )


def _coverage_sheet(sheet: Any, header: Any, coverage: Coverage) -> None:
    """The shares per element and today's cards, then the same in words."""
    table = coverage.table()
    _rows(sheet, header, table, {})
    for i, line in enumerate(coverage.lines, start=len(table) + 2):
        sheet.write_string(i, 0, escape_cell(line))


def _rows(sheet: Any, header: Any, frame: pd.DataFrame, fills: dict[str, Any]) -> None:
    """The frame's rows: numbers as numbers, a missing ratio as an empty cell, text escaped;
    the status cell coloured."""
    sheet.write_row(0, 0, [str(c) for c in frame.columns], header)
    status = list(frame.columns).index("status") if "status" in frame else None
    for r, values in enumerate(frame.itertuples(index=False, name=None), start=1):
        for c, value in enumerate(values):
            if isinstance(value, str):
                sheet.write_string(
                    r, c, escape_cell(value), fills.get(value) if c == status else None
                )
            elif value is not None and not (isinstance(value, float) and math.isnan(value)):
                sheet.write_number(r, c, float(value))
    widths = [max(len(str(c)), 10) + 2 for c in frame.columns]
    for i, width in enumerate(widths):
        sheet.set_column(i, i, 80 if frame.columns[i] in ("note", TITLES["note"]) else width)
    sheet.freeze_panes(1, 0)


def last_months(table: pd.DataFrame, months: int = CHART_MONTHS) -> pd.DataFrame:
    shown = sorted(set(table["month"]))[-months:]
    return table.loc[table["month"].isin(shown)]


def page_rows(result: Standing, months: int = CHART_MONTHS) -> list[list[str]]:
    """The page's table: the last months, newest first, every value in words; a statement
    descriptor's own figures under its network's, named beside it ("Visa · SHOP*ONE")."""
    rows = result.rows()
    recent = last_months(rows, months).sort_values("month", ascending=False, kind="stable")
    return [
        [
            r.month,
            _network(r.network, r.descriptor),
            f"{r.transactions:,}",
            f"{r.disputes:,}",
            f"{r.fraud_reports:,}",
            _pct(r.ratio_percent),
            _pct(r.threshold_percent),
            r.status,
            r.acquirer_tier,
            _usd(r.estimated_fine_usd),
            _without(r.ratio_without_ce3_percent, r.fine_without_ce3_usd, r.estimated_fine_usd),
            r.note,
        ]
        for r in recent.itertuples(index=False)
    ]


PAGE_TITLES = [
    "Month",
    "Network",
    "Transactions",
    "Disputes",
    "Fraud reports",
    "Ratio",
    "Threshold",
    "Status",
    "Acquirer's tier",
    "Estimated fine",
    "Without CE 3.0 fraud",
    "Note",
]
# the page's cell classes, column by column
PAGE_CLASSES = [
    "nowrap",
    "nowrap",
    "num",
    "num",
    "num",
    "num",
    "num",
    "status",
    "nowrap",
    "num",
    "num",
    "note",
]


def _network(network: str, descriptor: str) -> str:
    name = NAMES.get(network, network)
    return name if descriptor in ("", EVERY) else f"{name} · {descriptor}"


def _usd(value: Any) -> str:
    return "" if value is None or value != value else f"${float(value):,.0f}"


def _without(ratio: Any, fine: Any, with_ce3: Any) -> str:
    """The ratio without CE 3.0-qualified fraud, and the fine then where it differs."""
    differs = fine == fine and with_ce3 == with_ce3 and fine != with_ce3
    return " · ".join(part for part in (_pct(ratio), _usd(fine) if differs else "") if part)


def _pct(value: Any) -> str:
    return "" if value is None or value != value else f"{float(value):.2f}%"
