"""Write reports/<run-id>/: summary.md (Prefect artifact), summary.txt (terminal), summary.html
(one self-contained page), disputes.csv/.xlsx and problems.csv/.xlsx; and a copy of the
newest report in <reports>/latest/.

Every text that came from the inbox is made inert for where it goes: Markdown-escaped, HTML-
escaped, or, in CSV/XLSX, prefixed with an apostrophe when a spreadsheet would run it."""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from dispute_evidence.names import visible
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports.wording import HEADING, RUN_LEVEL, WHAT_TO_DO

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MAX_HTML_ROWS = 2000  # the page stays light; disputes.xlsx has every row

# Enough to stop links, images, HTML, code spans, tables and emphasis mid-line; every item
# starts with "- ", so block markers (#, +, -, 1.) never begin the escaped text.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>!|~])")

# disputes.xlsx: what an analyst works from first, internal columns last.
DISPUTE_COLUMNS = {
    "provider_dispute_id": "Dispute",
    "order_number": "Order",
    "amount": "Amount",
    "currency": "Currency",
    "reason": "Reason",
    "response_due_by": "Deadline (UTC)",
    "days_left": "Days left",
    "status_words": "Status",
    "next_step": "Next step",
    "completeness": "Evidence (by reason)",
    "what_to_add": "What to add",
    "advice": "Fight or accept",
    "visa_ce3": "Visa CE 3.0",
    "letter": "Rebuttal letter",
    "files_uploaded": "Files uploaded",
    "files_total": "Files matched",
    "file_problems": "File problems",
    "summary_pdf": "Summary PDF (current)",
    "detail": "Detail",
    "status": "status (code)",
    "dispute_id": "API dispute id",
    "attempts": "attempts",
    "last_error": "last error",
    "updated_at": "updated at (UTC)",
}
# Fill colours by status code (Excel and HTML).
STATUS_COLOURS = {
    "submitted": "#C6EFCE",
    "pending": "#FFEB9C",
    "incomplete": "#FFEB9C",
    "rejected": "#FFC7CE",
    "not_found": "#FFC7CE",
    "past_due": "#D9D9D9",
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


@dataclass
class RunReport:
    run_id: str
    outcome: str  # the headline: "5 sent · 3 need you"
    dry_run: bool
    counts: dict[str, int]
    disputes: pd.DataFrame  # one row per dispute (engine.steps.dispute_table)
    problems: list[Problem] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # since the last report
    outcomes: pd.DataFrame | None = None  # win rates (engine.outcomes.outcomes_table)

    @property
    def title(self) -> str:
        return f"Dry run (nothing sent): {self.outcome}" if self.dry_run else self.outcome

    def count_rows(self) -> list[tuple[str, str]]:
        c = self.counts
        rows = []
        if self.dry_run:
            rows += [
                ("Disputes that would be sent", str(c.get("would_send", 0))),
                ("Files that would be uploaded", str(c.get("would_upload", 0))),
            ]
        else:
            rows += [
                ("Disputes sent (evidence)", str(c.get("evidence_sent", 0))),
                ("Files uploaded", str(c.get("files_uploaded", 0))),
            ]
        return rows + [
            ("Disputes complete so far", f"{c.get('complete', 0)} of {c.get('disputes', 0)}"),
            ("Problems that need you", str(c.get("need_you", 0))),
            (
                "New files read",
                f"{c.get('new_files', 0)} (already seen: {c.get('repeated_files', 0)})",
            ),
            ("Rows rejected (new files)", str(c.get("rows_rejected", 0))),
            ("API requests", str(c.get("requests", 0))),
        ]

    def top_problems(self) -> list[Problem]:
        return [p for p in self.problems if p.kind in RUN_LEVEL]

    def grouped_problems(self) -> dict[ProblemKind, list[Problem]]:
        groups: dict[ProblemKind, list[Problem]] = {}
        for p in self.problems:
            if p.kind not in RUN_LEVEL:
                groups.setdefault(p.kind, []).append(p)
        return groups


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
    """The dispute table as the analyst reads it: named columns in working order, real dates."""
    out = pd.DataFrame(index=table.index)
    for col, title in DISPUTE_COLUMNS.items():
        if col in table:
            out[title] = table[col]
    deadline = DISPUTE_COLUMNS["response_due_by"]
    if deadline in out:
        out[deadline] = pd.to_datetime(out[deadline], utc=True, errors="coerce").dt.tz_localize(
            None
        )
    return out.reset_index(drop=True)


def _escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(object).where(frame.notna(), "").map(escape_cell)


def _write_table(
    frame: pd.DataFrame, folder: Path, stem: str, sheet: str, status: pd.Series | None = None
) -> None:
    safe = _escape_frame(frame)
    safe.to_csv(folder / f"{stem}.csv", index=False)
    with pd.ExcelWriter(
        folder / f"{stem}.xlsx",
        engine="xlsxwriter",
        datetime_format="yyyy-mm-dd hh:mm",
        engine_kwargs={"options": {"strings_to_formulas": False, "strings_to_urls": False}},
    ) as xl:
        safe.to_excel(xl, sheet_name=sheet, index=False)
        book, ws = xl.book, xl.sheets[sheet]
        header = book.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        for i, col in enumerate(safe.columns):
            ws.write(0, i, col, header)
            values = [len(str(v)) for v in safe[col].head(500)]
            ws.set_column(i, i, min(60, max(len(str(col)), *values, 8) + 2))
        ws.freeze_panes(1, 0)
        ws.autofilter(0, 0, max(len(safe), 1), max(len(safe.columns) - 1, 0))
        ws.set_landscape()
        ws.fit_to_pages(1, 0)  # one page wide, as many tall as it takes
        ws.repeat_rows(0)
        if status is not None and "Status" in safe.columns:
            col = list(safe.columns).index("Status")
            for row, code in enumerate(status.tolist(), start=1):
                if colour := STATUS_COLOURS.get(str(code)):
                    ws.write(
                        row, col, safe.iat[row - 1, col], book.add_format({"bg_color": colour})
                    )


# -- the summary: Markdown (Prefect), plain text (terminal), HTML (a page) ------------------
def _md(r: RunReport) -> list[str]:
    lines = [f"# {md_text(r.title)}", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in r.count_rows()] + [""]
    lines += ["## Changed since the last run", ""] + [f"- {md_text(x)}" for x in r.changes[:20]]
    if len(r.changes) > 20:
        lines.append(f"- … and {len(r.changes) - 20} more (see disputes.xlsx)")
    lines.append("")
    if not r.problems:
        lines += ["Nothing needs your attention."]
    else:
        lines += ["## Needs your attention", ""]
        lines += [
            f"- {md_text(HEADING[p.kind])}: {md_text(p.where)}: {md_text(p.what)}"
            for p in r.top_problems()
        ]
        for kind, group in r.grouped_problems().items():
            lines.append(f"- **{md_text(HEADING[kind])}**: {len(group)} (see problems.xlsx)")
            lines += [f"  - {md_text(p.where)}: {md_text(p.what)}" for p in group[:5]]
    if r.outcomes is not None and not r.outcomes.empty:
        lines += ["", "## Outcomes", "", "| " + " | ".join(r.outcomes.columns) + " |",
                  "|" + "---|" * len(r.outcomes.columns)]  # fmt: skip
        lines += [
            "| " + " | ".join(md_text(v) for v in row) + " |"
            for row in r.outcomes.itertuples(index=False)
        ]
    lines += ["", "Details: disputes.xlsx (one row per dispute), problems.xlsx (what to fix)."]
    return lines


def summary_text(r: RunReport) -> str:
    """The summary as plain aligned text, for a terminal."""
    width = max(len(k) for k, _ in r.count_rows())
    lines = [r.title, "=" * min(len(r.title), 78), ""]
    lines += [f"  {k:<{width}}  {v}" for k, v in r.count_rows()] + [""]
    lines += ["Changed since the last run:"] + [f"  {one_line(x)}" for x in r.changes[:10]]
    if len(r.changes) > 10:
        lines.append(f"  … and {len(r.changes) - 10} more")
    lines.append("")
    lines += _text_disputes(r.disputes)
    if not r.problems:
        lines.append("Nothing needs your attention.")
    else:
        lines.append("Needs your attention:")
        lines += [
            f"  ! {HEADING[p.kind]}: {one_line(p.where)}: {one_line(p.what)}"
            for p in r.top_problems()
        ]
        for kind, group in r.grouped_problems().items():
            lines.append(f"  {HEADING[kind]} ({len(group)}): {WHAT_TO_DO[kind]}")
            lines += [f"    - {one_line(p.where)}: {one_line(p.what)}" for p in group[:5]]
            if len(group) > 5:
                lines.append(f"    … {len(group) - 5} more in problems.xlsx")
    return "\n".join(lines) + "\n"


def _text_disputes(table: pd.DataFrame, limit: int = 20) -> list[str]:
    """Disputes nearest the deadline first: one aligned line each (the rest in the files)."""
    if table.empty or "status_words" not in table:
        return []
    lines = [f"Disputes ({len(table)}), nearest deadline first:"]
    for row in table.head(limit).to_dict("records"):
        days = row.get("days_left")
        if days is None or days != days:
            due = "no deadline"
        else:
            due = f"{int(days):>4} days left" if days >= 0 else "past due"
        evidence = row.get("completeness") or ""
        lines.append(
            f"  {one_line(row['provider_dispute_id']):<30} {due:<15} "
            f"{one_line(row['status_words']):<28} evidence: {one_line(evidence)}"
        )
    if len(table) > limit:
        lines.append(f"  … {len(table) - limit} more in disputes.xlsx")
    return [*lines, ""]


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#222;max-width:110em;margin:1.5em auto;padding:0 1em}
h1{font-size:1.5em;margin:.2em 0 .6em}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}
table{border-collapse:collapse}.disputes{font-size:12.5px}.scroll{overflow-x:auto}td,th{padding:3px 10px;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
th{background:#DDEBF7;position:sticky;top:0}.counts td:first-child{color:#555}
.num{text-align:right;font-variant-numeric:tabular-nums}.late{color:#b00;font-weight:600}
.todo{color:#555;font-style:italic}.nowrap{white-space:nowrap}.wide{min-width:12em}.group{margin:.8em 0}.group b{display:block}
.banner{padding:.6em 1em;border-radius:4px;margin-bottom:1em}.ok{background:#C6EFCE}.need{background:#FFEB9C}
small{color:#666}
""".strip()


def _e(value: Any) -> str:
    return html.escape(one_line("" if value is None or value != value else value))


def _html(r: RunReport) -> str:
    need = r.counts.get("need_you", 0)
    out = [
        "<!doctype html><html lang='en'><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width'>",
        f"<title>{_e(r.title)}</title><style>{_CSS}</style><body>",
        f"<h1>{_e(r.title)}</h1>",
        f"<div class='banner {'need' if need else 'ok'}'>"
        + (
            f"{need} problem(s) need you: see “Needs your attention” below."
            if need
            else "Nothing needs your attention."
        )
        + "</div>",
        "<table class='counts'>",
        *(f"<tr><td>{_e(k)}</td><td class='num'>{_e(v)}</td></tr>" for k, v in r.count_rows()),
        "</table>",
        "<h2>Changed since the last run</h2><ul>",
        *(f"<li>{_e(x)}</li>" for x in r.changes[:50]),
        "</ul>",
    ]
    if r.problems:
        out.append("<h2>Needs your attention</h2>")
        out += [
            f"<p><b>{_e(HEADING[p.kind])}</b>: {_e(p.where)}: {_e(p.what)}</p>"
            for p in r.top_problems()
        ]
        for kind, group in r.grouped_problems().items():
            out.append(
                f"<div class='group'><b>{_e(HEADING[kind])} ({len(group)})</b>"
                f"<span class='todo'>{_e(WHAT_TO_DO[kind])}</span><ul>"
            )
            out += [f"<li>{_e(p.where)}: {_e(p.what)}</li>" for p in group[:20]]
            if len(group) > 20:
                out.append(f"<li>… {len(group) - 20} more in problems.xlsx</li>")
            out.append("</ul></div>")
    out += _html_disputes(r.disputes)
    out += _html_outcomes(r.outcomes)
    out.append(
        f"<p><small>Run {_e(r.run_id)}. Details: disputes.xlsx (one row per dispute), "
        "problems.xlsx (what to fix).</small></p></body></html>"
    )
    return "\n".join(out)


def _html_outcomes(table: pd.DataFrame | None) -> list[str]:
    if table is None or table.empty:
        return []
    out = [
        "<h2>Outcomes (statuses read back from the API)</h2>",
        "<table class='outcomes'><tr>",
        *(f"<th>{_e(c)}</th>" for c in table.columns),
        "</tr>",
    ]
    for row in table.itertuples(index=False):
        cells = "".join(
            f"<td class='num'>{_e(v)}</td>" if i >= 2 else f"<td>{_e(v)}</td>"
            for i, v in enumerate(row)
        )
        out.append(f"<tr>{cells}</tr>")
    return [*out, "</table>"]


def _html_disputes(table: pd.DataFrame) -> list[str]:
    if table.empty:
        return ["<h2>Disputes</h2><p>No disputes known yet.</p>"]
    cols = [
        ("provider_dispute_id", "Dispute"),
        ("order_number", "Order"),
        ("reason", "Reason"),
        ("response_due_by", "Deadline (UTC)"),
        ("days_left", "Days left"),
        ("status_words", "Status"),
        ("next_step", "Next step"),
        ("completeness", "Evidence (by reason)"),
        ("what_to_add", "What to add"),
        ("files_uploaded", "Files uploaded"),
        ("file_problems", "File problems"),
    ]
    cols = [(c, t) for c, t in cols if c in table]
    out = [
        f"<h2>Disputes ({len(table)}), nearest deadline first</h2>",
        "<div class='scroll'><table class='disputes'><tr>",
        *(f"<th>{t}</th>" for _, t in cols),
        "</tr>",
    ]
    for row in table.head(MAX_HTML_ROWS).to_dict("records"):
        cells = []
        for c, _ in cols:
            v = row.get(c)
            if c == "status_words":
                colour = STATUS_COLOURS.get(str(row.get("status")), "#fff")
                cells.append(f"<td style='background:{colour}'>{_e(v)}</td>")
            elif c == "days_left":
                late = v is not None and v == v and int(v) < 3
                cls = "num late" if late else "num"
                cells.append(f"<td class='{cls}'>{'' if v is None or v != v else int(v)}</td>")
            elif c == "files_uploaded":
                cells.append(f"<td class='num nowrap'>{_e(v)} of {_e(row.get('files_total'))}</td>")
            elif c == "response_due_by":
                cells.append(f"<td class='nowrap'>{_e(str(v or '')[:16].replace('T', ' '))}</td>")
            elif c in ("next_step", "file_problems", "what_to_add"):
                cells.append(f"<td class='wide'>{_e(v)}</td>")
            else:
                cells.append(f"<td>{_e(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    if len(table) > MAX_HTML_ROWS:
        out.append(
            f"<tr><td colspan='{len(cols)}'>… and {len(table) - MAX_HTML_ROWS:,} more "
            "(later deadlines) in disputes.xlsx</td></tr>"
        )
    return [*out, "</table></div>"]


def write_report(report: RunReport, folder: Path) -> Path:
    """Write every report file into `folder` and copy them to ../latest/; returns summary.md."""
    folder.mkdir(parents=True, exist_ok=True)
    disputes = report.disputes
    status = disputes.get("status")
    _write_table(disputes_frame(disputes), folder, "disputes", "Disputes", status)
    _write_table(problems_frame(report.problems), folder, "problems", "Problems")
    if report.outcomes is not None and not report.outcomes.empty:
        _write_table(report.outcomes, folder, "outcomes", "Outcomes")
    (folder / "summary.md").write_text("\n".join(_md(report)) + "\n", encoding="utf-8")
    (folder / "summary.txt").write_text(summary_text(report), encoding="utf-8")
    (folder / "summary.html").write_text(_html(report), encoding="utf-8")
    if not report.dry_run:
        _copy_latest(folder)
    return folder / "summary.md"


def _copy_latest(folder: Path) -> None:
    """<reports>/latest/ holds the newest real run's report (a plain copy: no links to follow)."""
    latest = folder.parent / "latest"
    tmp = folder.parent / ".latest.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(folder, tmp)
    (tmp / "run.txt").write_text(folder.name + "\n", encoding="utf-8")
    if latest.is_symlink() or latest.is_file():
        latest.unlink()
    shutil.rmtree(latest, ignore_errors=True)
    tmp.rename(latest)
