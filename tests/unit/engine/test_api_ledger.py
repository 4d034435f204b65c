"""The state's record of which API holds each dispute's evidence and file (state/apis.py)."""

from __future__ import annotations

import sqlite3

from dispute_evidence.state.apis import UNKNOWN, api_identity
from dispute_evidence.state.store import StateStore


def _seed(path) -> None:
    """A state from before v7: one dispute sent and closed, one file uploaded, no API recorded."""
    StateStore(path).close()
    with sqlite3.connect(path) as c:
        c.execute(
            "INSERT INTO disputes (provider_dispute_id, status, payload_hash, submitted_hash,"
            " dispute_id, api_status, api_due_by) VALUES ('dp_1', 'closed', 'h', 'h', 'du_1',"
            " 'lost', '2030-01-01T00:00:00Z')"
        )
        c.execute(
            "INSERT INTO disputes (provider_dispute_id, status, payload_hash) VALUES"
            " ('dp_2', 'incomplete', 'h2')"
        )
        c.execute(
            "INSERT INTO evidence_files (provider_dispute_id, sha256, file_name, path, size,"
            " status, remote_file_id) VALUES ('dp_1', 'abc', 'a.pdf', '/x/a.pdf', 3,"
            " 'uploaded', 'file_1')"
        )


def test_the_key_never_shows_only_a_fingerprint():
    ident = api_identity("https://api.example.com/v1/", "sk_live_secret")
    assert ident.startswith("https://api.example.com/v1 key:") and "secret" not in ident
    assert ident != api_identity("https://api.example.com/v1", "sk_live_other")


def test_rows_sent_before_the_api_was_recorded_are_adopted_by_the_first_api(tmp_path):
    path = tmp_path / "s.sqlite3"
    _seed(path)
    with StateStore(path) as store:
        assert store.apis.use_api("A") == 0
        assert store.disputes.dispute("dp_1")["status"] == "closed"
        assert store.disputes.dispute("dp_1")["sent_to"] == "A"
        assert store.disputes.files_of("dp_1")[0]["sent_to"] == "A"


def test_another_api_counts_nothing_as_sent_and_checks_files_first(tmp_path):
    path = tmp_path / "s.sqlite3"
    _seed(path)
    with StateStore(path) as store:
        store.apis.use_api("A")
        assert store.apis.use_api("B") == 2  # the dispute and its file
        d, f = store.disputes.dispute("dp_1"), store.disputes.files_of("dp_1")[0]
        assert (d["status"], d["submitted_hash"], d["dispute_id"], d["sent_to"]) == (
            "pending",
            None,
            None,
            None,
        )
        assert d["api_status"] is None and d["api_due_by"] is None  # read from A, not B
        assert (f["status"], f["remote_file_id"]) == ("sending", None)  # listed before upload
        assert store.disputes.dispute("dp_2")["status"] == "incomplete"  # never sent: unchanged
        assert store.apis.recorded_api() == "B" and store.records.needs_rebuild()
        assert store.apis.use_api("B") == 0


def test_a_state_beside_a_sandbox_trial_does_not_adopt_what_it_cannot_place(tmp_path):
    path = tmp_path / "s.sqlite3"
    _seed(path)
    with StateStore(path) as store:
        assert store.apis.use_api("real", adopt_unrecorded=False) == 2
        assert store.disputes.dispute("dp_1")["status"] == "pending"
        assert UNKNOWN not in str(store.disputes.dispute("dp_1"))
