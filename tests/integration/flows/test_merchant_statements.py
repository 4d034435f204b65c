"""The merchant's statement (issue 37 item 4; issue 36 finding 7): what the merchant wants the
reviewer to read, from the disputes list's `Statement` column or a `<order> statement.txt`
dropped into the inbox (the file wins; a new version replaces). The API receives it in
additional_evidence and the letter quotes it under its own heading; a notes column never
leaves the inbox. The real CLI against the local API over loopback."""

from __future__ import annotations

import json

from tests.integration.flows.test_case_wins import _inbox, _letter, _rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

NOTES = "INTERNAL: customer says headphones never came, manager ok'd a goodwill credit"
REFUND_WHY = ("The deck came back on 14 October with grip tape applied and scuffed wheels; our "
              "policy refunds unused items only, so no refund is owed.")  # fmt: skip
COLUMN_SAYS = "Cancelled after the renewal, per our records."
FILE_SAYS = "No cancellation reached us before the renewal charge on 1 October."
HEADING = "The merchant's statement"


def _evidence(sb, pid: str) -> dict:
    return sb.snapshot()[pid]["evidence"]


def test_a_statement_column_and_file_reach_the_api_and_the_letter_and_notes_never_do(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(3))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["credit_not_processed", "subscription_canceled", "duplicate"])
    header = ["provider_dispute_id", "order_number", "reason", "amount", "currency",
              "Merchant statement", "Notes"]  # fmt: skip
    write_rows(inbox / "disputes.csv", header, [
        ["dp_test_0", "#5000", "credit_not_processed", 129.0, "USD", REFUND_WHY, NOTES],
        ["dp_test_1", "#5001", "subscription_canceled", 129.0, "USD", COLUMN_SAYS, NOTES],
        ["dp_test_2", "#5002", "duplicate", 129.0, "USD", "", NOTES],
    ])  # fmt: skip
    (inbox / "#5001 statement.txt").write_text(FILE_SAYS + "\n", encoding="utf-8")
    run_cli("--inbox", str(inbox))

    said = {pid: _evidence(sb, pid)["additional_evidence"] for pid in ("dp_test_0", "dp_test_1")}
    assert said["dp_test_0"]["merchant_statement"] == {"text": REFUND_WHY, "from": "disputes list"}
    assert said["dp_test_1"]["merchant_statement"] == {"text": FILE_SAYS, "from": "statement file"}
    assert "merchant_statement" not in _evidence(sb, "dp_test_2").get("additional_evidence", {})

    letter = _letter(sb, "dp_test_0")
    assert HEADING in letter and REFUND_WHY in letter
    # under its own heading, after the arguing points: never one of the facts the exports show
    assert letter.index(HEADING) < letter.index(REFUND_WHY)
    assert REFUND_WHY not in letter.split(HEADING)[0]
    assert FILE_SAYS in _letter(sb, "dp_test_1") and COLUMN_SAYS not in _letter(sb, "dp_test_1")
    # the notes column is internal: in no evidence the API holds, in no letter
    assert "headphones never came" not in json.dumps(sb.snapshot())
    for pid in ("dp_test_0", "dp_test_1"):
        assert "headphones never came" not in _letter(sb, pid)


def test_a_statement_file_dropped_again_replaces_the_one_before(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["credit_not_processed"])
    (inbox / "5000 statement.md").write_text("# Why\n\nThe first **draft**.", encoding="utf-8")
    run_cli("--inbox", str(inbox))
    first = _evidence(sb, "dp_test_0")["additional_evidence"]["merchant_statement"]
    assert first["text"] == "Why\n\nThe first draft."  # Markdown's marks off, its words kept

    (inbox / "5000 statement.md").write_text("The return never arrived.", encoding="utf-8")
    run_cli("--inbox", str(inbox))
    now = _evidence(sb, "dp_test_0")["additional_evidence"]["merchant_statement"]
    assert now["text"] == "The return never arrived."
    assert "The return never arrived." in _letter(sb, "dp_test_0")
    assert "first draft" not in _letter(sb, "dp_test_0")
