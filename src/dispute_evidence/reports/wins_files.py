"""What wins in the report: wins.csv, and outcomes.xlsx written again with a second sheet,
*What wins* (per reason, each point and exhibit's win rate with and without it, with its 95%
interval; standing/win_rates.py), and a third saying how to read it. Cells escaped as every other
report file's are (reports/writer.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import xlsxwriter

from dispute_evidence.reports.writer import _XLSX_OPTIONS, _escape_frame, escape_cell
from dispute_evidence.standing.win_rates import MIN_OUTCOMES

HOW_TO_READ = [
    "Per dispute reason (and all reasons together): the disputes won or lost whose rebuttal "
    "letter used a point or named an exhibit of that kind, and those whose letter did not.",
    "Win rate: won / (won + lost), with its 95% Wilson interval: the range the true rate "
    "likely lies in. A wide range means few outcomes.",
    f"Under {MIN_OUTCOMES} outcomes a cell says 'too few outcomes' (and how many): a rate from "
    "6 disputes says next to nothing.",
    "These are associations, not causes: a signed proof of delivery goes with parcels that "
    "arrived; a point a letter makes only when the case is strong wins more for that reason.",
    "Counted: disputes whose status the API shows won or lost (read back), each letter as the "
    "last build made it from its payload and documents. Not counted: open disputes, disputes "
    "never sent, outcomes the API does not report.",
]


def write_wins(outcomes: pd.DataFrame | None, wins: pd.DataFrame | None, folder: Path) -> None:
    """wins.csv, and outcomes.xlsx with its Outcomes sheet, What wins and How to read it
    (nothing while no dispute is decided)."""
    if outcomes is None or outcomes.empty or wins is None or wins.empty:
        return
    safe = _escape_frame(wins)
    safe.to_csv(folder / "wins.csv", index=False)
    with xlsxwriter.Workbook(str(folder / "outcomes.xlsx"), _XLSX_OPTIONS) as book:
        header = book.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        _sheet(book.add_worksheet("Outcomes"), header, _escape_frame(outcomes))
        _sheet(book.add_worksheet("What wins"), header, safe)
        notes = book.add_worksheet("How to read it")
        for i, line in enumerate(HOW_TO_READ):
            notes.write_string(i, 0, escape_cell(line))
        notes.set_column(0, 0, 110)


def _sheet(ws: Any, header: Any, frame: pd.DataFrame) -> None:
    ws.write_row(0, 0, [str(c) for c in frame.columns], header)
    for r, values in enumerate(frame.itertuples(index=False, name=None), start=1):
        for c, value in enumerate(values):
            if isinstance(value, str):
                ws.write_string(r, c, value)
            elif value is not None and value == value:
                ws.write_number(r, c, float(value))
    for i, name in enumerate(frame.columns):
        ws.set_column(i, i, max(len(str(name)), 12) + 2)
    ws.freeze_panes(1, 0)
