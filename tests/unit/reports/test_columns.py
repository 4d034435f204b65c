"""The one column registry (reports/columns.py): disputes.xlsx, the page's table and sections,
the terminal summary and `status` all take their columns, order and titles from it, and no
title is written anywhere else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pandas as pd
from openpyxl import load_workbook

import dispute_evidence
from dispute_evidence.reports import RunReport, write_report
from dispute_evidence.reports.columns import COLUMNS, Surface, columns, line, title
from dispute_evidence.reports.status_lines import status_lines
from dispute_evidence.reports.writer import summary_text
from tests.support.source import nodes_of

SRC = Path(dispute_evidence.__file__).parent
# the modules that lay out dispute columns: none may spell a column title itself
SURFACES = [SRC / "reports/page.py", SRC / "reports/writer.py", SRC / "reports/status_lines.py",
            SRC / "cli/status.py", SRC / "reports/templates/summary.html.j2"]  # fmt: skip


def _table() -> pd.DataFrame:
    """One dispute with every column the registry knows (a value naming its column)."""
    row = {c.key: f"<{c.key}>" for c in COLUMNS}
    row |= {"provider_dispute_id": "dp_1", "amount": 12.5, "currency": "EUR", "days_left": 3,
            "response_due_by": "2030-01-02T03:04:00Z", "status": "submitted",
            "files_uploaded": 1, "files_total": 2, "needs_something": True}  # fmt: skip
    return pd.DataFrame([row])


def test_titles_are_unique_on_every_surface_and_each_title_names_one_column():
    for surface in Surface:
        shown = [c.title_on(surface) for c in columns(surface)]
        assert shown and len(shown) == len(set(shown)), surface
        orders = [c.places[surface].order for c in columns(surface)]
        assert len(orders) == len(set(orders)), surface  # no two columns in one place
    owner: dict[str, str] = {}
    for c in COLUMNS:
        for t in {c.title, *(c.title_on(s) for s in c.places)}:
            assert owner.setdefault(t, c.key) == c.key, f"{t!r}: {owner[t]} and {c.key}"
    assert len({c.key for c in COLUMNS}) == len(COLUMNS)


def test_no_surface_spells_a_column_title_itself():
    titles = {t for c in COLUMNS for t in (c.title, *(c.title_on(s) for s in c.places))}
    for path in SURFACES:
        source = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            literals = {
                n.value
                for n in nodes_of(source)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
        else:  # the template: its table headings and card labels
            found = re.findall(r'<th[^>]*>([^<{]+)</th>|data-label="([^"{]+)"', source)
            literals = {a or b for a, b in found}
        assert not literals & titles, f"{path.name}: {sorted(literals & titles)}"


def test_the_sheet_the_page_the_terminal_and_status_iterate_the_registry(tmp_path):
    table = _table()
    write_report(RunReport("r", "ok", False, {}, table), tmp_path)
    header = [c.value for c in load_workbook(tmp_path / "disputes.xlsx").active[1]]
    assert header == [c.title_on(Surface.XLSX) for c in columns(Surface.XLSX)]
    assert pd.read_csv(tmp_path / "disputes.csv").columns.tolist() == header

    html = (tmp_path / "summary.html").read_text()
    thead = html.split('<table class="disputes">')[1].split("</thead>")[0]
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", thead)
    assert heads == [c.title_on(Surface.PAGE) for c in columns(Surface.PAGE)]
    cards = re.findall(r'<td class="[^"]* card[^"]*" data-label="([^"]*)"', html)
    assert cards == [c.title_on(Surface.PAGE) for c in columns(Surface.PAGE) if c.card]
    facts = re.findall(r"<dt>([^<]*)</dt>", html)
    assert facts == [c.title_on(Surface.FACTS) for c in columns(Surface.FACTS)]

    row = table.to_dict("records")[0]
    text = summary_text(RunReport("r", "ok", False, {}, table))
    assert "  " + line(Surface.TERMINAL, row) + "\n" in text
    assert line(Surface.TERMINAL, row) == f"{'dp_1':<30} <state_words>"
    shown = status_lines(table)
    assert shown[-1] == "  " + line(Surface.STATUS, row)
    assert (
        shown[-1]
        == f"  {'dp_1':<28} {'3 days left':<15} {'12.50 EUR':>14}  <state_words>: add <what_to_add>"
    )


def test_a_title_is_the_sheets_unless_a_surface_says_otherwise():
    assert title("state_words") == "Status" and title("state_words", Surface.PAGE) == "State"
    assert title("completeness", Surface.FACTS) == "Evidence verdict"
    assert title("files_uploaded", Surface.PAGE) == "Files"
    assert [c.key for c in columns(Surface.TERMINAL)] == ["provider_dispute_id", "state_words"]
