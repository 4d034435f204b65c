"""Fight or accept: expected value from our own outcomes once there are enough, else a prior;
advice only, unless the merchant sets a threshold, which holds disputes under it (unsent)."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.prepare.case import held_by_advice
from dispute_evidence.engine.reporting.report import dispute_table
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.evidence.advice import (
    MIN_CLOSED,
    PRIOR_WEIGHT,
    PRIORS,
    AdvicePolicy,
    OwnOutcomes,
    advise,
)
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import engine_pass, make_inbox, write_rows

FEE = AdvicePolicy(dispute_fee=15)


def test_the_prior_decides_until_enough_disputes_are_closed():
    few = OwnOutcomes([("product_not_received", True, True)] * (MIN_CLOSED - 1))
    advice = advise("product_not_received", True, 100.0, few, FEE)
    assert (advice.action, advice.p_win, advice.expected) == ("fight", PRIORS["not_received"], 25.0)
    assert advice.text == (
        "fight: expected +25.00 (P(win) 40%, prior for not received; "
        f"{MIN_CLOSED - 1} of yours decided, too few to use)"
    )
    small = advise("fraudulent", False, 50.0, few, FEE)  # 0.20 x 0.5 x 50 - 15 < 0
    assert small.action == "accept" and small.text.startswith("accept: expected -10.00")
    assert advise("fraudulent", True, 50.0, few, FEE, ce3=True).p_win == 0.70


def test_our_own_outcomes_count_once_there_are_enough_shrunk_toward_the_prior():
    decided = [("fraudulent", True, True)] * 15 + [("fraudulent", True, False)] * 5
    own = OwnOutcomes(decided)
    advice = advise("fraudulent", True, 100.0, own, FEE)
    # a beta prior weighing PRIOR_WEIGHT disputes: (15 + 10 x 0.20) / (20 + 10)
    assert advice.p_win == pytest.approx((15 + PRIOR_WEIGHT * 0.20) / (20 + PRIOR_WEIGHT))
    assert (
        "your 20 closed fraudulent disputes with complete evidence, 15 won, shrunk toward the "
        "prior for fraud (20%)" in advice.text
    )
    # incomplete evidence: too few of its own, so the reason's 20 decide, shrunk toward its prior
    weak = advise("fraudulent", False, 100.0, own, FEE)
    assert weak.p_win == pytest.approx((15 + PRIOR_WEIGHT * 0.10) / (20 + PRIOR_WEIGHT))
    assert "your 20 closed fraudulent disputes, 15 won" in weak.text
    many = OwnOutcomes([("fraudulent", True, True)] * 150 + [("fraudulent", True, False)] * 50)
    assert advise("fraudulent", True, 100.0, many, FEE).p_win == pytest.approx(152 / 210)


def test_the_fee_and_threshold_are_settings(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[advice]\ndispute_fee = 40\nhold_under_amount = 20\n")
    assert load_settings(cfg).advice.policy() == AdvicePolicy(40.0, 20.0)
    assert load_settings(None).advice.policy() == AdvicePolicy(15.0, None)


def test_advice_shows_in_the_table_and_holds_only_under_the_threshold(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount"],
               [["dp_test_0", "#5000", "general", 10], ["dp_test_1", "#5001", "general", 500]])  # fmt: skip
    policy = AdvicePolicy(dispute_fee=15, hold_under_amount=20)
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox, send=False, advice=policy)
        held = held_by_advice(store, policy)
        assert held == {"dp_test_0": "held: under your fight threshold (10.00 is under 20.00)"}
        table = dispute_table(store, advice=policy).set_index("provider_dispute_id")
        assert table.loc["dp_test_0", "next_step"] == held["dp_test_0"]
        assert table.loc["dp_test_1", "advice"].startswith("fight: expected +110.00 (P(win) 25%")
        # without a threshold the same dispute is advice only
        plain = dispute_table(store, advice=AdvicePolicy(15)).set_index("provider_dispute_id")
        assert plain.loc["dp_test_0", "advice"].startswith("accept: expected -12.50")
        assert plain.loc["dp_test_0", "next_step"] == "sent by the next run"


def test_a_real_run_sends_nothing_under_the_threshold_and_the_rest_as_usual(
    sandbox_factory, tmp_path
):
    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount"],
               [["dp_test_0", "#5000", "general", 10], ["dp_test_1", "#5001", "general", 500]])  # fmt: skip
    settings = load_settings(None, ingest={"settle_seconds": 0}, advice={"hold_under_amount": 20})
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
    result = run_inbox(
        settings, RunRequest(inbox=inbox, state=str(tmp_path / "s.sqlite3")), api=api
    )
    snap = sb.snapshot()
    assert snap["dp_test_0"]["evidence_updates"] == 0
    assert snap["dp_test_1"]["evidence_updates"] == 1
    with StateStore(tmp_path / "s.sqlite3") as store:
        # held, not lost: lower it to send
        assert store.disputes.dispute("dp_test_0")["status"] == "pending"
    report = pd.read_csv(result.report.parent / "disputes.csv").set_index("Dispute")
    assert report.loc["dp_test_0", "Next step"].startswith("held: under your fight threshold")
    assert report.loc["dp_test_1", "Fight or accept"].startswith("fight: expected +110.00")
    problems = pd.read_csv(result.report.parent / "problems.csv")
    held = problems.loc[problems["dispute"] == "dp_test_0"]
    assert "held: under your fight threshold (10.00 is under 20.00)" in held.to_csv()
    assert "Disputes pending" not in held.to_csv()
    status = CliRunner().invoke(app, ["status", "--state", str(tmp_path / "s.sqlite3")]).output
    assert "Fight or accept" in status and "fight: expected +110.00" in status, status


def test_the_fee_follows_the_days_since_the_dispute_opened():
    from dispute_evidence.evidence.advice import advise as advise_
    from dispute_evidence.policies import AdvicePolicy as Policy

    schedule = ((10, 16.05), (15, 16.50), (20, 17.00), (25, 18.00), (30, 19.00))
    policy = Policy(15.0, None, schedule)
    assert [policy.fee(d) for d in (0, 10, 11, 16, 30, 45, None)] == [
        16.05, 16.05, 16.50, 17.00, 19.00, 19.00, 15.0]  # fmt: skip
    own = OwnOutcomes([])
    early = advise_("product_not_received", True, 100.0, own, policy, days_open=3)
    late = advise_("product_not_received", True, 100.0, own, policy, days_open=28)
    assert early.expected == round(0.40 * 100 - 16.05, 2) and late.expected == 40 - 19.0
    assert "fee 19.00 on day 28 of the dispute" in late.text
    accept = advise_("product_not_received", True, 100.0, own, policy, concede=("refunded",))
    assert accept.action == "accept" and accept.text.startswith("accept: your own records")
