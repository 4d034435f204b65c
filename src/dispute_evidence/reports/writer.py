"""Write reports/<run-id>/: summary.md (Prefect artifact), summary.txt (terminal), summary.html
(the page: reports/page.py, with the summary PDFs in pdf/), disputes.csv/.xlsx and
problems.csv/.xlsx; and a copy of the newest report in <reports>/latest/.

Every text that came from the inbox is made inert for where it goes: Markdown-escaped, HTML-
escaped (the page's template autoescapes), or, in CSV/XLSX, prefixed with an apostrophe when a
spreadsheet would run it."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xlsxwriter

from dispute_evidence.cardnumbers import cover_text
from dispute_evidence.names import visible
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports.columns import Surface, columns, line, title
from dispute_evidence.reports.page import render_page
from dispute_evidence.reports.run_report import RunReport
from dispute_evidence.reports.wording import HEADING, WHAT_TO_DO

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

# Enough to stop links, images, HTML, code spans, tables and emphasis mid-line; every item
# starts with "- ", so block markers (#, +, -, 1.) never begin the escaped text.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>!|~])")

# Fill colours by status code (Excel and HTML).
NEEDS = "needs you"  # the colour key of a row that needs something (sent but weak, ...)
STATUS_COLOURS = {
    "submitted": "#C6EFCE",
    "pending": "#FFEB9C",
    "incomplete": "#FFEB9C",
    "rejected": "#FFC7CE",
    "not_found": "#FFC7CE",
    "past_due": "#D9D9D9",
    "awaiting_approval": "#DDEBF7",
    NEEDS: "#FFEB9C",  # whatever its state, a dispute that needs something: as the page colours it
}


def md_text(value: Any) -> str:
    """Inbox text (file names, cell values) made inert in Markdown: no links, images or markup,
    one line. The Prefect UI renders the summary; a cell must never make it fetch a URL."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(visible(str(value)).split()))


def escape_cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula gets a leading apostrophe; numbers and
    dates stay what they are."""
    if not isinstance(value, str):
        return value
    value = visible(value)  # a control character in a name must not reach the sheet as it is
    return "'" + value if value.startswith(FORMULA_START) else value


def one_line(value: Any) -> str:
    return " ".join(visible(str(value)).split())


PROBLEM_COLUMNS = [
    "problem_kind",
    "dispute",
    "file",
    "sheet",
    "row",
    "column",
    "value",
    "problem",
    "what to do",
]


def problems_frame(problems: list[Problem]) -> pd.DataFrame:
    """problems.csv/.xlsx: one row per problem, with its heading and what to do."""
    rows = [
        [
            HEADING[p.kind],
            p.dispute,
            p.file,
            p.sheet,
            "" if p.row is None else p.row,
            p.column,
            p.value,
            p.what,
            WHAT_TO_DO[p.kind],
        ]
        for p in problems
    ]
    return pd.DataFrame(rows, columns=PROBLEM_COLUMNS)


def disputes_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The dispute table as the analyst reads it: the registry's sheet columns in their order
    (reports/columns.py), amounts as numbers, real dates."""
    out = pd.DataFrame(index=table.index)
    for c in columns(Surface.XLSX):
        if c.key not in table:
            continue
        values = table[c.key]
        if c.value == "number":  # a number Excel can add up (text that is not one stays empty)
            values = pd.to_numeric(values, errors="coerce")
        elif c.value == "datetime":
            values = pd.to_datetime(values, utc=True, errors="coerce").dt.tz_localize(None)
        out[c.title_on(Surface.XLSX)] = values
    return out.reset_index(drop=True)


def write_approvals(log: pd.DataFrame, folder: Path) -> None:
    """approvals.csv / approvals.xlsx: every approval given, who, how, which version, applied
    or why not (engine/review/log.py). Its headers are not an Approve table's: dropped back
    into the inbox, it approves nothing."""
    _write_table(log, folder, "approvals", "Approvals")


def _escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(object).where(frame.notna(), "").map(escape_cell)


def _write_table(
    frame: pd.DataFrame, folder: Path, stem: str, sheet: str, status: pd.Series | None = None
) -> None:
    safe = _escape_frame(frame)
    safe.to_csv(folder / f"{stem}.csv", index=False)
    _write_xlsx(safe, folder / f"{stem}.xlsx", sheet, status)


_XLSX_OPTIONS = {
    # built in memory, then written once: no temporary file per worksheet part (~40 a report)
    "in_memory": True,
    "strings_to_formulas": False,
    "strings_to_urls": False,
    "strings_to_numbers": False,
}


def _write_xlsx(safe: pd.DataFrame, path: Path, sheet: str, status: pd.Series | None) -> None:
    """The sheet in one pass, each cell written once with its format (xlsxwriter directly:
    through pandas each cell cost a style object and its JSON, a third of a night's report).
    Text as text (never a formula or a link), numbers as numbers, dates as dates; amounts in
    their currency's format with a total per currency under the table; the state coloured."""
    titles = [str(c) for c in safe.columns]
    amount_col = _index(titles, title("amount")) if title("currency") in titles else None
    currency_col = _index(titles, title("currency"))
    state_col = _index(titles, title("state_words")) if status is not None else None
    codes = [str(c) for c in status] if status is not None else []
    with xlsxwriter.Workbook(str(path), _XLSX_OPTIONS) as book:
        ws = book.add_worksheet(sheet)
        header = book.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        when = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
        fills = {k: book.add_format({"bg_color": c}) for k, c in STATUS_COLOURS.items()}
        money: dict[str, Any] = {}
        totals: dict[str, float] = {}
        ws.write_row(0, 0, titles, header)
        widths = [max(len(t), 8) for t in titles]  # from the first 500 rows' values
        for r, values in enumerate(safe.itertuples(index=False, name=None)):
            if r < 500:
                widths = [max(w, len(str(v))) for w, v in zip(widths, values, strict=True)]
            for c, value in enumerate(values):
                if type(value) is str and c != state_col and c != amount_col:  # most cells
                    if value:
                        ws.write_string(r + 1, c, value)
                    continue
                fmt = fills.get(codes[r]) if c == state_col else None
                if c == amount_col and isinstance(value, int | float) and value == value:
                    cur = str(values[currency_col]).strip().upper()
                    ws.write_number(r + 1, c, value, _money_format(book, cur, money))
                    totals[cur] = totals.get(cur, 0.0) + float(value)
                else:
                    _write_cell(ws, r + 1, c, value, fmt, when)
        for i, width in enumerate(widths):
            ws.set_column(i, i, min(60, width + 2))
        ws.freeze_panes(1, 0)
        ws.autofilter(0, 0, max(len(safe), 1), max(len(titles) - 1, 0))
        ws.set_landscape()
        ws.fit_to_pages(1, 0)  # one page wide, as many tall as it takes
        ws.repeat_rows(0)
        if amount_col is not None:  # after one empty row, outside the filter
            bold = book.add_format({"bold": True})
            for i, (cur, total) in enumerate(sorted(totals.items()), start=len(safe) + 2):
                ws.write_string(i, 0, escape_cell(f"Total {cur}".strip()), bold)
                ws.write_number(i, amount_col, total, _money_format(book, cur, money, bold=True))
                ws.write_string(i, currency_col, escape_cell(cur), bold)


def _index(titles: list[str], name: str) -> int | None:
    return titles.index(name) if name in titles else None


def _write_cell(ws: Any, row: int, col: int, value: Any, fmt: Any, when: Any) -> None:
    """One cell as pandas' writer would have typed it (an empty text is an empty cell)."""
    if isinstance(value, str):
        if value:
            ws.write_string(row, col, value, fmt)
        elif fmt is not None:
            ws.write_blank(row, col, None, fmt)
    elif isinstance(value, bool | np.bool_):
        ws.write_boolean(row, col, bool(value), fmt)
    elif isinstance(value, int | float | np.integer | np.floating):
        if value == value and abs(float(value)) != float("inf"):
            ws.write_number(row, col, float(value), fmt)
    elif isinstance(value, datetime):  # pd.Timestamp too; the sheet's dates are naive
        ws.write_datetime(row, col, value.replace(tzinfo=None), when)
    else:
        ws.write_string(row, col, escape_cell(str(value)), fmt)


def _money_format(book: Any, currency: str, cache: dict[str, Any], bold: bool = False) -> Any:
    """A number format that shows the currency (`1,234.50 "USD"`); a code that is not three
    letters is left out of it (inbox text never goes into a format string)."""
    code = currency if re.fullmatch(r"[A-Z]{3}", currency) else ""
    key = f"{code}|{bold}"
    if key not in cache:
        shown = f'#,##0.00 "{code}"' if code else "#,##0.00"
        cache[key] = book.add_format({"num_format": shown, "bold": bold})
    return cache[key]


# -- the summary: Markdown (Prefect), plain text (terminal), HTML (a page) ------------------
def _md(r: RunReport) -> list[str]:
    lines = [f"# {md_text(r.title)}", ""]
    lines += [f"> **{md_text(n.strip())}**" for n in r.notices] + ([""] if r.notices else [])
    lines += ["| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in r.count_rows()] + [""]
    lines += [f"**Dispute ratio:** {md_text(x)}  " for x in _ratio_lines(r)] + [""] * bool(
        _ratio_lines(r)
    )
    lines += ["## Changed since the last run", ""] + [f"- {md_text(x)}" for x in r.changes[:20]]
    if len(r.changes) > 20:
        lines.append(f"- … and {len(r.changes) - 20} more (see disputes.xlsx)")
    lines.append("")
    act, todo = r.needing_a_person(True)
    if not (act or todo):
        lines += ["Nothing needs your attention."]
    else:
        lines += ["## Needs your attention", "", *_md_problems(act, todo)]
    info, rest = r.needing_a_person(False)
    if info or rest:  # as the page and the terminal show them: apart, and not counted
        lines += ["", "## For your information (nothing to do, not counted)", ""]
        lines += _md_problems(info, rest)
    if r.outcomes is not None and not r.outcomes.empty:
        lines += [
            "",
            "## Outcomes",
            "",
            "| " + " | ".join(r.outcomes.columns) + " |",
            "|" + "---|" * len(r.outcomes.columns),
        ]
        lines += [
            "| " + " | ".join(md_text(v) for v in row) + " |"
            for row in r.outcomes.itertuples(index=False)
        ]
    lines += ["", "Details: disputes.xlsx (one row per dispute), problems.xlsx (what to fix)."]
    return lines


def _md_problems(top: list[Problem], groups: dict[ProblemKind, list[Problem]]) -> list[str]:
    lines = [f"- {md_text(HEADING[p.kind])}: {md_text(p.where)}: {md_text(p.what)}" for p in top]
    for kind, group in groups.items():
        lines.append(f"- **{md_text(HEADING[kind])}**: {len(group)} (see problems.xlsx)")
        lines += [f"  - {md_text(p.where)}: {md_text(p.what)}" for p in group[:5]]
    return lines


def summary_text(r: RunReport) -> str:
    """The summary as plain aligned text, for a terminal."""
    width = max(len(k) for k, _ in r.count_rows())
    lines = [*r.notices, *([""] if r.notices else []), r.title, "=" * min(len(r.title), 78), ""]
    lines += [f"  {k:<{width}}  {v}" for k, v in r.count_rows()] + [""]
    lines += [f"Dispute ratio: {one_line(x)}" for x in _ratio_lines(r)] + [""] * bool(
        _ratio_lines(r)
    )
    lines += ["Changed since the last run:"] + [f"  {one_line(x)}" for x in r.changes[:10]]
    if len(r.changes) > 10:
        lines.append(f"  … and {len(r.changes) - 10} more")
    lines.append("")
    lines += _text_disputes(r.disputes)
    act, todo = r.needing_a_person(True)
    if not (act or todo):
        lines.append("Nothing needs your attention.")
    else:
        lines.append("Needs your attention:")
        lines += [f"  ! {HEADING[p.kind]}: {one_line(p.where)}: {one_line(p.what)}" for p in act]
        lines += _text_groups(todo)
    info, rest = r.needing_a_person(False)
    if info or rest:  # as the page shows them: apart, and not counted
        lines.append("For your information (nothing to do, not counted):")
        lines += [f"  - {HEADING[p.kind]}: {one_line(p.where)}: {one_line(p.what)}" for p in info]
        lines += _text_groups(rest)
    return "\n".join(lines) + "\n"


def _ratio_lines(r: RunReport) -> list[str]:
    """A month (this or last) at watch or over on a network: said under the counts."""
    return list(r.standing.attention) if r.standing else []


def _text_groups(groups: dict[ProblemKind, list[Problem]]) -> list[str]:
    lines = []
    for kind, group in groups.items():
        lines.append(f"  {HEADING[kind]} ({len(group)}): {WHAT_TO_DO[kind]}")
        lines += [f"    - {one_line(p.where)}: {one_line(p.what)}" for p in group[:5]]
        if len(group) > 5:
            lines.append(f"    … {len(group) - 5} more in problems.xlsx")
    return lines


def _text_disputes(table: pd.DataFrame, limit: int = 20) -> list[str]:
    """Disputes nearest the deadline first: one aligned line each (the rest in the files)."""
    if table.empty or "state_words" not in table:
        return []
    lines = [f"Disputes ({len(table)}), nearest deadline first:"]
    lines += ["  " + line(Surface.TERMINAL, row) for row in table.head(limit).to_dict("records")]
    if len(table) > limit:
        lines.append(f"  … {len(table) - limit} more in disputes.xlsx")
    return [*lines, ""]


def private_folder(folder: Path) -> Path:
    """`folder` (and its missing parents) made readable by its owner only: reports name
    customers. An existing folder is tightened too."""
    if not folder.parent.is_dir():
        private_folder(folder.parent)
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    return folder


def _private_files(folder: Path) -> None:
    for path in folder.rglob("*"):
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)


def _write_text(path: Path, text: str) -> None:
    """The report files' door for text: a card number is covered whatever wrote it."""
    path.write_text(cover_text(text), encoding="utf-8")


def write_report(
    report: RunReport, folder: Path, more: Callable[[Path], None] | None = None
) -> Path:
    """Write every report file into `folder` and copy them to ../latest/; returns summary.md."""
    private_folder(folder)
    disputes = report.disputes
    books = disputes.get("history_book", pd.Series("", index=disputes.index)).fillna("")
    if not report.dry_run:  # one workbook per month wholly in the past, written once
        write_history_books(disputes.loc[books != ""], folder.parent / HISTORY)
    disputes = disputes.loc[books == ""]
    status = disputes.get("status")
    if status is not None and "needs_something" in disputes:  # yellow, as on the page
        status = status.where(~disputes["needs_something"].fillna(False).astype(bool), NEEDS)
    _write_table(disputes_frame(disputes), folder, "disputes", "Disputes", status)
    _write_table(problems_frame(report.problems), folder, "problems", "Problems")
    if report.outcomes is not None and not report.outcomes.empty:
        _write_table(report.outcomes, folder, "outcomes", "Outcomes")
    if more is not None:  # what another module writes (what wins), before latest/ is copied
        more(folder)
    _write_text(folder / "summary.md", "\n".join(_md(report)) + "\n")
    _write_text(folder / "summary.txt", summary_text(report))
    shown = (
        "disputes.xlsx",
        "problems.xlsx",
        "outcomes.xlsx",
        "standing.xlsx",
        "file_matches.csv",
        "ce3_fraud_disputes.csv",
        "payloads/",
    )
    links = [n for n in shown if (folder / n).exists()]  # a dry run's preview too
    # the page: every value it prints went through its own door (reports/page.py _shown)
    (folder / "summary.html").write_text(render_page(report, folder, links), encoding="utf-8")
    _private_files(folder)
    if not report.dry_run:
        _copy_latest(folder)
    return folder / "summary.md"


def _link_or_copy(source: str, target: str) -> None:
    """A hard link to `source` (a report's files are written once, never changed in place)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # another filesystem, or links not allowed: a copy
        shutil.copy2(source, target, follow_symlinks=False)


HISTORY = "history"  # <reports>/history/disputes-ended-YYYY-MM.xlsx


def write_history_books(rows: pd.DataFrame, folder: Path) -> list[Path]:
    """The rows of disputes that ended in a month now wholly past, one workbook per month,
    written when missing (such rows no longer change; engine/reporting/history.py)."""
    made: list[Path] = []
    if rows.empty:
        return made
    for month, group in rows.groupby("history_book", sort=True):
        target = folder / f"disputes-ended-{month}.xlsx"
        if target.exists():
            continue
        private_folder(folder)
        _write_table(disputes_frame(group), folder, f".{target.stem}.partial", "Disputes")
        (folder / f".{target.stem}.partial.csv").unlink(missing_ok=True)
        (folder / f".{target.stem}.partial.xlsx").replace(target)
        target.chmod(0o600)
        made.append(target)
    return made


def _copy_latest(folder: Path) -> None:
    """<reports>/latest/ holds the newest real run's report: its files hard-linked (the same
    bytes, no second copy of every PDF each night; no symbolic link to follow), else copied."""
    latest = folder.parent / "latest"
    tmp = folder.parent / ".latest.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(folder, tmp, copy_function=_link_or_copy)
    (tmp / "run.txt").write_text(folder.name + "\n", encoding="utf-8")
    (tmp / "run.txt").chmod(0o600)
    if latest.is_symlink() or latest.is_file():
        latest.unlink()
    shutil.rmtree(latest, ignore_errors=True)
    tmp.chmod(0o700)
    tmp.rename(latest)
