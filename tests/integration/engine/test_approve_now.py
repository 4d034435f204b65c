"""Deadline day (issue 29, issue 30's approval record): `approve` sends what it approves at
once, through the run's exactly-once path, and names who approved; approvals policy
(approvers, a second approver), the approvals log, and what a dropped sheet may approve."""

from __future__ import annotations

import getpass
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import Workbook
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.review.approval import approve as approve_in_store
from dispute_evidence.engine.review.log import approval_log
from dispute_evidence.inbox import default_state
from dispute_evidence.policies import ReviewPolicy
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN
from tests.integration.engine.test_review import _fill_approve, _problems, run, setup  # noqa: F401

ME = getpass.getuser()


@pytest.fixture
def held(setup, monkeypatch):  # noqa: F811 - the fixture imported above
    """Three disputes held for approval (review on), the API configured for `approve`."""
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    first = run(sb, inbox)
    assert first.counts["awaiting_approval"] == 3 and not _sent(sb)
    return sb, inbox, Path(first.report).parent


def _sent(sb) -> dict[str, int]:
    """The local API's ledger: disputes with evidence, and how many files each holds."""
    return {p: len(d["files"]) for p, d in sb.snapshot().items() if d["evidence_updates"]}


def _approve(inbox: Path, *args: str):
    return CliRunner().invoke(app, ["approve", "--inbox", str(inbox), *args])


def _row(inbox: Path, pid: str) -> dict:
    with StateStore(default_state(inbox)) as store:
        return store.disputes.dispute(pid)


def test_approve_returns_after_the_disputes_are_at_the_api_with_the_approver_named(held):
    sb, inbox, _ = held
    done = _approve(inbox, "dp_test_0", "dp_test_2")
    assert done.exit_code == 0, done.output
    assert _sent(sb) == {"dp_test_0": 2, "dp_test_2": 2}  # evidence and files, no other
    assert "dp_test_0: approved" in done.output and f"by {ME}; sent:" in done.output
    assert _row(inbox, "dp_test_0")["status"] == "submitted"
    assert _row(inbox, "dp_test_1")["status"] == "awaiting_approval"
    report = Path(done.output.split("Report: ")[1].split()[0])
    table = pd.read_excel(report / "disputes.xlsx", engine="calamine").set_index("Dispute")
    assert table.loc["dp_test_0", "Approved by"].startswith(f"{ME} (approve command), v")
    assert pd.isna(table.loc["dp_test_1", "Approved by"])
    page = (report / "summary.html").read_text(encoding="utf-8")
    assert f"{ME} (approve command)" in page
    log = pd.read_excel(report / "approvals.xlsx", engine="calamine")
    assert set(log["For dispute"]) == {"dp_test_0", "dp_test_2"}
    assert (log["Approved by"] == ME).all() and (log["Applied"] == "yes").all()
    again = run(sb, inbox)  # the next run has nothing more to send for them
    assert again.counts["evidence_sent"] == 0 and _sent(sb) == {"dp_test_0": 2, "dp_test_2": 2}


def test_no_send_records_only_and_a_held_lock_names_the_run_that_sends(held):
    sb, inbox, _ = held
    done = _approve(inbox, "dp_test_0", "--no-send")
    assert done.exit_code == 0 and "recorded only: the next run sends it" in done.output
    assert not _sent(sb) and _row(inbox, "dp_test_0")["approved_by"].startswith(ME)
    with StateStore(default_state(inbox)) as store:
        assert store.locks.acquire_run_lock("run-20261125T000000Z-other") is None
        try:
            locked = _approve(inbox, "dp_test_1")
        finally:
            store.locks.release_run_lock("run-20261125T000000Z-other")
    assert locked.exit_code == 0, locked.output
    assert "is working on this inbox" in locked.output and "other" in locked.output
    assert not _sent(sb)
    run(sb, inbox)  # the next run sends both approvals
    assert _sent(sb) == {"dp_test_0": 2, "dp_test_1": 2}


def test_approvers_refuse_anyone_else_and_keep_the_attempt(held, monkeypatch):
    sb, inbox, _ = held
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__APPROVERS", '["someone-else"]')
    done = _approve(inbox, "dp_test_0")
    assert done.exit_code == 2 and "not one of [review] approvers" in done.output
    assert not _sent(sb) and _row(inbox, "dp_test_0")["status"] == "awaiting_approval"
    with StateStore(default_state(inbox)) as store:
        log = approval_log(store)
    assert list(log["Applied"]) == ["no"] and list(log["Approved by"]) == [ME]


def test_over_the_amount_two_different_approvers_are_needed_and_history_is_kept(held, monkeypatch):
    sb, inbox, _ = held
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__SECOND_APPROVER_OVER", "0")
    first = _approve(inbox, "dp_test_0")
    assert first.exit_code == 2 and "needs a second approver" in first.output
    assert not _sent(sb)
    assert _approve(inbox, "dp_test_0").exit_code == 2  # the same person twice is still one
    policy = ReviewPolicy(hold="all", second_approver_over=0)
    with StateStore(default_state(inbox)) as store:
        second = approve_in_store(store, ["dp_test_0"], by="bob", policy=policy)
        assert second.approved == ["dp_test_0"]
        assert (
            store.disputes.dispute("dp_test_0")["approved_by"] == f"{ME} and bob (approve command)"
        )
        log = approval_log(store)
    assert list(log["Approved by"]) == [ME, ME, "bob"]  # every approval kept, in order
    assert list(log["Applied"]) == ["no", "no", "yes"]
    run(sb, inbox)
    assert set(_sent(sb)) == {"dp_test_0"}


def test_a_sheet_without_an_evidence_version_approves_nothing_and_says_why(held):
    sb, inbox, _ = held
    (inbox / "approvals.csv").write_text("Dispute,Approve\ndp_test_0,yes\n", encoding="utf-8")
    result = run(sb, inbox)
    assert not _sent(sb) and _row(inbox, "dp_test_0")["status"] == "awaiting_approval"
    problems = pd.read_excel(Path(result.report).parent / "problems.xlsx", engine="calamine")
    assert problems["problem"].str.contains("no Evidence version in this row").any()


def test_a_very_hidden_sheet_approves_nothing(held):
    sb, inbox, report = held
    table = pd.read_excel(report / "disputes.xlsx", engine="calamine")
    book = Workbook()
    book.active.append(["Dispute", "Approve", "Evidence version"])  # visible: no yes
    for pid, version in zip(table["Dispute"], table["Evidence version"], strict=True):
        book.active.append([pid, "", version])
    secret = book.create_sheet("x")
    secret.sheet_state = "veryHidden"
    secret.append(["Dispute", "Approve", "Evidence version"])
    for pid, version in zip(table["Dispute"], table["Evidence version"], strict=True):
        secret.append([pid, "yes", version])
    book.save(inbox / "disputes.xlsx")
    result = run(sb, inbox)
    assert not _sent(sb)
    problems = pd.read_excel(Path(result.report).parent / "problems.xlsx", engine="calamine")
    assert problems["problem"].str.contains("a hidden sheet approves nothing").any()


def test_a_dropped_sheet_approves_as_its_file_owner(held):
    sb, inbox, report = held
    _fill_approve(report, {"dp_test_1": "yes"}, inbox / "approvals.xlsx")
    run(sb, inbox)
    assert set(_sent(sb)) == {"dp_test_1"}
    assert _row(inbox, "dp_test_1")["approved_by"] == f"{ME} (sheet approvals.xlsx)"


def test_status_says_what_is_due_in_words_one_day_is_one_day(held):
    _, inbox, _ = held
    shown = CliRunner().invoke(app, ["status", "--inbox", str(inbox)])
    due = next(x for x in shown.output.splitlines() if x.strip().startswith("dp_test_0"))
    assert "1 day left" in due and "1 days" not in shown.output, shown.output
    assert "10 days left" in shown.output or "9 days left" in shown.output


@pytest.mark.parametrize("admitted", [1, 2], ids=["before-its-evidence", "before-its-files"])
def test_a_long_retry_after_on_approves_send_is_one_line_exit_4_and_the_next_run_sends(
    held, monkeypatch, admitted
):
    """Deadline day, the API busy: `approve` sends at once, the API answers 429 asking to wait
    an hour (past [api] max_wait). One plain line names the dispute, what happened and what to
    do; exit 4 (README); the approval is kept and the next run sends the dispute once."""
    from dispute_evidence.sandbox.app_config import LIMITER_KEY

    sb, inbox, _ = held
    monkeypatch.setenv("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")
    limiter = sb.app[LIMITER_KEY]
    # the approve's first listing is admitted (and its evidence, for admitted=2); after that
    # every request is a 429 whose Retry-After is the rest of the hour's window
    limiter.limit = sum(sb.requests_by_route().values()) + admitted
    done = _approve(inbox, "dp_test_0")
    assert "Traceback" not in done.output and done.exit_code == 4, done.output
    lines = [x for x in done.stdout.splitlines() if x.strip() and not x.startswith("Report: ")]
    assert len(lines) == 1, done.output
    (line,) = lines
    assert line.startswith("dp_test_0: approved") and f"by {ME}" in line, line
    assert "answered 429" in line and "60 min" in line, line  # what happened
    assert "run again after" in line and f"dispute-evidence run --inbox {inbox}" in line, line
    assert "(not sent yet)" not in line
    assert _row(inbox, "dp_test_0")["approved_by"].startswith(ME)  # the approval is kept
    limiter.limit, limiter._logs = 5000, {}  # the hour has passed
    again = run(sb, inbox)
    assert again.counts["evidence_sent"] == (1 if admitted == 1 else 0)
    assert _sent(sb) == {"dp_test_0": 2}  # its evidence once, each file once
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1


def _with_cached_value(path: Path, formula: str, cached: str) -> None:
    """The workbook as Excel saves it: the formula `formula` keeps its result `cached` beside
    it (openpyxl writes a formula without one)."""
    import re
    import zipfile

    members = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            members[name] = zf.read(name)
    sheet = "xl/worksheets/sheet1.xml"
    xml = members[sheet].decode()
    escaped = formula.replace("&", "&amp;").replace("<", "&lt;")
    pattern = re.compile(rf'<c r="([A-Z]+\d+)"[^>]*><f>{re.escape(escaped)}</f><v\s*/?>(</v>)?')
    xml, n = pattern.subn(rf'<c r="\1" t="str"><f>{escaped}</f><v>{cached}</v>', xml)
    assert n == 1, xml
    members[sheet] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_a_formula_in_an_approve_cell_approves_nothing_and_says_so_naming_the_cell(held):
    sb, inbox, report = held
    target = inbox / "disputes.xlsx"
    _fill_approve(report, {"dp_test_0": "=TRUE()", "dp_test_1": '="yes"'}, target)
    _with_cached_value(target, '"yes"', "yes")  # Excel's result: still never an approval
    assert pd.read_excel(target, engine="calamine")["Approve"].tolist().count("yes") == 1
    result = run(sb, inbox)
    assert not _sent(sb)
    assert {_row(inbox, p)["status"] for p in ("dp_test_0", "dp_test_1")} == {"awaiting_approval"}
    problems = pd.read_excel(Path(result.report).parent / "problems.xlsx", engine="calamine")
    said = problems.loc[problems["problem"].str.contains("formula", na=False)]
    assert len(said) == 2, problems.to_dict("records")
    assert set(said["file"]) == {"disputes.xlsx"} and set(said["column"]) == {"Approve"}
    rows = {int(r) for r in said["row"]}
    table = pd.read_excel(report / "disputes.xlsx", engine="calamine")
    expected = {int(i) + 2 for i in table.index[table["Dispute"].isin(["dp_test_0", "dp_test_1"])]}
    assert rows == expected
    for text in said["problem"]:
        assert "a formula approves nothing" in text and "type yes" in text
    summary = (Path(result.report).parent / "summary.txt").read_text(encoding="utf-8")
    lines = [line for line in summary.splitlines() if "a formula approves nothing" in line]
    assert len(lines) == 2 and all("disputes.xlsx" in line and " row " in line for line in lines)
    assert all("'Approve'" in line for line in lines), lines


def test_two_approves_at_once_one_approves_the_other_says_already_approved(held):
    """The interleavings of two `approve` of one dispute, each read before the other wrote:
    the second never ends in IllegalTransition (2 of 6 tries before), and records nothing."""
    from dispute_evidence.engine.review.approval import candidates, record_approval

    sb, inbox, _ = held
    with StateStore(default_state(inbox)) as store:
        # B read dp_test_0 held; A approved it and released it before B wrote
        seen_by_b = candidates(store)["dp_test_0"]
        assert approve_in_store(store, ["dp_test_0"], by="alice").approved == ["dp_test_0"]
        late = approve_in_store(store, [], by="bob")  # nothing asked: nothing changes
        assert late.approved == [] and late.refused == []
        # B read dp_test_1 held; A recorded its approval, not released yet, when B wrote
        seen_by_a = candidates(store)["dp_test_1"]
        assert record_approval(store, seen_by_a, "alice (approve command)", who="alice")
        b = approve_in_store(store, ["dp_test_1"], by="bob")
        assert b.approved == [] and b.refused == []
        assert b.already == [
            f"dp_test_1: already approved ({seen_by_a.version}) by alice (approve command): "
            "nothing more to do"
        ]
        # B released it (an approval of this version stands: sending it is B's to try too);
        # A goes on through the same door, which finds it released already
        from dispute_evidence.engine.review.approval import ANYONE, _release, give_approval

        assert b.approved_before == {"dp_test_1": seen_by_a.version}
        _release(store, seen_by_a)

        why = give_approval(store, seen_by_b, "bob", "approve command", ANYONE)
        assert why and why.startswith("already approved") and "by alice" in why
        log = approval_log(store)
    assert list(log.loc[log["Applied"] == "yes", "Approved by"]) == ["alice", "alice"]
    assert _row(inbox, "dp_test_0")["approved_by"] == "alice (approve command)"


def test_two_approve_commands_at_once_never_end_in_a_traceback(held):
    import subprocess
    import sys

    sb, inbox, _ = held
    command = [sys.executable, "-m", "dispute_evidence", "approve", "--inbox", str(inbox),
               "dp_test_2", "--no-send"]  # fmt: skip
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]  # fmt: skip
    for p in both:
        output = p.communicate(timeout=120)[0]
        assert p.returncode == 0, output
        assert "IllegalTransition" not in output and "Traceback" not in output
        assert "dp_test_2: approved" in output or "dp_test_2: already approved" in output
    assert _row(inbox, "dp_test_2")["status"] == "pending"
