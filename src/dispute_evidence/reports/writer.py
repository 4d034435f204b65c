"""Write reports/<run-id>/: summary.md, summary.html, disputes.csv/.xlsx, problems.csv/.xlsx."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from dispute_evidence.names import visible
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports.wording import HEADING, RUN_LEVEL, WHAT_TO_DO

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

STATUS_WORDS = {
    "submitted": "sent",
    "pending": "not sent yet (will retry)",
    "incomplete": "waiting for data",
    "rejected": "refused by the API",
    "not_found": "unknown to the API",
    "past_due": "past its deadline, not sent",
}


# Enough to stop links, images, HTML, code spans, tables and emphasis mid-line; every item
# starts with "- ", so block markers (#, +, -, 1.) never begin the escaped text.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>!|~])")


def md_text(value: Any) -> str:
    """Inbox text (file names, cell values) made inert in Markdown: no links, images or markup,
    one line. The Prefect UI renders the summary; a cell must never make it fetch a URL."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(visible(str(value)).split()))


def escape_cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula gets a leading apostrophe."""
    if not isinstance(value, str):
        return value
    value = visible(value)  # a control character in a name must not reach the sheet as it is
    return "'" + value if value.startswith(FORMULA_START) else value


@dataclass
class RunReport:
    run_id: str
    outcome: str
    dry_run: bool
    counts: dict[str, int]
    disputes: pd.DataFrame  # one row per dispute
    problems: list[Problem] = field(default_factory=list)


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


def _escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(object).where(frame.notna(), "").map(escape_cell)


def _write_table(frame: pd.DataFrame, folder: Path, stem: str, sheet: str) -> None:
    safe = _escape_frame(frame)
    safe.to_csv(folder / f"{stem}.csv", index=False)
    with pd.ExcelWriter(
        folder / f"{stem}.xlsx",
        engine="xlsxwriter",
        engine_kwargs={"options": {"strings_to_formulas": False, "strings_to_urls": False}},
    ) as xl:
        safe.to_excel(xl, sheet_name=sheet, index=False)
        ws = xl.sheets[sheet]
        ws.freeze_panes(1, 0)
        ws.autofilter(0, 0, max(len(safe), 1), max(len(safe.columns) - 1, 0))
        for i, col in enumerate(safe.columns):
            width = min(60, max(len(str(col)), *(len(str(v)) for v in safe[col].head(500)), 8) + 2)
            ws.set_column(i, i, width)


def _summary_lines(r: RunReport) -> list[str]:
    c = r.counts
    title = "Dry run (nothing was sent)" if r.dry_run else f"Run {r.run_id}: {r.outcome}"
    lines = [f"# {title}", ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| Disputes sent (evidence) | {c.get('evidence_sent', 0)} |",
        f"| Files uploaded | {c.get('files_uploaded', 0)} |",
        f"| Disputes complete so far | {c.get('complete', 0)} of {c.get('disputes', 0)} |",
        f"| New files read | {c.get('new_files', 0)} (already seen: {c.get('repeated_files', 0)}) |",
        f"| Rows rejected | {c.get('rows_rejected', 0)} |",
        f"| API requests | {c.get('requests', 0)} |",
        "",
    ]
    if not r.problems:
        lines += ["Nothing needs your attention."]
    else:
        lines += ["## Needs your attention", ""]
        top = [p for p in r.problems if p.kind in RUN_LEVEL]
        lines += [
            f"- {md_text(HEADING[p.kind])}: {md_text(p.where)}: {md_text(p.what)}" for p in top
        ]
        groups: dict[ProblemKind, list[Problem]] = {}
        for p in r.problems:
            if p.kind not in RUN_LEVEL:
                groups.setdefault(p.kind, []).append(p)
        for kind, group in groups.items():
            lines.append(f"- **{md_text(HEADING[kind])}**: {len(group)} (see problems.xlsx)")
            lines += [f"  - {md_text(p.where)}: {md_text(p.what)}" for p in group[:5]]
    lines += ["", "Details: disputes.xlsx (one row per dispute), problems.xlsx (what to fix)."]
    return lines


def md_plain(text: str) -> str:
    """Undo md_text's backslashes: for the HTML page (html.escape does the work there) and
    the terminal."""
    return re.sub(r"\\(.)", r"\1", text)


def _html(lines: list[str]) -> str:
    body = []
    in_table = False
    for line in lines:
        if line.startswith("|"):
            cells = [html.escape(x.strip()) for x in line.strip("|").split("|")]
            if set("".join(cells)) <= {"-"}:
                continue
            if not in_table:
                body.append("<table>")
                in_table = True
            body.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.lstrip().startswith("- "):
            text = md_plain(html.escape(line.lstrip()[2:]).replace("**", ""))
            body.append(
                f"<li style='margin-left:{(len(line) - len(line.lstrip())) * 10}px'>{text}</li>"
            )
        elif line:
            body.append(f"<p>{html.escape(line)}</p>")
    style = "body{font-family:sans-serif;max-width:60em;margin:2em auto}td{padding:2px 12px;border-bottom:1px solid #ddd}"
    return (
        f"<!doctype html><meta charset='utf-8'><title>dispute-evidence report</title><style>{style}</style>"
        + "\n".join(body)
    )


def write_report(report: RunReport, folder: Path) -> Path:
    """Write every report file into `folder`; returns the summary's path."""
    folder.mkdir(parents=True, exist_ok=True)
    disputes = report.disputes.copy()
    if "status" in disputes:
        disputes.insert(
            disputes.columns.get_loc("status") + 1,
            "in plain words",
            disputes["status"].map(STATUS_WORDS).fillna(disputes["status"]),
        )
    _write_table(disputes, folder, "disputes", "Disputes")
    _write_table(problems_frame(report.problems), folder, "problems", "Problems")
    lines = _summary_lines(report)
    (folder / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "summary.html").write_text(_html(lines), encoding="utf-8")
    return folder / "summary.md"
