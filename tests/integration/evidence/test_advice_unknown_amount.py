"""`[advice] hold_under_amount` with a dispute whose amount nobody knows: it is neither under
nor over the threshold, so it is held and the report says why (the real CLI, the sandbox)."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.evidence.advice import AdvicePolicy, OwnOutcomes, advise
from dispute_evidence.exits import EXIT_NEEDS_YOU, EXIT_OK
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

WHY = (
    "held: amount unknown (no disputed amount in the disputes list, so it is neither under nor "
    "over your hold_under_amount of 100.00; add its amount to the disputes list to decide)"
)


def test_an_unknown_amount_is_neither_under_nor_over_the_threshold():
    policy = AdvicePolicy(dispute_fee=15, hold_under_amount=100)
    assert advise("general", True, None, OwnOutcomes([]), policy).text == WHY
    plain = advise("general", True, None, OwnOutcomes([]), AdvicePolicy(15))  # no threshold
    assert plain.text.startswith("fight: no disputed amount to weigh")


def test_a_blank_amount_is_held_beside_a_small_one_and_the_big_one_goes_once(
    sandbox_factory, tmp_path, monkeypatch
):
    # the API's amounts are the list's (a difference is held and needs a person: issue 39)
    rows = [{**r, "amount": a} for r, a in zip(seed_rows(3), (5000, 30000, 50000), strict=True)]
    sb = sandbox_factory(rows=rows)
    for key, value in {"DISPUTE_API_BASE_URL": sb.base_url, "DISPUTE_API_TOKEN": TOKEN,
                       "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
                       "DISPUTE_EVIDENCE_ADVICE__HOLD_UNDER_AMOUNT": "100",
                       "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_ID": "m_1",
                       "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME": "Acme",
                       "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_WEBSITE": "https://acme.test"}.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount"],
               [["dp_test_0", "#5000", "general", 50], ["dp_test_1", "#5001", "general", ""],
                ["dp_test_2", "#5002", "general", 500]])  # fmt: skip
    for _ in range(2):
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
        # the unknown amount waits for a person (exit 5); the small one is the merchant's rule
        assert "Traceback" not in r.output and r.exit_code == EXIT_NEEDS_YOU, r.output
    updates = {pid: d["evidence_updates"] for pid, d in sb.snapshot().items()}
    assert updates == {"dp_test_0": 0, "dp_test_1": 0, "dp_test_2": 1}
    folder = tmp_path / "inbox.reports" / "latest"
    table = pd.read_csv(folder / "disputes.csv", dtype=str).fillna("").set_index("Dispute")
    assert table.loc["dp_test_1", "Next step"] == WHY
    assert table.loc["dp_test_0", "Next step"].startswith("held: under your fight threshold")
    assert WHY in pd.read_csv(folder / "problems.csv").to_csv()
    assert "dp_test_1" in r.output and "held: amount unknown" in r.output

    # its amount added: it is weighed like any other (over the threshold: sent, once)
    write_rows(inbox / "amounts.csv", ["provider_dispute_id", "order_number", "reason", "amount"],
               [["dp_test_1", "#5001", "general", 300]])  # fmt: skip
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == EXIT_OK, r.output  # dp_test_0 is held by your rule: nothing failed
    updates = {pid: d["evidence_updates"] for pid, d in sb.snapshot().items()}
    assert updates == {"dp_test_0": 0, "dp_test_1": 1, "dp_test_2": 1}
