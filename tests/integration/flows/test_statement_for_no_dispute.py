"""A statement file for no dispute, or for a disputes row that was refused, gets a line (issue
45, item 11): it is sent nowhere, and the report says which file and what to do, where before
nothing was said. A statement for a listed dispute gets no such line. The real CLI against the
local API over loopback."""

from __future__ import annotations

from tests.integration.flows.test_state_lines import one_dispute_with_a_policy
from tests.integration.flows.test_store_documents import _problems
from tests.support.cli_helpers import run_cli
from tests.support.engine_helpers import write_rows


def test_a_statement_for_no_dispute_is_said(sandbox_factory, tmp_path, monkeypatch):
    inbox = one_dispute_with_a_policy(sandbox_factory, tmp_path, monkeypatch)
    (inbox / "5000 statement.txt").write_text("We refunded nothing because nothing came back.")
    (inbox / "7777 statement.txt").write_text("The customer of 7777 kept the goods.")
    (inbox / "dp_nowhere statement.txt").write_text("Another dispute's words.")
    run_cli("--inbox", str(inbox))
    problems = _problems(tmp_path)
    said = problems.loc[problems["problem"].str.contains("a statement for '"), ["file", "problem"]]
    assert sorted(said["file"]) == ["7777 statement.txt", "dp_nowhere statement.txt"], problems
    assert all("it is sent to no dispute" in p for p in said["problem"])


def test_a_statement_in_a_refused_disputes_row_is_said_lost(sandbox_factory, tmp_path, monkeypatch):
    """A disputes row refused for one bad cell took its Statement cell with it, without a word;
    now the statement gets its own line beside the row's (issue 45 item 11)."""
    inbox = one_dispute_with_a_policy(sandbox_factory, tmp_path, monkeypatch)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
                                        "Statement"], [
        ["dp_test_0", "#5000", "credit_not_processed", "30", "We refunded it on 3 November."],
        ["dp_test_1", "#5001", "credit_not_processed", "thirty", "The goods never came back."],
    ])  # fmt: skip
    run_cli("--inbox", str(inbox))
    problems = _problems(tmp_path)
    lost = problems.loc[problems["problem"].str.contains("merchant's statement in it was not used")]
    assert len(lost) == 1, problems
    assert lost.iloc[0]["value"].startswith("The goods never came back"), lost.to_dict("records")
