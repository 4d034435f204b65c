"""The review policy a state keeps, and a sweep that trusts only the API's deadline: the real
CLI against the sandbox. Evidence held for review is never released because a setting went
missing; the deadline sweep never sends on a sheet's word."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.exits import EXIT_NEEDS_YOU, EXIT_OK
from dispute_evidence.inbox import default_state
from dispute_evidence.sandbox.ids import iso
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

HOLD = "DISPUTE_EVIDENCE_REVIEW__HOLD"
SWEEP = "DISPUTE_EVIDENCE_REVIEW__SEND_BEFORE_DEADLINE_HOURS"


def _run(inbox: Path) -> str:
    """The run's output after the line naming its config (which always comes first)."""
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "Traceback" not in r.output and r.exit_code in (EXIT_OK, EXIT_NEEDS_YOU), r.output
    config, rest = r.output.split("\n", 1)
    assert config.startswith("Config: ")
    return rest


def _api(sb, monkeypatch) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")


def _updates(sb) -> dict[str, int]:
    return {pid: d["evidence_updates"] for pid, d in sb.snapshot().items()}


def _next_steps(inbox: Path) -> dict[str, str]:
    folder = inbox.parent / "inbox.reports" / "latest"
    table = pd.read_csv(folder / "disputes.csv", dtype=str).fillna("")
    return dict(zip(table["Dispute"], table["Next step"], strict=True))


def test_held_evidence_stays_held_when_the_setting_goes_missing(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(3))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    monkeypatch.setenv(HOLD, "all")
    first = _run(inbox)
    assert not first.startswith("Review:")  # the policy the state takes: nothing to say
    assert _updates(sb) == {"dp_test_0": 0, "dp_test_1": 0, "dp_test_2": 0}

    monkeypatch.delenv(HOLD)  # a cron job without the variable, another working directory
    second = _run(inbox).splitlines()
    assert _updates(sb) == {"dp_test_0": 0, "dp_test_1": 0, "dp_test_2": 0}  # still held
    assert second[0].startswith('Review: this state holds evidence for approval (hold = "all"')
    assert 'settings say hold = "none"' in second[0] and "the state's hold applies" in second[0]
    assert (
        second[1].strip()
        == f'To stop holding: dispute-evidence review --inbox {inbox} --hold "none"'
    )
    latest = tmp_path / "inbox.reports" / "latest"
    page = (latest / "summary.html").read_text()
    assert '<div class="banner need" id="notices">Review: this state holds evidence' in page
    assert (latest / "summary.md").read_text().split("\n")[2].startswith("> **Review: this state")

    shown = CliRunner().invoke(app, ["review", "--inbox", str(inbox)])
    assert shown.exit_code == 0 and 'Review: hold = "all", set by a run on' in shown.output
    off = CliRunner().invoke(app, ["review", "--inbox", str(inbox), "--hold", "none"])
    assert off.exit_code == 0
    assert 'Review: hold = "none", set by the review command on' in off.output

    third = _run(inbox)  # review turned off on purpose: every dispute goes, once
    assert not third.startswith("Review:")
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1, "dp_test_2": 1}
    _run(inbox)
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1, "dp_test_2": 1}


def test_a_stricter_run_raises_the_states_policy_and_a_bad_value_is_refused(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    monkeypatch.setenv(HOLD, "incomplete")  # both are complete: both go
    assert not _run(inbox).startswith("Review:")
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1}
    monkeypatch.setenv(HOLD, "all")
    (inbox / "dp_test_0 receipt.pdf").write_bytes(b"%PDF-1.4\nreceipt" * 20)
    out = _run(inbox).splitlines()
    assert out[0] == (
        'Review: hold = "all" from this run\'s settings; this state had hold = "incomplete", '
        f"set by a run on {datetime.now(UTC):%Y-%m-%d}."
    )
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1}  # the new file waits for approval
    monkeypatch.setenv(HOLD, "incomplete")
    assert _run(inbox).startswith('Review: this state holds evidence for approval (hold = "all"')
    bad = CliRunner().invoke(app, ["review", "--inbox", str(inbox), "--hold", "off"])
    assert bad.exit_code == 2 and "--hold" in bad.output


def test_the_deadline_sweep_never_trusts_the_sheets_deadline(
    sandbox_factory, tmp_path, monkeypatch
):
    """The sheet says dp_test_0 is due in 6 h, the API says 10 days: held, not swept."""
    now = datetime.now(UTC)
    rows = seed_rows(2)  # the API: due in 10 and 11 days
    sb = sandbox_factory(rows=rows)
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "response_due_by"],
               [["dp_test_0", "#5000", iso(now + timedelta(hours=6))],
                ["dp_test_1", "#5001", str(rows[1]["response_due_by"])]])  # fmt: skip
    monkeypatch.setenv(HOLD, "all")
    monkeypatch.setenv(SWEEP, "24")
    _run(inbox)
    assert _updates(sb) == {"dp_test_0": 0, "dp_test_1": 0}  # nothing sent unapproved
    steps = _next_steps(inbox)
    assert "the API has not confirmed its deadline" in steps["dp_test_0"]
    with StateStore(default_state(inbox)) as store:
        assert store.disputes.dispute("dp_test_0")["status"] == "awaiting_approval"
        assert store.disputes.dispute("dp_test_0")["approved_by"] is None


def test_the_sweep_acts_on_the_deadline_the_api_confirmed(sandbox_factory, tmp_path, monkeypatch):
    """Sent once without review; new files then wait for approval. The sheet says 10 days for
    both; the API says dp_test_0 is due in 20 h: known from the first send (its answer names
    the API's dispute, read then), so the sweep sends dp_test_0's new file (and only it), and
    names when it would send dp_test_1's."""
    now = datetime.now(UTC)
    rows = seed_rows(2)
    rows[0]["response_due_by"] = iso(now + timedelta(hours=20))
    sb = sandbox_factory(rows=rows)
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    later = iso(now + timedelta(days=10))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "response_due_by"],
               [["dp_test_0", "#5000", later], ["dp_test_1", "#5001", later]])  # fmt: skip
    _run(inbox)  # no review yet: both go, and the API names them
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1}
    monkeypatch.setenv(HOLD, "all")
    monkeypatch.setenv(SWEEP, "24")
    for i in range(2):
        (inbox / f"dp_test_{i} receipt.pdf").write_bytes(b"%PDF-1.4\nreceipt" * 20 + bytes([i]))
    _run(inbox)  # the confirmed deadline: dp_test_0 is within 24 h of it
    assert _receipts(sb) == {"dp_test_0"}
    _run(inbox)  # and sent once
    assert _receipts(sb) == {"dp_test_0"}
    assert _updates(sb) == {"dp_test_0": 1, "dp_test_1": 1}  # the evidence itself was the same
    with StateStore(default_state(inbox)) as store:
        assert store.disputes.dispute("dp_test_0")["approved_by"] == "deadline sweep"
        assert store.disputes.dispute("dp_test_1")["status"] == "awaiting_approval"
    sweep_day = now + timedelta(days=11, hours=-24)  # from the API's 11 days, not the sheet's 10
    assert (
        f"the deadline sweep sends it from {sweep_day:%Y-%m-%d}" in _next_steps(inbox)["dp_test_1"]
    )


def _receipts(sb) -> set[str]:
    """The disputes whose receipt file reached the API."""
    snap = sb.snapshot()
    return {pid for pid, d in snap.items() if any("receipt" in f["file_name"] for f in d["files"])}


def test_the_policy_for_a_state_in_plain_calls(tmp_path):
    """The rules without a run: the first hold is recorded; less is not applied and is said;
    more raises it; with review off on purpose, a sweep the state once had is not mentioned."""
    from dispute_evidence.engine.review.policy import keep_policy, kept_policy, policy_for_state
    from dispute_evidence.policies import ReviewPolicy

    with StateStore(tmp_path / "s.sqlite3") as store:
        assert policy_for_state(store, ReviewPolicy()) == (ReviewPolicy(), [])
        assert kept_policy(store) is None  # never held: nothing recorded
        policy_for_state(store, ReviewPolicy("incomplete", 24.0))
        applied, lines = policy_for_state(store, ReviewPolicy("none"))
        assert applied == ReviewPolicy("incomplete", None) and len(lines) == 2
        applied, lines = policy_for_state(store, ReviewPolicy("all", 24.0))
        assert applied == ReviewPolicy("all", 24.0) and "this state had" in lines[0]
        assert kept_policy(store).hold == "all"  # type: ignore[union-attr]
        keep_policy(store, "none", 24.0, "the review command")
        assert policy_for_state(store, ReviewPolicy("none")) == (ReviewPolicy("none"), [])
