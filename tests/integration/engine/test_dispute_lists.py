"""A dispute that two disputes lists give two different orders (issue 24): held across runs, with
nothing sent for it, until one list is corrected; then it goes on as before, sent once."""

from __future__ import annotations

from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import engine_pass, make_inbox, write_rows

HEADER = ["provider_dispute_id", "order_number", "reason"]


def test_a_conflicting_second_list_holds_the_dispute_until_corrected(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox)
        assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1

        write_rows(inbox / "disputes_team_b.csv", HEADER, [["dp_test_0", "#5001", "general"]])
        prepared, _, _ = engine_pass(store, sb.base_url, inbox)
        row = store.disputes.dispute("dp_test_0")
        assert row["detail"].startswith("held: dispute dp_test_0 is listed for different orders")
        assert (
            "disputes.csv row 2" in row["detail"] and "disputes_team_b.csv row 2" in row["detail"]
        )
        assert {r.file for r in prepared.conflicts} == {"disputes.csv", "disputes_team_b.csv"}
        assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1  # nothing more sent

        write_rows(inbox / "disputes_team_b.csv", HEADER, [["dp_test_0", "#5000", "general"]])
        prepared, _, _ = engine_pass(store, sb.base_url, inbox)
        assert prepared.conflicts == [] and not store.disputes.dispute("dp_test_0")["detail"]
        snap = sb.snapshot()
        assert snap["dp_test_0"]["evidence_updates"] == 1  # same evidence: not sent again
        assert snap["dp_test_1"]["evidence_updates"] == 1
