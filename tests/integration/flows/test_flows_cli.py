"""Flows under Prefect's test harness, the CLI's exit codes, the inbox lifecycle, serve's deployments."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.inbox import default_state
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports import escape_cell
from dispute_evidence.settings import RunRequest
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

SAMPLE = Path(__file__).resolve().parents[3] / "sample_data"


@pytest.fixture
def api_env(monkeypatch, sandbox_factory):
    sb = sandbox_factory(rows=seed_rows(6))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    return sb


def test_flow_end_to_end_then_quiet_rerun(prefect_harness, api_env, tmp_path):
    from flows.pipeline import evidence_run

    inbox = tmp_path / "inbox"
    files = make_inbox(inbox, 6)
    first = evidence_run(RunRequest(inbox=str(inbox)))
    # one cheap request checks the key, then one per dispute, per file and per summary PDF
    assert first["exit_code"] == 0 and first["counts"]["requests"] == 1 + 6 + files + 6
    report = Path(first["report"]).parent
    assert {p.name for p in report.iterdir()} >= {"summary.md", "summary.html", "disputes.csv", "disputes.xlsx",
                                                   "problems.csv", "problems.xlsx"}  # fmt: skip
    table = pd.read_excel(report / "disputes.xlsx", engine="calamine")
    assert (table["status (code)"] == "submitted").all() and table["Status"].str.startswith(
        "sent"
    ).all()
    assert (table["Files uploaded"] == table["Files matched"]).all()
    second = evidence_run(RunRequest(inbox=str(inbox)))
    # the key check, and one listing page that reads back the 6 disputes now known at the API
    assert second["counts"]["requests"] == 2 and second["counts"]["reads"] == 1
    assert second["counts"]["new_files"] == 0
    assert "Nothing needs your attention." in Path(second["report"]).read_text()
    (inbox / "dp_test_2 label.pdf").write_bytes(b"not a pdf")
    # a run with a problem: not plain green
    state = evidence_run(RunRequest(inbox=str(inbox)), return_state=True)
    assert state.is_completed() and state.name == "Needs attention"
    assert state.message == "0 sent · 1 need you"


def test_inbox_picks_up_a_dropped_file_and_ignores_a_half_written_one(
    prefect_harness, api_env, tmp_path, monkeypatch
):
    from dispute_evidence.watch import new_inbox_files
    from flows.pipeline import evidence_run

    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "30")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    old = time.time() - 120
    for p in inbox.rglob("*"):
        os.utime(p, (old, old))
    # just written
    write_rows(
        inbox / "late_shipments.csv", ["order_number", "tracking_number"], [["5001", "1ZLATE"]]
    )
    assert str(inbox / "late_shipments.csv") not in new_inbox_files(inbox, None, 30)
    result = evidence_run(RunRequest(inbox=str(inbox)))
    assert (inbox / "late_shipments.csv").exists()  # not read, not archived: still being written
    assert "still being written" in Path(result["report"]).read_text()
    os.utime(inbox / "late_shipments.csv", (old, old))
    assert new_inbox_files(inbox, None, 30) == [str(inbox / "late_shipments.csv")]
    evidence_run(RunRequest(inbox=str(inbox)))
    assert api_env.snapshot()["dp_test_1"]["evidence"]["shipping_tracking_numbers"] == [
        "1Z000001",
        "1ZLATE",
    ]
    archived = list((inbox / "archive").rglob("late_shipments.csv"))
    assert len(archived) == 1


def test_file_is_archived_only_after_its_records_are_durable(tmp_path, monkeypatch):
    from dispute_evidence.engine.prepare import build as pipeline

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    store = StateStore(tmp_path / "s.sqlite3")

    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store.records, "record_ingest", crash)
    with pytest.raises(OSError):
        pipeline.ingest_inbox_step(store, pipeline.RunOptions(inbox=inbox, settle_seconds=0), "r1")
    assert (inbox / "disputes.csv").exists()  # its records never landed, so it stays in the inbox
    assert not list(inbox.glob("archive/**/*.csv"))


def test_a_file_written_to_while_it_is_read_waits_for_the_next_run(tmp_path, monkeypatch):
    from dispute_evidence.engine.prepare import build as pipeline

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    growing = inbox / "more_shipments.csv"
    write_rows(growing, ["order_number", "tracking_number"], [["5001", "1ZA"]])
    read = pipeline.ingest_file

    def writer_resumes(path, *a, **k):
        result = read(path, *a, **k)
        if path.name == growing.name:
            with growing.open("a") as fh:
                fh.write("5002,1ZB\n")
            # mtime differs even on coarse clocks
            os.utime(growing, ns=(time.time_ns() - 10**10,) * 2)
        return result

    monkeypatch.setattr(pipeline, "ingest_file", writer_resumes)
    store = StateStore(tmp_path / "s.sqlite3")
    try:
        opts = pipeline.RunOptions(inbox=inbox, settle_seconds=0)
        out = pipeline.ingest_inbox_step(store, opts, "r1")
        assert out.waiting_files == ["more_shipments.csv"] and growing.exists()
        monkeypatch.setattr(pipeline, "ingest_file", read)
        assert pipeline.ingest_inbox_step(store, opts, "r2").new_files == 1
        assert store.records.load_records(["shipments"])["shipments"]["tracking_number"].tolist()[
            -2:
        ] == [
            "1ZA",
            "1ZB",
        ]
    finally:
        store.close()


def test_unreadable_file_goes_to_rejected_with_reason(tmp_path):
    from dispute_evidence.engine.prepare import build as pipeline

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "notes.csv").write_text("colour,size\nred,M\n")
    store = StateStore(tmp_path / "s.sqlite3")
    out = pipeline.ingest_inbox_step(
        store, pipeline.RunOptions(inbox=inbox, settle_seconds=0), "r1"
    )
    assert out.new_files == 0 and (inbox / "rejected" / "notes.csv").exists()
    assert "no recognised table" in (inbox / "rejected" / "notes.csv.reason.txt").read_text()


def test_cli_exit_codes(prefect_harness, sandbox_factory, tmp_path, monkeypatch):
    runner = CliRunner()
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    r = runner.invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 2 and "--sandbox" in r.output and "demo" in r.output
    r = runner.invoke(app, ["run", "--inbox", str(tmp_path / "missing")])
    assert r.exit_code == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("[api]\nconcurrency = 0\n")
    r = runner.invoke(app, ["run", "--inbox", str(inbox), "--config", str(bad)])
    assert r.exit_code == 2 and "api.concurrency" in r.output
    sb = sandbox_factory(rows=seed_rows(2))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", "sk_revoked_key")
    r = runner.invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 3 and "refused the key" in r.output and "sk_revoked_key" not in r.output
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    r = runner.invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 0, r.output
    write_rows(
        inbox / "more.csv", ["provider_dispute_id", "order_number"], [["dp_unknown_9", "5000"]]
    )
    r = runner.invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 1 and "not found" in r.output.lower()


def test_dry_run_writes_payloads_and_sends_nothing(
    prefect_harness, sandbox_factory, tmp_path, monkeypatch
):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])
    assert r.exit_code == 0, r.output
    reports = next((tmp_path / "inbox.reports").iterdir())
    assert len(list((reports / "payloads").glob("*.json"))) == 3
    matches = pd.read_csv(reports / "file_matches.csv")["file"].tolist()
    assert len(matches) == 6 and sum(f.endswith("-evidence-summary.pdf") for f in matches) == 3
    assert (inbox / "disputes.csv").exists()  # nothing archived either


def _run_on_sample_data(tmp_path, monkeypatch, flag: str):
    """`run --inbox <copy of sample_data> <flag>`: (result, inbox, report folder)."""
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), flag])
    # the sample data leaves work for a person (exit 5); a dry run is a preview (0)
    assert r.exit_code == (0 if flag == "--dry-run" else 5), r.output
    return r, inbox, next((tmp_path / "inbox.reports").iterdir())


def test_dry_run_matches_files_named_by_order_number(prefect_harness, tmp_path, monkeypatch):
    r, _, report = _run_on_sample_data(tmp_path, monkeypatch, "--dry-run")
    payload = json.loads((report / "payloads" / "dp_1QfB2mLkdIwHu7ixR4tPz9aK.json").read_text())
    # from the Stripe export, joined by its order metadata column
    (charge,) = payload["additional_evidence"]["payments"]
    assert (charge["payment_id"], charge["cvc_check"], charge["avs_zip_check"]) == (
        "ch_3Q1aB2LkdIwHu7ix0Wd1kR3s", "pass", "pass")  # fmt: skip
    matches = pd.read_csv(report / "file_matches.csv")
    by_file = dict(zip(matches["file"], matches["provider_dispute_id"], strict=True))
    assert by_file["#1041 invoice.pdf"] == "dp_1QfA8cLkdIwHu7ix0hZk3TqS"  # by order number
    assert by_file["dp_1QfB2mLkdIwHu7ixR4tPz9aK_receipt.pdf"] == "dp_1QfB2mLkdIwHu7ixR4tPz9aK"
    assert "scan_0007.pdf" not in by_file
    # the terminal shows plain text, not Markdown escapes (scan\_0007.pdf)
    assert "evidence/scan_0007.pdf: matches no dispute" in r.output


def test_run_with_sandbox_on_the_sample_data(prefect_harness, tmp_path, monkeypatch):
    r, inbox, report = _run_on_sample_data(tmp_path, monkeypatch, "--sandbox")
    # 1045 is held as advice: accept: its carrier shows it in transit, nothing proves delivery
    assert re.search(r"Disputes sent \(evidence\) +4\n", r.output)
    assert re.search(r"Files uploaded +8\n", r.output)  # 4 matched files + 4 summaries
    # the fifth, 1044_signature.jpg, is a JPEG's first bytes and zeros: no exhibit that shows
    # nothing is sent, or cited by its letter
    assert "evidence/1044_signature.jpg: begins as a JPEG but no viewer can open it" in r.output
    assert "|" not in r.output and "**" not in r.output  # plain aligned text, not Markdown
    assert "'Lineitem price' = 'abc': not a number" in r.output
    problems = pd.read_csv(report / "problems.csv", dtype=str).fillna("")
    bad_price = problems.loc[problems["column"] == "Lineitem price"].iloc[0]
    assert (bad_price["row"], bad_price["value"]) == ("10", "abc")  # Excel's row, not 10.0
    assert bad_price["what to do"].startswith("Fix the cell in the source system")
    assert problems["what to do"].ne("").all()  # every problem says what to do
    (unlisted,) = problems.loc[
        problems["problem_kind"] == "Disputed charges missing from the disputes list"
    ].itertuples()
    assert (unlisted.file, unlisted.row, unlisted.value) == (
        "unified_payments.csv",
        "4",
        "ch_3Q1eF6LkdIwHu7ix2Yf3mT5u",
    )
    disputes = pd.read_csv(report / "disputes.csv", dtype=str)
    assert set(disputes["Files uploaded"]) <= {"0", "1", "2", "3"}  # counts, not 1.0
    status = CliRunner().invoke(app, ["status", "--inbox", str(inbox)])
    assert "submitted 4" in status.output and "past_due 1" in status.output
    assert "awaiting_approval 1" in status.output


def test_one_run_at_a_time_per_inbox_and_the_nightly_run_waits(tmp_path):
    import socket
    import threading

    from dispute_evidence.engine import run_steps as steps
    from dispute_evidence.settings import load_settings

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    settings = load_settings(None)
    first = steps.open_run(settings, RunRequest(inbox=inbox, trigger="inbox"))
    with pytest.raises(steps.RunLocked, match="another run is in progress"):
        steps.open_run(settings, RunRequest(inbox=inbox, trigger="manual"))
    releasing = threading.Event()

    def finish_the_inbox_run() -> None:
        releasing.set()  # before the lock is let go: a run that did not wait never sees it set
        steps.close_run(first, "ok")

    threading.Timer(0.5, finish_the_inbox_run).start()
    nightly = steps.open_run(
        settings, RunRequest(inbox=inbox, trigger="nightly", wait_for_lock=30), poll=0.05
    )
    assert releasing.is_set()  # it waited for the inbox run to let go, then took the lock
    steps.close_run(nightly, "ok")
    store = StateStore(default_state(inbox))
    try:
        runs = {r["trigger"]: r["outcome"] for r in store.runs.last_runs(5)}
        assert runs == {
            "inbox": "ok",
            "manual": "skipped: another run in progress",
            "nightly": "ok",
        }
        # a holder that died on this host (its pid is gone) does not block the next run
        assert store.locks.acquire_run_lock(f"{socket.gethostname()}:999999999:dead") is None
    finally:
        store.close()
    steps.close_run(steps.open_run(settings, RunRequest(inbox=inbox)), "ok")


def test_reports_escape_formulas(tmp_path):
    from dispute_evidence.reports import RunReport, write_report

    evil = pd.DataFrame(
        {
            "provider_dispute_id": ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "ok"],
            "status": ["submitted"] * 5,
        }
    )
    write_report(RunReport("r", "ok", False, {}, evil, []), tmp_path)
    csv_values = pd.read_csv(tmp_path / "disputes.csv")["Dispute"].tolist()
    assert csv_values == ['\'=HYPERLINK("http://x")', "'+1", "'-2", "'@SUM(A1)", "ok"]
    from openpyxl import load_workbook

    ws = load_workbook(tmp_path / "disputes.xlsx").active
    assert [c.value for c in ws["A"]][1:] == csv_values and all(c.data_type == "s" for c in ws["A"])
    assert escape_cell(5) == 5


def test_summary_makes_inbox_text_inert_in_markdown_and_html(tmp_path):
    from dispute_evidence.reports import RunReport, write_report

    name = "![x](http://evil.test/p.png) <img src=x> #1041.pdf"
    problems = [Problem(ProblemKind.FILE_SKIPPED, name, "not a spreadsheet", file=name)]
    summary = write_report(RunReport("r", "ok", False, {}, pd.DataFrame(), problems), tmp_path)
    md = summary.read_text()
    assert (
        "\\!\\[x\\]\\(http://evil.test/p.png\\) \\<img src=x\\> #1041.pdf: not a spreadsheet" in md
    )
    page = (tmp_path / "summary.html").read_text()
    assert "![x](http://evil.test/p.png) &lt;img src=x&gt; #1041.pdf: not a spreadsheet" in page
    assert "<img" not in page


@pytest.mark.integration
def test_serve_schedules_the_nightly_run_and_leaves_the_inbox_to_the_watcher(tmp_path):
    from flows.serve import build_deployments

    cfg = tmp_path / "c.toml"
    cfg.write_text('[schedule]\ncron = "30 1 * * *"\ntimezone = "Europe/Berlin"\n')
    nightly, dropped, approval = build_deployments(tmp_path / "inbox", cfg, None)
    assert approval.name == "approve" and not approval.schedules
    assert nightly.name == "nightly" and dropped.name == "inbox"
    (n_sched,) = nightly.schedules
    assert n_sched.schedule.cron == "30 1 * * *" and n_sched.schedule.timezone == "Europe/Berlin"
    assert "(Europe/Berlin)" in nightly.description  # the UI shows the schedule's zone
    assert not dropped.schedules  # no polling flow runs: the watcher starts it
    assert nightly.concurrency_limit == 1 and dropped.concurrency_limit == 1
    assert dropped.parameters["request"]["inbox"] == str(tmp_path / "inbox")


def test_watcher_stays_quiet_about_evidence_files_already_considered(
    prefect_harness, api_env, tmp_path
):
    from dispute_evidence.watch import new_inbox_files
    from flows.pipeline import evidence_run

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    (inbox / "scan_0007.pdf").write_bytes(b"%PDF-1.4 unlabelled")  # matches no dispute: stays
    assert str(inbox / "scan_0007.pdf") in new_inbox_files(inbox, None, 0)
    evidence_run(RunRequest(inbox=str(inbox)))
    assert (inbox / "scan_0007.pdf").exists()
    assert new_inbox_files(inbox, None, 0) == []  # considered once: no run every 30 s
    (inbox / "dp_test_1 scan.pdf").write_bytes(b"%PDF-1.4 labelled")
    assert new_inbox_files(inbox, None, 0) == [str(inbox / "dp_test_1 scan.pdf")]
