"""summary.html: the one page an analyst works from, rendered from templates/summary.html.j2
with autoescaping on (every inbox text reaches the page as text, never as markup).

Money at risk first, then every dispute nearest deadline first (cards on a phone), what needs
a person, information apart (not counted), and a detail section per dispute whose summary PDF
is copied into the report's pdf/ folder. The table's and the sections' columns come from
reports/columns.py: a new column is one entry there."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from dispute_evidence.cardnumbers import cover_text
from dispute_evidence.problems import Problem
from dispute_evidence.reports.columns import Column, Surface, columns, words
from dispute_evidence.reports.money import (
    BUCKETS,
    money,
    money_bucket,
    text,
)
from dispute_evidence.reports.rows import records
from dispute_evidence.reports.wording import HEADING, NEEDS_A_PERSON, WHAT_TO_DO
from dispute_evidence.standing.win_rates import TOO_FEW

if TYPE_CHECKING:
    from dispute_evidence.reports.run_report import RunReport

MAX_HTML_ROWS = 2000  # the page stays light; disputes.xlsx has every row


def _shown(value: Any) -> Any:
    """The page's door for text: every value the template prints has its card numbers
    covered (markup we built is looked at as text too; covering keeps its tags)."""
    if isinstance(value, str):
        shown = cover_text(value)
        return value if shown is value else Markup(shown) if isinstance(value, Markup) else shown
    return value


_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    finalize=_shown,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


# -- the dispute table: its columns come from the one registry (reports/columns.py) ----------
def page_columns(table: pd.DataFrame) -> list[Column]:
    """The page table's columns this table can fill (a derived column needs its source)."""
    return [c for c in columns(Surface.PAGE) if c.shows_in(table)]


def cell(column: Column, row: dict[str, Any]) -> str:
    return words(column, row)


# -- per dispute -----------------------------------------------------------------------------
@dataclass
class DisputeView:
    pid: str
    anchor: str
    state: str  # the money bucket (the filter)
    cells: list[str]
    facts: list[tuple[str, str]]
    files: list[tuple[str, str]]  # (name, status), the linked PDF's own file row left out
    todo: list[tuple[str, str]]  # (what is wrong, what to do)
    pdf: str = ""  # pdf/<name>, relative to the page
    pdf_label: str = ""  # what the linked PDF is: the packet, or (no packet) the summary
    pdf_status: str = ""  # the linked PDF's file row, when it is one: "uploaded · <its name>"
    late: bool = False
    needs: bool = False  # open, and its evidence still lacks something (coloured as such)
    cells_html: Markup = Markup()  # the table row's cells, escaped (see _cells_html)
    facts_html: Markup = Markup()  # the section's <dt>/<dd> pairs, escaped


def _anchor(pid: str, taken: set[str]) -> str:
    base = "d-" + (re.sub(r"[^A-Za-z0-9_-]", "_", pid)[:80] or "dispute")
    anchor, n = base, 1
    while anchor in taken:
        n += 1
        anchor = f"{base}-{n}"
    taken.add(anchor)
    return anchor


def _safe_file_name(name: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:120]
    return clean if clean.endswith(".pdf") else clean + ".pdf"


@dataclass
class _Inputs:
    files: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # +blob
    paths: dict[tuple[str, str], str] = field(default_factory=dict)  # (pid, name) -> blob
    todo: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, files: pd.DataFrame | None, problems: list[Problem], shown: set[str]) -> _Inputs:
        """The files and problems of the disputes the page shows."""
        out = cls()
        if files is not None and not files.empty:
            files = files.loc[files["provider_dispute_id"].astype(str).isin(shown)]
            for f in records(files):
                pid, name = str(f["provider_dispute_id"]), str(f["file_name"])
                blob = str(f.get("path") or "")
                out.files.setdefault(pid, []).append((text(name), _file_status(f), blob))
                out.paths[pid, name] = blob
        for p in problems:
            if p.dispute in shown:
                out.todo.setdefault(p.dispute, []).append((text(p.what), WHAT_TO_DO[p.kind]))
        return out


def _file_status(f: dict[str, Any]) -> str:
    """'uploaded · matched by name' / '… · matched by content: names order 5003'."""
    matched = f.get("matched")
    how = f" · matched by {text(matched)}" if isinstance(matched, str) and matched else ""
    return text(f.get("status")) + how


def _copy_pdf(blob: str, folder: Path, name: str) -> str:
    """The summary PDF copied beside the page (pdf/<name>); '' when its blob is gone."""
    source = Path(blob) if blob else None
    if source is None or source.is_symlink() or not source.is_file():
        return ""
    target = folder / "pdf" / _safe_file_name(name)
    target.parent.mkdir(exist_ok=True)
    try:  # a hard link: the same bytes, without copying every open dispute's PDF each night
        os.link(source, target)
    except OSError:  # another filesystem, or links not allowed: a copy
        shutil.copyfile(source, target)
    return f"pdf/{target.name}"


class _Linked(NamedTuple):
    link: str  # pdf/<name> beside the page ('' when none)
    label: str
    blob: str | None  # the stored copy linked: the file row kept there is the same PDF


PACKET_LABEL = "What the reviewer sees (letter, data sheet, documents)"
SUMMARY_LABEL = "Evidence summary (letter and data sheet)"


def _linked_pdf(row: dict[str, Any], inputs: _Inputs, folder: Path) -> _Linked:
    """The PDF the dispute's section links: its packet, else (a state from before packets)
    its summary PDF. In packet mode the packet is also the file uploaded, and a summary is
    always one of the dispute's files: that row is named beside the link, not listed again."""
    pid, packet = str(row.get("provider_dispute_id")), str(row.get("packet_path") or "")
    if link := _copy_pdf(packet, folder, f"{pid}-packet.pdf"):
        return _Linked(link, PACKET_LABEL, packet)
    summary = str(row.get("summary_pdf") or "")
    blob = inputs.paths.get((pid, summary), "") if summary else ""
    if link := _copy_pdf(blob, folder, summary):
        return _Linked(link, SUMMARY_LABEL, blob)
    return _Linked("", "", None)  # no PDF linked: every file row stays listed


class _Cells(NamedTuple):
    """Each page column's opening <td> (its class and card label), made once per page: the
    table's cells are the page's largest part, and a template expression per cell attribute
    cost more than the rest of the page (issue 32's season: ~400 open disputes a night)."""

    opens: list[str]
    late_opens: list[str]  # the same, with the 'late' class on the days-left cell
    shapes: list[str]  # how a cell's words may break: "code", "words" or "" (see _value)

    @classmethod
    def of(cls, shown: list[Column]) -> _Cells:
        def td(c: Column, late: bool) -> str:
            css = f"{c.css}{' card' if c.card else ''}{' late' if late else ''}"
            return f'<td class="{escape(css)}" data-label="{escape(c.title_on(Surface.PAGE))}">'

        return cls(
            [td(c, False) for c in shown],
            [td(c, c.key == "days_left") for c in shown],
            [_shape(c) for c in shown],
        )

    def html(self, values: list[str], anchor: str, late: bool) -> Markup:
        """The row's cells, every value escaped; the first links to the dispute's section."""
        opens = self.late_opens if late else self.opens
        first = f'{opens[0]}<a href="#{escape(anchor)}">{escape(values[0])}</a></td>'
        rest = [
            f"{o}{_value(v, shape)}</td>"
            for o, v, shape in zip(opens[1:], values[1:], self.shapes[1:], strict=True)
        ]
        return Markup("\n".join([first, *rest]))


def _shape(column: Column) -> str:
    return next((s for s in ("code", "words") if s in column.css.split()), "")


def _value(value: str, shape: str) -> str:
    """A cell's words, escaped, breaking where a narrow column may: a code (product_not_received)
    after an underscore, a deadline only between its date and its time (never "2025-10-")."""
    if shape == "code":
        return str(escape(value)).replace("_", "_<wbr>")
    if shape == "words":
        return " ".join(f'<span class="nowrap">{escape(w)}</span>' for w in value.split(" "))
    return str(escape(value))


def _facts_html(facts: list[tuple[str, str]]) -> Markup:
    return Markup("".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts))


def dispute_views(
    table: pd.DataFrame, inputs: _Inputs, shown: list[Column], folder: Path
) -> list[DisputeView]:
    taken: set[str] = set()
    views, _facts, tds = [], columns(Surface.FACTS), _Cells.of(shown)
    for row in records(table):
        pid = str(row.get("provider_dispute_id"))
        days = row.get("days_left")
        linked, files = _linked_pdf(row, inputs, folder), inputs.files.get(pid, [])
        anchor, cells = _anchor(pid, taken), [cell(c, row) for c in shown]
        facts = [(c.title_on(Surface.FACTS), v) for c in _facts if (v := words(c, row))]
        late = days is not None and days == days and int(days) < 3
        views.append(
            DisputeView(
                pid=pid,
                anchor=anchor,
                state=money_bucket(row.get("status"), row.get("api_status"), days),
                cells=cells,
                facts=facts,
                files=[(n, s) for n, s, blob in files if blob != linked.blob],
                todo=inputs.todo.get(pid, []),
                pdf=linked.link,
                pdf_label=linked.label,
                pdf_status=next((f"{s} · {n}" for n, s, b in files if b == linked.blob), ""),
                late=late,
                needs=bool(row.get("needs_something")),
                cells_html=tds.html(cells, anchor, late),
                facts_html=_facts_html(facts),
            )
        )
    return views


# -- problems: what needs a person, and information ------------------------------------------
@dataclass
class Group:
    heading: str
    todo: str
    items: list[tuple[str, str]]  # (where: what, the dispute's anchor or '')
    more: int


def problem_groups(
    problems: list[Problem], anchors: dict[str, str], *, action: bool
) -> list[Group]:
    """Problems grouped by kind: those a person acts on (action=True), or the others; each
    linked to its dispute's section when it has one."""
    kinds: dict[Any, list[Problem]] = {}
    for p in problems:
        if (p.kind in NEEDS_A_PERSON) == action:
            kinds.setdefault(p.kind, []).append(p)
    return [
        Group(
            HEADING[k],
            WHAT_TO_DO[k],
            [(f"{text(p.where)}: {text(p.what)}", anchors.get(p.dispute, "")) for p in group[:20]],
            max(len(group) - 20, 0),
        )
        for k, group in kinds.items()
    ]


def history_summary(old: pd.DataFrame) -> str:
    """One line for the disputes that ended long ago: how many, and how they ended."""
    if old.empty:
        return ""
    ends = old["api_status"].fillna("").replace("", pd.NA).fillna(old["status_words"])
    counted = ", ".join(f"{text(k)} {n:,}" for k, n in ends.value_counts().items())
    return (
        f"{len(old):,} dispute(s) that ended over two weeks ago ({counted}) are not listed "
        "here: disputes.xlsx and history/disputes-ended-YYYY-MM.xlsx in the reports folder "
        "hold every row."
    )


def render_page(report: RunReport, folder: Path, links: list[str]) -> str:
    """The page's HTML; copies the shown disputes' summary PDFs into folder/pdf/."""
    table = report.disputes
    shown_columns = page_columns(table)
    ended = table.get("ended_month", pd.Series("", index=table.index)).fillna("") != ""
    current = table.loc[~ended]  # disputes that ended long ago are counted, not listed
    shown = current.head(MAX_HTML_ROWS)
    pids = set(shown["provider_dispute_id"].astype(str)) if not shown.empty else set()
    inputs = _Inputs.of(report.files, report.problems, pids)
    views = dispute_views(shown, inputs, shown_columns, folder) if not shown.empty else []
    anchors = {v.pid: v.anchor for v in views}
    states = [(b, sum(1 for v in views if v.state == b)) for b in BUCKETS]
    outcomes = report.outcomes if report.outcomes is not None else pd.DataFrame()
    return _TEMPLATES.get_template("summary.html.j2").render(
        r=report,
        title=text(report.title),
        counts=[(k, text(v)) for k, v in report.count_rows()],
        money=money(table),
        columns=shown_columns,
        page=Surface.PAGE,
        disputes=views,
        total=len(current),
        hidden_rows=max(len(current) - MAX_HTML_ROWS, 0),
        history=history_summary(table.loc[ended]),
        states=[(b, n) for b, n in states if n],
        need=problem_groups(report.problems, anchors, action=True),
        info=problem_groups(report.problems, anchors, action=False),
        changes=[text(c) for c in report.changes[:50]],
        outcome_columns=[text(c) for c in outcomes.columns],
        outcome_rows=[[text(v) for v in row] for row in outcomes.itertuples(index=False)],
        wins_titles=WINS_TITLES,
        wins_rows=[[text(v) for v in row] for row in wins_page_rows(report.wins)],
        links=links,
    )


WINS_PAGE_ROWS = 12  # the page shows the best-supported rows; wins.csv has every one
WINS_TITLES = [
    "reason",
    "point or exhibit",
    "with it: won / decided, rate (95%)",
    "without it: won / decided, rate (95%)",
]


def wins_page_rows(wins: pd.DataFrame | None) -> list[list[str]]:
    """The page's compact *What wins*: rows where a rate is shown (enough outcomes with or
    without the point), most outcomes with the point first, WINS_PAGE_ROWS at most."""
    if wins is None or wins.empty:
        return []
    rated = wins.loc[
        ~(
            wins["with: win rate (95% interval)"].astype(str).str.startswith(TOO_FEW)
            & wins["without: win rate (95% interval)"].astype(str).str.startswith(TOO_FEW)
        )
    ]
    decided = rated["with: won"] + rated["with: lost"]
    top = (
        rated.assign(_n=decided)
        .sort_values("_n", ascending=False, kind="stable")
        .head(WINS_PAGE_ROWS)
    )
    return [
        [
            str(r.iloc[0]),
            str(r.iloc[1]),
            _wins_cell(r.iloc[2], r.iloc[3], r.iloc[4]),
            _wins_cell(r.iloc[5], r.iloc[6], r.iloc[7]),
        ]
        for _, r in top.iterrows()
    ]


def _wins_cell(won: Any, lost: Any, rate: Any) -> str:
    n = int(won) + int(lost)
    return f"{int(won)} / {n}: {rate}" if n else "none decided"
