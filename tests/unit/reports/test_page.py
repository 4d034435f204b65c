"""summary.html from a RunReport: inbox text stays text, anchors and PDF names stay inside the
report, and only what needs an action is counted (information is listed apart)."""

from __future__ import annotations

import re

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports import RunReport, write_report
from dispute_evidence.reports.money import WAITING_FOR_YOU, money
from tests.support.engine_helpers import make_inbox
from tests.support.export_layouts import write_xlsx

EVIL = '<script>alert(1)</script>"../../x'


def _table(**extra: list[object]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "provider_dispute_id": [EVIL, "dp_2", "dp_3"],
            "status": ["incomplete", "submitted", "closed"],
            "api_status": [None, "needs_response", "won"],
            "amount": ["12.5", 100, None],
            "currency": ["usd", "EUR", "EUR"],
            "days_left": [1, 9, None],
            "summary_pdf": [f"{EVIL}-evidence-summary.pdf", "", ""],
            **extra,
        }
    )


def test_inbox_text_reaches_the_page_as_text_and_files_stay_in_the_report(tmp_path):
    blob = tmp_path / "blob.pdf"
    blob.write_bytes(b"%PDF-1.4 summary")
    files = pd.DataFrame(
        {
            "provider_dispute_id": [EVIL],
            "file_name": [f"{EVIL}-evidence-summary.pdf"],
            "path": [str(blob)],
            "status": ["uploaded"],
        }
    )
    out = tmp_path / "report"
    report = RunReport("r", "ok", False, {}, _table(reason=["<b>x</b>", "", ""]), files=files)
    write_report(report, out)
    page = (out / "summary.html").read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    (anchor,) = re.findall(r'<a href="#([^"]+)">&lt;script', page)
    assert re.fullmatch(r"d-[A-Za-z0-9_-]+", anchor) and f'id="{anchor}"' in page
    (pdf,) = [p.name for p in (out / "pdf").iterdir()]
    assert "/" not in pdf and not pdf.startswith(".") and f'href="pdf/{pdf}"' in page
    assert (out / "pdf" / pdf).read_bytes() == blob.read_bytes()


def test_money_by_where_each_dispute_stands_and_by_currency():
    m = money(_table())
    assert m.currencies == ["EUR", "USD"]
    assert m.rows == [
        (WAITING_FOR_YOU, 1, ["", "12.50"]),
        ("sent", 1, ["100.00", ""]),
        ("won", 1, ["0.00", ""]),
    ]
    assert m.at_risk == ["100.00 EUR", "12.50 USD"] and m.open_disputes == 2


def test_information_is_listed_apart_and_not_counted(tmp_path):
    problems = [
        Problem(ProblemKind.DEADLINE_MOVED, "dp_2", "the API's deadline is later", dispute="dp_2"),
        Problem(ProblemKind.ROW_NOT_USED, "a.csv row 2", "not a number", file="a.csv"),
    ]
    counts = {"need_you": 1}
    write_report(RunReport("r", "1 need you", False, counts, _table(), problems), tmp_path)
    page = (tmp_path / "summary.html").read_text()
    attention = page.split('id="attention"')[1].split("</section>")[0]
    information = page.split('id="information"')[1].split("</section>")[0]
    assert "Rows or files not used (1)" in attention and "Deadlines the API moved" not in attention
    assert "Deadlines the API moved (1)" in information
    assert "1 problem(s) need you" in page


def test_a_workbooks_read_me_and_pivot_sheets_are_information_not_problems(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_xlsx(
        inbox / "more orders.xlsx",
        {
            "Read me": [["How to use this workbook"], ["Fill in the Orders sheet"], ["Thanks"]],
            "Orders": [
                ["order_number", "product_title", "price", "quantity", "currency_code"],
                [5000, "Gift card", 5, 1, "USD"],
            ],
            "Pivot": [["Row labels", "Sum of price"], ["Gift card", 5], ["Total", 5]],
        },
    )
    r = CliRunner().invoke(
        app,
        ["run", "--inbox", str(inbox), "--dry-run"],
        env={"DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0"},
    )
    assert r.exit_code == 0, r.output
    (report,) = (tmp_path / "inbox.reports").iterdir()
    problems = pd.read_csv(report / "problems.csv")
    sheets = problems.loc[problems["sheet"].isin(["Read me", "Pivot"])]
    assert sorted(sheets["sheet"]) == ["Pivot", "Read me"]
    assert set(sheets["problem_kind"]) == {
        "Sheets with no table (the workbook's other sheets were read)"
    }
    assert "need you" in r.output.splitlines()[1], r.output
    assert r.output.splitlines()[1].endswith(
        "· 1 need you"
    )  # (after the "Config:" line)  # the merchant profile: not the sheets
    page = (report / "summary.html").read_text()
    assert "Sheets with no table" in page.split('id="information"')[1]
    assert "Sheets with no table" not in page.split('id="attention"')[1].split("</section>")[0]


def test_the_state_is_the_one_plain_state_when_the_table_has_it(tmp_path):
    plain = ["waiting for data, 1 day left", "sent, still missing proof of delivery", "won"]
    write_report(RunReport("r", "ok", False, {}, _table(state_words=plain)), tmp_path)
    page = (tmp_path / "summary.html").read_text()
    states = re.findall(r'data-label="State">([^<]*)<', page)
    assert states == plain
    write_report(RunReport("r", "ok", False, {}, _table(status_words=["a", "b", "c"])), tmp_path)
    page = (tmp_path / "summary.html").read_text()
    assert re.findall(r'data-label="State">([^<]*)<', page) == ["a", "b", "c"]


def test_a_dispute_not_sent_whose_deadline_passed_is_past_due_not_at_risk():
    table = pd.DataFrame(
        {
            "provider_dispute_id": ["dp_1", "dp_2", "dp_3"],
            "status": ["pending", "incomplete", "submitted"],
            "days_left": [-3, -1, -2],  # a dry run: not yet marked past_due
            "amount": [10, 20, 40],
            "currency": ["USD"] * 3,
        }
    )
    m = money(table)
    assert m.rows == [("sent", 1, ["40.00"]), ("past due", 2, ["30.00"])]
    assert m.at_risk == ["40.00 USD"] and m.open_disputes == 1


def test_the_page_shows_what_wins_with_its_intervals_and_says_when_outcomes_are_too_few(tmp_path):
    from dispute_evidence.standing.win_rates import wins_table

    decided = [("fraudulent", frozenset({"ce3"}), i < 9) for i in range(12)]
    decided += [("fraudulent", frozenset(), i < 2) for i in range(10)]
    decided += [("product_not_received", frozenset({"signed_pod"}), True) for _ in range(3)]
    wins = wins_table(decided)
    outcomes = pd.DataFrame({"reason": ["fraudulent"], "decided": [22]})
    report = RunReport("r", "ok", False, {}, _table(), outcomes=outcomes, wins=wins)
    write_report(report, tmp_path / "report")
    page = (tmp_path / "report" / "summary.html").read_text()
    section = page[page.index('id="what-wins"') :]
    assert "Visa CE 3.0 (earlier undisputed orders)" in section
    assert "9 / 12: 75% (47%-91%)" in section and "2 / 10: 20% (6%-51%)" in section
    assert "product_not_received" not in section  # 3 outcomes with, none without: no rate
    few = RunReport(
        "r", "ok", False, {}, _table(), outcomes=outcomes, wins=wins_table(decided[-3:])
    )
    write_report(few, tmp_path / "few")
    assert "What wins: too few outcomes yet" in (tmp_path / "few" / "summary.html").read_text()
