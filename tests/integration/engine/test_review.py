"""Review before sending: held disputes send nothing; approvals (CLI, a dropped sheet, the
deadline sweep) send exactly what they cover; changed evidence waits again."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.problems import ProblemKind
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

POSTS = ("POST /v1/disputes/update-evidence", "POST /v1/files/upload")


@pytest.fixture
def setup(sandbox_factory, tmp_path, monkeypatch):
    """Three disputes with complete evidence: dp_test_0 due in 30 h, the others in 10 days
    (the sheet and the API agree)."""
    now = datetime.now(UTC)
    due = [iso(now + timedelta(hours=h)) for h in (30, 240, 240)]
    rows = seed_rows(3)
    for row, when in zip(rows, due, strict=True):
        row["response_due_by"] = when
    sb = sandbox_factory(rows=rows)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [[f"dp_test_{i}", f"#{5000 + i}", "general", due[i]] for i in range(3)])  # fmt: skip
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    return sb, inbox


def run(sb, inbox, **sections):
    settings = load_settings(None, **sections)
    return run_inbox(
        settings,
        RunRequest(inbox=inbox),
        api=settings.api_settings(base_url=sb.base_url, token=TOKEN),
    )


def posts(sb) -> int:
    return sum(n for route, n in sb.requests_by_route().items() if route.startswith("POST "))


def statuses(inbox: Path) -> dict[str, str]:
    with StateStore(default_state(inbox)) as store:
        table = store.reports.dispute_rows()
    return dict(zip(table["provider_dispute_id"], table["status"], strict=True))


def approve(inbox: Path, *args: str):
    return CliRunner().invoke(app, ["approve", "--inbox", str(inbox), *args])


def test_hold_all_sends_nothing_then_approving_two_sends_exactly_those(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    first = run(sb, inbox)
    assert posts(sb) == 0  # no POST reached the API: no evidence, no file
    assert set(statuses(inbox).values()) == {"awaiting_approval"}
    assert first.exit_code == 5 and first.counts["awaiting_approval"] == 3  # waits for a person
    assert "3 wait for approval" in first.outcome
    preview = Path(first.report).parent / "waiting-for-approval"
    assert sorted(p.name for p in (preview / "payloads").iterdir()) == [
        "dp_test_0.json", "dp_test_1.json", "dp_test_2.json"
    ]  # fmt: skip
    matches = pd.read_csv(preview / "file_matches.csv")
    assert set(matches["provider_dispute_id"]) == {"dp_test_0", "dp_test_1", "dp_test_2"}
    assert (preview / "dp_test_0-evidence-summary.pdf").read_bytes().startswith(b"%PDF")
    table = pd.read_excel(Path(first.report).parent / "disputes.xlsx", engine="calamine")
    assert "Approve" in table.columns and table["Approve"].isna().all()
    assert table["Status"].str.startswith("waiting for your approval, complete, ").all()

    done = approve(inbox, "dp_test_0", "dp_test_2")
    assert done.exit_code == 0, done.output
    assert "dp_test_0: approved" in done.output and "dp_test_2: approved" in done.output
    second = run(sb, inbox)
    snap = sb.snapshot()
    sent = {pid for pid, d in snap.items() if d["evidence_updates"]}
    assert sent == {"dp_test_0", "dp_test_2"}
    for pid in sent:  # each with its files: its proof and its summary PDF
        names = {f["file_name"] for f in snap[pid]["files"]}
        assert names == {f"{pid}_proof0.pdf", f"{pid}-evidence-summary.pdf"}
    assert snap["dp_test_1"]["files"] == []
    assert statuses(inbox) == {
        "dp_test_0": "submitted", "dp_test_1": "awaiting_approval", "dp_test_2": "submitted"
    }  # fmt: skip
    assert second.counts["evidence_sent"] == 2 and second.counts["files_uploaded"] == 4


def test_approve_refuses_an_unknown_dispute_in_one_line_and_approves_nothing(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    run(sb, inbox)
    out = approve(inbox, "dp_test_0", "dp_tset_1")
    assert out.exit_code == 2
    assert [x for x in out.output.strip().splitlines() if not x.startswith("Config: ")] == [
        "dp_tset_1: unknown dispute (not in this state); check the id in the report"
    ]
    assert statuses(inbox)["dp_test_0"] == "awaiting_approval"  # the good id waits too
    assert approve(inbox).exit_code == 2  # nothing named
    everything = approve(inbox, "--all-complete")
    assert everything.exit_code == 0 and everything.output.count(": approved") == 3
    run(sb, inbox)
    assert set(statuses(inbox).values()) == {"submitted"}


def test_evidence_that_changes_after_approval_waits_again(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    run(sb, inbox)
    assert approve(inbox, "dp_test_0", "dp_test_1").exit_code == 0
    # before the next run: a second shipment for dp_test_0's order (its payload changes) and a
    # new file for dp_test_1 (its payload does not, its files do)
    write_rows(inbox / "late_shipments.csv", ["order_number", "tracking_number", "carrier"],
               [[5000, "1ZNEW0001", "UPS"]])  # fmt: skip
    (inbox / "dp_test_1 extra.pdf").write_bytes(b"%PDF-1.4 extra")
    result = run(sb, inbox)
    assert posts(sb) == 0
    assert set(statuses(inbox).values()) == {"awaiting_approval"}
    assert result.counts["awaiting_approval"] == 3
    assert approve(inbox, "dp_test_0").exit_code == 0  # the new version
    run(sb, inbox)
    snap = sb.snapshot()
    assert snap["dp_test_0"]["evidence_updates"] == 1 and not snap["dp_test_1"]["evidence_updates"]
    assert "1ZNEW0001" in str(snap["dp_test_0"]["evidence"])


def _fill_approve(report: Path, answers: dict[str, str], target: Path) -> None:
    book = load_workbook(report / "disputes.xlsx")
    ws = book.active
    header = [c.value for c in ws[1]]
    col, pid_col = header.index("Approve") + 1, header.index("Dispute") + 1
    for row in range(2, ws.max_row + 1):
        pid = ws.cell(row, pid_col).value
        if pid in answers:
            ws.cell(row, col).value = answers[pid]
    book.save(target)


def test_an_approve_column_dropped_back_in_the_inbox_approves(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    report = Path(run(sb, inbox).report).parent
    _fill_approve(report, {"dp_test_1": "Yes", "dp_test_2": "maybe"}, inbox / "approvals.xlsx")
    result = run(sb, inbox)
    snap = sb.snapshot()
    assert {pid for pid, d in snap.items() if d["evidence_updates"]} == {"dp_test_1"}
    assert len(snap["dp_test_1"]["files"]) == 2
    assert not (inbox / "approvals.xlsx").exists()  # read and archived like any sheet
    problems = pd.read_excel(Path(result.report).parent / "problems.xlsx", engine="calamine")
    maybe = problems.loc[problems["dispute"] == "dp_test_2"]
    assert "Approve says 'maybe'" in maybe["problem"].iloc[0]
    assert maybe["row"].iloc[0] == 4 and maybe["column"].iloc[0] == "Approve"
    # an approval from an older report does not cover evidence that changed since
    stale = Path(result.report).parent
    (inbox / "dp_test_0 extra.pdf").write_bytes(b"%PDF-1.4 extra")
    run(sb, inbox)  # dp_test_0's evidence changes (a new file)
    _fill_approve(stale, {"dp_test_0": "x"}, inbox / "old approvals.xlsx")
    late = run(sb, inbox)
    assert not sb.snapshot()["dp_test_0"]["evidence_updates"]
    assert (ProblemKind.APPROVAL_NOT_APPLIED, "dp_test_0") in _problems(late)
    assert (ProblemKind.DISPUTE_AWAITING_APPROVAL, "dp_test_0") in _problems(late)


def _problems(result) -> list[tuple[str, str]]:
    frame = pd.read_excel(Path(result.report).parent / "problems.xlsx", engine="calamine")
    from dispute_evidence.reports.wording import HEADING

    by_heading = {v: k for k, v in HEADING.items()}
    return [
        (by_heading[h], d) for h, d in zip(frame["problem_kind"], frame["dispute"], strict=True)
    ]


def test_the_deadline_sweep_sends_complete_evidence_nobody_approved(setup, monkeypatch):
    """The sweep acts on the deadline the API confirmed (read back), never the sheet's alone
    (tests/integration/engine/test_review_policy.py): here the first run holds all three and says why."""
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__SEND_BEFORE_DEADLINE_HOURS", "48")
    rows = pd.read_csv(inbox / "disputes.csv")
    rows.loc[rows["provider_dispute_id"] == "dp_test_2", "reason"] = "fraudulent"  # incomplete
    rows.to_csv(inbox / "disputes.csv", index=False)
    result = run(sb, inbox)
    snap = sb.snapshot()  # dp_test_0 is due in 30 h by the sheet: not confirmed by the API yet
    assert {pid for pid, d in snap.items() if d["evidence_updates"]} == set()
    assert result.counts["swept"] == 0 and result.counts["awaiting_approval"] == 3
    table = pd.read_excel(Path(result.report).parent / "disputes.xlsx", engine="calamine")
    steps = dict(zip(table["Dispute"], table["Next step"], strict=True))
    for pid in ("dp_test_0", "dp_test_1"):
        assert steps[pid].startswith("waiting for your approval; the deadline sweep does not")
        assert "the API has not confirmed its deadline" in steps[pid]
    assert steps["dp_test_2"].endswith("does not send it (its evidence is incomplete)")
    with StateStore(default_state(inbox)) as store:
        assert store.disputes.dispute("dp_test_0")["approved_by"] is None


def test_the_sweep_never_sends_after_the_deadline_nor_incomplete_evidence(tmp_path):
    from dispute_evidence.engine.prepare.build import prepare_step
    from dispute_evidence.engine.review.approval import review_step
    from dispute_evidence.policies import ReviewPolicy
    from tests.support.engine_helpers import ingest_inbox_step, options

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    now = datetime.now(UTC)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [["dp_test_0", "#5000", "general", iso(now + timedelta(hours=10))],
                ["dp_test_1", "#5001", "fraudulent", iso(now + timedelta(hours=10))]])  # fmt: skip
    with StateStore(tmp_path / "state.sqlite3") as store:
        opts = options(inbox)
        prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
        policy = ReviewPolicy(hold="incomplete", sweep_hours=48)
        later = now + timedelta(hours=11)  # both deadlines passed
        out = review_step(store, ReviewPolicy(hold="all"), now=now)
        assert sorted(out.held) == ["dp_test_0", "dp_test_1"]
        out = review_step(store, policy, now=later)
        assert out.swept == [] and out.held == []
        # complete, not held by "incomplete": released to be sent (the submitter refuses it as
        # past due); incomplete and past its deadline: past due here, never swept
        assert store.disputes.dispute("dp_test_0")["status"] == "pending"
        assert store.disputes.dispute("dp_test_1")["status"] == "past_due"
        assert "nobody approved it" in store.disputes.dispute("dp_test_1")["detail"]


def test_hold_incomplete_holds_only_evidence_that_misses_what_its_reason_needs(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "incomplete")
    rows = pd.read_csv(inbox / "disputes.csv")
    rows.loc[rows["provider_dispute_id"] == "dp_test_2", "reason"] = "fraudulent"  # needs AVS, ...
    rows.to_csv(inbox / "disputes.csv", index=False)
    run(sb, inbox)
    assert statuses(inbox) == {
        "dp_test_0": "submitted", "dp_test_1": "submitted", "dp_test_2": "awaiting_approval"
    }  # fmt: skip
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "none")  # the setting alone: it waits
    run(sb, inbox)
    assert statuses(inbox)["dp_test_2"] == "awaiting_approval"
    off = CliRunner().invoke(app, ["review", "--inbox", str(inbox), "--hold", "none"])
    assert off.exit_code == 0, off.output  # the policy off, on purpose: it goes
    run(sb, inbox)
    assert statuses(inbox)["dp_test_2"] == "submitted"


def test_a_dry_run_previews_held_disputes_and_changes_nothing(setup, monkeypatch):
    sb, inbox = setup
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    run(sb, inbox)
    state = default_state(inbox)
    before = Path(state).read_bytes()
    settings = load_settings(None)
    result = run_inbox(settings, RunRequest(inbox=inbox, dry_run=True))
    assert result.counts["would_send"] == 0 and result.counts["would_upload"] == 0
    assert result.counts["awaiting_approval"] == 3
    assert (Path(result.report).parent / "waiting-for-approval" / "payloads").is_dir()
    assert pd.read_csv(Path(result.report).parent / "file_matches.csv").empty  # all held
    assert Path(state).read_bytes() == before
    shutil.rmtree(Path(result.report).parent)


def test_held_is_a_checked_state_only_release_leaves_it(tmp_path):
    from dispute_evidence.state.lifecycle import IllegalTransition

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    with StateStore(tmp_path / "s.sqlite3") as store:
        from dispute_evidence.engine.prepare.build import prepare_step
        from tests.support.engine_helpers import ingest_inbox_step, options

        opts = options(inbox)
        prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
        with pytest.raises(IllegalTransition, match="pending -> pending"):
            store.transitions.release_approval("dp_test_0", "pending")  # not held
        store.transitions.mark_awaiting_approval("dp_test_0")
        assert store.disputes.work_queue() == []  # nothing of it is sent
        with pytest.raises(IllegalTransition, match="awaiting_approval -> submitted"):
            store.transitions.mark_submitted(
                "dp_test_0", submitted_hash="h", dispute_id="d", attempts=1
            )
        with pytest.raises(IllegalTransition, match="awaiting_approval -> rejected"):
            store.transitions.release_approval("dp_test_0", "rejected")
        store.transitions.release_approval("dp_test_0", "pending")
        assert store.disputes.work_queue() == ["dp_test_0"]
