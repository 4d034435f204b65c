"""Approving from the Prefect UI: the approve deployment's flow, run under the test server."""

from __future__ import annotations

from dispute_evidence.engine.run import run_inbox
from dispute_evidence.engine.state import StateStore
from dispute_evidence.inbox import default_state
from dispute_evidence.request import RunRequest
from dispute_evidence.settings import load_settings
from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox


def test_the_approve_flow_approves_what_it_names_and_fails_on_an_unknown_id(
    prefect_harness, sandbox_factory, tmp_path, monkeypatch
):
    from flows.pipeline import approve_evidence

    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    settings = load_settings(None)
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
    run_inbox(settings, RunRequest(inbox=inbox), api=api)
    refused = approve_evidence(str(inbox), disputes=["dp_nope"], return_state=True)
    assert refused.is_failed() and "dp_nope: unknown dispute" in refused.message
    done = approve_evidence(str(inbox), disputes=["dp_test_1"])  # sent at once, no run needed
    assert done == {"approved": ["dp_test_1"], "refused": [], "sent": ["dp_test_1"]}
    assert [p for p, d in sb.snapshot().items() if d["evidence_updates"]] == ["dp_test_1"]
    with StateStore(default_state(inbox)) as store:
        assert store.dispute("dp_test_1")["status"] == "submitted"
        assert store.dispute("dp_test_0")["status"] == "awaiting_approval"
        assert store.dispute("dp_test_1")["approved_by"].startswith("flow run ")
