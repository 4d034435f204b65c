"""Approving from the Prefect UI: the approve deployment's flow, run under the test server."""

from __future__ import annotations

from pathlib import Path

from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox


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
        assert store.disputes.dispute("dp_test_1")["status"] == "submitted"
        assert store.disputes.dispute("dp_test_0")["status"] == "awaiting_approval"
        assert store.disputes.dispute("dp_test_1")["approved_by"].startswith("flow run ")


def test_every_text_about_approving_says_it_is_sent_at_once():
    """`approve` and the approve deployment send at once (issue 29): no text a person reads
    says an approval waits for the next run, except where it does (send=false, --no-send, a
    run holding the lock, a dropped sheet)."""
    from dispute_evidence.problems import ProblemKind
    from dispute_evidence.reports.wording import WHAT_TO_DO
    from flows.serve import approval_deployment

    root = Path(__file__).resolve().parents[3]
    shown = approval_deployment({"inbox": "inbox", "config": None, "state": None}).description
    assert "It is sent at once" in shown and "send=false: recorded only" in shown, shown
    yaml = (root / "prefect.yaml").read_text(encoding="utf-8")
    comment = yaml[: yaml.index("- name: approve")].rsplit("\n\n", 1)[-1]
    assert "it is sent at once" in comment and "send: false records it" in comment, comment
    todo = WHAT_TO_DO[ProblemKind.DISPUTE_AWAITING_APPROVAL]
    assert "approve --inbox INBOX <dispute>` (it sends it at once)" in todo, todo
    texts = [
        "src/dispute_evidence/engine/review/approval.py", "src/dispute_evidence/engine/approve.py",
        "src/dispute_evidence/cli/status.py", "flows/pipeline.py", "flows/serve.py",
        "prefect.yaml", "src/dispute_evidence/reports/wording.py",
    ]  # fmt: skip
    said = [
        f"{name}:{i}: {line.strip()}"
        for name in texts
        for i, line in enumerate((root / name).read_text(encoding="utf-8").splitlines(), 1)
        if "sent by the next run" in line or line.rstrip().endswith('The next run sends it.",')
    ]
    assert not said, said
