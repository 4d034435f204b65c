"""A state the program cannot use as it is ends in one line, never a traceback (issue 45,
item 10): a state written by a newer version (its schema ahead of ours) stops the run with one
line saying what to do and exit 1, and changes nothing; a store document's kept row that cannot
be read back is left out with a line in the report while the rest goes on. The real CLI against
the local API over loopback."""

from __future__ import annotations

import sqlite3

from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.inbox import default_state
from dispute_evidence.state.schema import SCHEMA_VERSION
from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.integration.flows.test_store_documents import POLICY_V1, _inbox, _problems
from tests.support.cli_helpers import run_cli, use_sandbox


def one_dispute_with_a_policy(sandbox_factory, tmp_path, monkeypatch):
    """The sandbox as the API with dp_test_0 (credit not processed, ordered 1 November 2025)
    and a refund policy in store/; returns the inbox."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, [("dp_test_0", "credit_not_processed")], ["2025-11-01"])
    text_pdf(inbox / "store" / "refund policy.pdf", [POLICY_V1])
    return inbox


def test_a_state_of_a_newer_schema_ends_in_one_line_and_changes_nothing(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, [("dp_test_0", "credit_not_processed")], ["2025-11-01"])
    run_cli("--inbox", str(inbox))
    state = default_state(inbox)
    with sqlite3.connect(state) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                   (str(SCHEMA_VERSION + 1),))  # fmt: skip
    before = state.read_bytes()

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output and "RuntimeError" not in r.output
    said = [ln for ln in r.output.splitlines() if ln.strip() and not ln.startswith("Config:")]
    assert len(said) == 1, r.output
    assert said[0].startswith("State store problem: the state store ")
    assert f"schema is v{SCHEMA_VERSION + 1}; this version reads up to v{SCHEMA_VERSION}" in said[0]
    assert "Run the version that wrote it" in said[0]
    assert state.read_bytes() == before


def test_a_damaged_store_document_row_is_one_line_and_the_run_goes_on(
    sandbox_factory, tmp_path, monkeypatch
):
    inbox = one_dispute_with_a_policy(sandbox_factory, tmp_path, monkeypatch)
    run_cli("--inbox", str(inbox))
    with sqlite3.connect(default_state(inbox)) as db:
        db.execute("UPDATE store_documents SET dropped = 'yesterday'")

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "Traceback" not in r.output, r.output
    assert r.exit_code in (0, 5), r.output
    problems = _problems(tmp_path)
    said = " ".join(problems.loc[problems["file"] == "store/refund policy.pdf", "problem"])
    assert "a version of it kept in the state store cannot be read" in said, problems
