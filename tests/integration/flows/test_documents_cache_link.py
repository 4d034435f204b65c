"""A documents cache that is a link gets a line (issue 45, item 11): what was read from each
document is never written through it, and the report says which folder to fix, where before
it was skipped without a word. The real CLI against the local API over loopback."""

from __future__ import annotations

from tests.integration.flows.test_state_lines import one_dispute_with_a_policy
from tests.integration.flows.test_store_documents import _problems
from tests.support.cli_helpers import run_cli


def test_a_linked_documents_cache_is_said_and_never_written_through(
    sandbox_factory, tmp_path, monkeypatch
):
    inbox = one_dispute_with_a_policy(sandbox_factory, tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (inbox / ".dispute-evidence").mkdir(exist_ok=True)
    (inbox / ".dispute-evidence" / "documents").symlink_to(elsewhere)
    run_cli("--inbox", str(inbox))
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    problems = _problems(tmp_path)
    said = problems.loc[
        problems["problem"].str.startswith("'.dispute-evidence/documents'"), "problem"
    ]
    assert len(said) == 1, problems
    assert "is a link" in said.iloc[0] and "reads the documents again" in said.iloc[0]
