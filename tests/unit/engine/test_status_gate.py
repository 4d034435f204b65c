"""The state machine is a gate (issue 38): every write of a status goes through
state/transitions.py and takes its from-set from state/lifecycle.py's tables, so a move they do
not draw is refused (one row) or cannot match (a bulk move), and nothing is written."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import select

from dispute_evidence.state.lifecycle import SWITCH_DISPUTE_MOVES, IllegalTransition
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F
from dispute_evidence.state.schema import disputes
from dispute_evidence.state.store import StateStore
from dispute_evidence.state.transitions import (
    move_dispute,
    move_disputes,
    move_files,
    new_disputes,
    new_files,
)


def _state(path, *rows: tuple[str, str]) -> StateStore:
    """A state holding disputes (pid, status), each with one file 'pending'."""
    StateStore(path).close()
    with sqlite3.connect(path) as c:
        for pid, status in rows:
            c.execute(
                "INSERT INTO disputes (provider_dispute_id, status, payload_hash) VALUES (?,?,'h')",
                (pid, status),
            )
            c.execute(
                "INSERT INTO evidence_files (provider_dispute_id, sha256, file_name, path, size)"
                " VALUES (?, 'abc', 'a.pdf', '/x/a.pdf', 3)",
                (pid,),
            )
    return StateStore(path)


def _statuses(store: StateStore) -> dict[str, str]:
    with store.engine.connect() as c:
        q = select(disputes.c.provider_dispute_id, disputes.c.status)
        return {pid: status for pid, status in c.execute(q)}


def test_a_from_set_outside_the_table_is_refused_before_anything_is_written(tmp_path):
    with _state(tmp_path / "s.sqlite3", ("dp_1", "closed")) as store:
        with pytest.raises(IllegalTransition, match="closed -> pending"), store.engine.begin() as c:
            move_disputes(c, D.PENDING, frm={D.CLOSED})
        with (
            pytest.raises(IllegalTransition, match="uploaded -> pending"),
            store.engine.begin() as c,
        ):
            move_files(c, F.PENDING, frm={F.UPLOADED})
        assert store.disputes.dispute("dp_1")["status"] == "closed"


def test_a_bulk_move_leaves_every_row_the_table_does_not_allow_to_move(tmp_path):
    with _state(tmp_path / "s.sqlite3", ("dp_1", "closed"), ("dp_2", "submitted")) as store:
        with store.engine.begin() as c:
            assert move_disputes(c, D.PENDING, detail=None) == 1  # submitted -> pending only
            assert move_files(c, F.UPLOADED) == 0  # pending -> uploaded: never
        assert _statuses(store) == {"dp_1": "closed", "dp_2": "pending"}
        assert {
            f["status"] for f in store.disputes.files_of("dp_1") + store.disputes.files_of("dp_2")
        } == {"pending"}


def test_one_dispute_in_a_state_the_table_does_not_allow_is_an_illegal_transition(tmp_path):
    with _state(tmp_path / "s.sqlite3", ("dp_1", "closed")) as store:
        with (
            pytest.raises(IllegalTransition, match=r"'dp_1'.*closed -> pending"),
            store.engine.begin() as c,
        ):
            move_dispute(c, "dp_1", D.PENDING)
        with pytest.raises(IllegalTransition, match="no such row"), store.engine.begin() as c:
            move_dispute(c, "dp_none", D.PENDING)
        assert store.disputes.dispute("dp_1")["status"] == "closed"


def test_a_new_row_starts_only_where_the_table_says(tmp_path):
    with _state(tmp_path / "s.sqlite3") as store:
        with (
            pytest.raises(IllegalTransition, match=r"\(new\) -> submitted"),
            store.engine.begin() as c,
        ):
            new_disputes(c, [({"provider_dispute_id": "dp_9"}, D.SUBMITTED)])
        row = {
            "provider_dispute_id": "dp_9",
            "sha256": "f",
            "file_name": "f",
            "path": "",
            "size": 1,
        }
        with (
            pytest.raises(IllegalTransition, match=r"\(new\) -> uploaded"),
            store.engine.begin() as c,
        ):
            new_files(c, [row], F.UPLOADED)
        with store.engine.begin() as c:
            assert c.execute(disputes.select()).first() is None


def test_closed_to_pending_is_a_move_of_the_api_switch_only(tmp_path):
    assert D.CLOSED in SWITCH_DISPUTE_MOVES[D.PENDING]
    with _state(tmp_path / "s.sqlite3", ("dp_1", "closed")) as store, store.engine.begin() as c:
        assert move_disputes(c, D.PENDING) == 0  # the ordinary table: closed is final
        assert move_disputes(c, D.PENDING, moves=SWITCH_DISPUTE_MOVES) == 1


def test_a_file_in_its_packet_stays_there_when_the_api_changes(tmp_path):
    """A document tried on its own once (so stamped with API A), then put in the packet: at
    API B it is not sent on its own ('sending' would upload it beside the packet); it only
    forgets A."""
    with _state(tmp_path / "s.sqlite3", ("dp_1", "pending")) as store:
        store.apis.use_api("A")
        store.transitions.mark_file_sending("dp_1", "abc")
        store.transitions.mark_file_pending("dp_1", "abc", "timed out")
        assert store.generated.pack_documents(True) == 1
        assert store.apis.use_api("B") == 1
        f = store.disputes.files_of("dp_1")[0]
        assert (f["status"], f["sent_to"], f["last_error"]) == ("in_packet", None, None)
