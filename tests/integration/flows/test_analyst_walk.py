"""The analyst's walk through the real CLI against the sandbox: a dry run that previews and
changes nothing, reports that show the whole current picture and what changed, a bad evidence
file moved to rejected/ and shown on its dispute's row."""

from __future__ import annotations

import hashlib
import sqlite3

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name"]  # fmt: skip


def _dump(path) -> list[str]:
    """The state's content, table by table (a logical check beside the byte-for-byte one)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
        return list(c.iterdump())


def _reports(tmp_path):
    folders = [p for p in (tmp_path / "inbox.reports").iterdir() if p.name != "latest"]
    return sorted(folders, key=lambda p: (p / "summary.md").stat().st_mtime_ns)


def _cli(*args):
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r


def test_dry_run_previews_and_changes_nothing_then_problems_stay_until_fixed(
    sandbox_factory, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    write_rows(
        inbox / "orders_extra.csv",
        ORDERS,
        [[5000, "Gift wrap", "abc", 1, "USD", "c0@example.com", "C 0"]],
    )
    state = tmp_path / "inbox.state.sqlite3"

    # 1. a dry run on a fresh inbox: the whole preview, and no state file at all
    r = _cli("--inbox", str(inbox), "--dry-run")
    assert r.exit_code == 0, r.output
    assert not state.exists() and (inbox / "disputes.csv").exists()
    # dp_test_0's order lost a row (price 'abc'): held, never sent without it
    assert "would send 2" in r.output and "would upload 4 file(s)" in r.output  # + 2 summaries
    (preview,) = _reports(tmp_path)
    disputes = pd.read_csv(preview / "disputes.csv", dtype=str).set_index("Dispute")
    assert len(disputes) == 3 and set(disputes["Next step"][1:]) == {"would send its evidence"}
    assert (
        "orders_extra.csv row 2, column 'price' = 'abc'" in disputes.loc["dp_test_0", "Next step"]
    )
    problems = pd.read_csv(preview / "problems.csv", dtype=str).fillna("")
    assert ((problems["file"] == "orders_extra.csv") & (problems["value"] == "abc")).any()

    # 2. the real run reads the same files and reports the same row problem (not "already seen")
    sb = sandbox_factory(rows=seed_rows(3))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    r = _cli("--inbox", str(inbox))
    # 4 sheets and 3 evidence PDFs: each file read counts once
    assert "New files read (sheets and evidence)" in r.output and "7 (already seen: 0)" in r.output
    assert "2 sent · 4 file(s) uploaded · 2 need you" in r.output  # never "ok" above a problem
    real = _reports(tmp_path)[-1]
    assert "orders_extra.csv row 2, column 'price' = 'abc'" in (real / "summary.txt").read_text()

    # 3. a dry run now: state byte-for-byte the same, the preview says nothing would be sent
    before, dump = hashlib.sha256(state.read_bytes()).hexdigest(), _dump(state)
    r = _cli("--inbox", str(inbox), "--dry-run")
    assert r.exit_code == 0 and "would send 0" in r.output
    assert hashlib.sha256(state.read_bytes()).hexdigest() == before and _dump(state) == dump
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0

    # 4. a quiet real run still shows the open row problem: the whole current picture
    r = _cli("--inbox", str(inbox))
    assert "0 sent · 2 need you" in r.output and "Nothing changed." in r.output
    assert "'price' = 'abc'" in r.output

    # 5. the corrected file replaces it: the problem is resolved, and the report says so
    write_rows(
        inbox / "orders_extra.csv",
        ORDERS,
        [[5000, "Gift wrap", "2.50", 1, "USD", "c0@example.com", "C 0"]],
    )
    r = _cli("--inbox", str(inbox))
    assert "'price' = 'abc'" not in r.output and "nothing needs you" in r.output
    assert "Problems: 0 new, 2 resolved" in r.output, r.output
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1  # sent once, whole
    products = sb.snapshot()["dp_test_0"]["evidence"]["products"]
    assert "Gift wrap" in [p["product_title"] for p in products]
    latest = tmp_path / "inbox.reports" / "latest"
    assert (latest / "summary.html").is_file()
    assert (latest / "run.txt").read_text().strip() == _reports(tmp_path)[-1].name


def test_a_bad_evidence_file_goes_to_rejected_and_shows_on_its_dispute(
    sandbox_factory, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    sb = sandbox_factory(rows=seed_rows(2))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    (inbox / "dp_test_1 tracking.pdf").write_bytes(b"<html>a web page saved as .pdf</html>")

    r = _cli("--inbox", str(inbox))
    assert r.exit_code == 5, r.output  # the rejected file needs a person
    assert not (inbox / "dp_test_1 tracking.pdf").exists()
    reason = (inbox / "rejected" / "dp_test_1 tracking.pdf.reason.txt").read_text()
    assert "not PDF, PNG or JPG" in reason
    assert (inbox / "rejected" / "dp_test_1 tracking.pdf").is_file()  # kept, never deleted
    for _ in range(2):  # on the dispute's row in this report and the next
        report = _reports(tmp_path)[-1]
        disputes = pd.read_csv(report / "disputes.csv", dtype=str).fillna("")
        row = disputes.loc[disputes["Dispute"] == "dp_test_1"].iloc[0]
        assert row["File problems"].startswith("dp_test_1 tracking.pdf: content is not PDF")
        assert "Evidence files moved to rejected/" in (report / "summary.txt").read_text()
        _cli("--inbox", str(inbox))
    names = sorted(f["file_name"] for f in sb.snapshot()["dp_test_1"]["files"])
    assert names == ["dp_test_1-evidence-summary.pdf", "dp_test_1_proof0.pdf"]


def test_configuration_is_checked_before_anything_starts(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[api]\nbase_url = "http://api.example.com/v1"\n'
        '[schedule]\ncron = "0 2 * *"\ntimezone = "Europe/Berln"\n'
        '[[ingest.mapping]]\nkind = "orders"\n'
        'columns = { order_numbr = "No", product_title = "D", price = "P", quantity = "Q" }\n'
    )
    for command in (["run", "--inbox", str(inbox)], ["serve", "--inbox", str(inbox)],
                    ["status", "--inbox", str(inbox)]):  # fmt: skip
        r = CliRunner().invoke(app, [*command, "--config", str(bad)])
        assert r.exit_code == 2, (command, r.output)
        lines = r.output.strip().splitlines()
        assert "Traceback" not in r.output and all(
            line.startswith("Configuration error: ") for line in lines
        )
        text = "\n".join(lines)
        assert "schedule.cron: '0 2 * *' is not a cron expression" in text
        assert "'Europe/Berln' is not an IANA time zone (did you mean 'Europe/Berlin'?)" in text
        assert "api.base_url: plain http:// is only allowed for loopback" in text
        assert "columns.order_numbr is not a orders field (did you mean 'order_number'?)" in text
    assert not (tmp_path / "inbox.state.sqlite3").exists() and (inbox / "disputes.csv").exists()
    typo = tmp_path / "typo.toml"
    typo.write_text("[api]\nrate_limit_per_hor = 100\n")
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--config", str(typo)])
    assert r.exit_code == 2
    assert "api.rate_limit_per_hor: unknown key (did you mean 'rate_limit_per_hour'?)" in r.output
    monkeypatch.setenv("DISPUTE_API_BASE_URL", "http://10.1.2.3/v1")
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert r.output.startswith("Configuration error: DISPUTE_API_BASE_URL: plain http://")


def test_a_refused_key_is_exit_3_in_one_line_even_with_nothing_to_send(
    sandbox_factory, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    sb = sandbox_factory(rows=seed_rows(1))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", "sk_test_wrong_key")
    inbox = tmp_path / "inbox"
    inbox.mkdir()  # nothing to send at all
    r = _cli("--inbox", str(inbox))
    assert r.exit_code == 3, r.output
    config, first, *rest = r.output.strip().splitlines()
    assert config == "Config: none: defaults"  # every command says which config it used
    assert first.startswith("The API refused the key (") and "DISPUTE_API_TOKEN" in first
    assert "sk_test_wrong_key" not in r.output
    assert [line.split(":")[0] for line in rest] == ["Report"]


def test_a_run_without_a_merchant_profile_says_so_first(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    for key in ("MERCHANT_ID", "MERCHANT_NAME", "MERCHANT_WEBSITE"):
        monkeypatch.delenv(f"DISPUTE_EVIDENCE_MERCHANT__{key}")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    r = _cli("--inbox", str(inbox), "--dry-run")
    attention = r.output.split("Needs your attention:")[1].strip().splitlines()
    assert attention[0].startswith("! No merchant profile: [merchant] in the config: no merchant")
    assert "evidence goes without merchant_profile" in attention[0]


def test_watch_needs_a_prefect_server_and_says_so(tmp_path, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tmp_path / "inbox").mkdir()
    r = CliRunner().invoke(app, ["watch", "--inbox", str(tmp_path / "inbox")])
    assert r.exit_code == 2 and "Set PREFECT_API_URL" in r.output and "Traceback" not in r.output
