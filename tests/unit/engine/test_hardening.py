"""One bad cell or folder never ends the run; the inbox's own folders are never followed out;
a state store belongs to one inbox, says so when damaged, and marks killed runs crashed."""

from __future__ import annotations

import os
import socket

import pytest

from dispute_evidence.engine import run_steps as steps
from dispute_evidence.engine.prepare.build import Mover, ingest_inbox_step, prepare_step
from dispute_evidence.inbox import UnsafeFolder, archive, default_state, reject, safe_folder
from dispute_evidence.ingest import ingest_file
from dispute_evidence.names import upload_name, visible
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateDamaged, StateError, StateOfAnotherInbox, StateStore
from tests.support.engine_helpers import make_inbox, options, write_rows


def tree(root):
    return {p for p in root.rglob("*")}


def test_a_non_finite_cell_rejects_its_row_only(tmp_path):
    path = tmp_path / "orders.csv"
    header = ["order_number", "product_title", "price", "quantity", "currency_code"]
    write_rows(path, header, [[1, "a", 1, "inf", "USD"], [2, "b", "1e309", 1, "USD"],
                              [3, "c", "-Infinity", 1, "USD"], [4, "d", 2.5, 2, "USD"]])  # fmt: skip
    tables, rejects, _ = ingest_file(path, "orders.csv")
    ((kind, records),) = tables
    assert kind == "orders" and records["order_number"].tolist() == ["4"]
    assert {(r.row, r.column) for r in rejects} == {(2, "quantity"), (3, "price"), (4, "price")}
    assert all("finite" in r.reason or "negative" in r.reason for r in rejects)


def test_file_names_lose_control_and_bidi_characters_when_sent_and_show_them_in_reports():
    assert upload_name("dp_1\u202egnp.pdf") == "dp_1gnp.pdf"
    assert upload_name("new\nline\x07.pdf") == "new line.pdf"
    assert upload_name("\x01\u200f.pdf") == "evidence.pdf"
    assert visible("a\u202eb\x07") == "a<U+202E>b<U+0007>" and visible("plain é") == "plain é"


@pytest.mark.parametrize("folder", ["archive", "rejected", ".dispute-evidence"])
@pytest.mark.parametrize("shape", ["link", "file"])
def test_an_own_folder_that_is_a_link_or_a_file_is_refused(tmp_path, folder, shape):
    inbox, outside = tmp_path / "inbox", tmp_path / "outside"
    inbox.mkdir()
    outside.mkdir()
    if shape == "link":
        (inbox / folder).symlink_to(outside, target_is_directory=True)
    else:
        (inbox / folder).write_text("not a folder")
    (inbox / "a.csv").write_text("x\n")
    with pytest.raises(UnsafeFolder, match=f"'{folder}' in the inbox is a {shape}"):
        if folder == "archive":
            archive(inbox, inbox / "a.csv", "r1")
        elif folder == "rejected":
            reject(inbox, inbox / "a.csv", "why")
        else:
            safe_folder(inbox, folder, "blobs")
    assert (inbox / "a.csv").exists() and list(outside.iterdir()) == []


def test_a_link_deeper_in_an_own_folder_is_refused_too(tmp_path):
    inbox, outside = tmp_path / "inbox", tmp_path / "outside"
    (inbox / "archive").mkdir(parents=True)
    outside.mkdir()
    day = safe_folder(inbox, "archive")
    (inbox / "sub").mkdir()
    (inbox / "sub" / "a.csv").write_text("x\n")
    (day / "2020-01-01").mkdir()
    (day / "2020-01-01" / "r1").symlink_to(outside, target_is_directory=True)
    mover = Mover(inbox, "r1")
    mover._move(inbox / "sub" / "a.csv", "archive", lambda: _archive_on(inbox, "2020-01-01"))
    assert (inbox / "sub" / "a.csv").exists() and list(outside.iterdir()) == []
    assert mover.not_moved and "is a link" in mover.not_moved[0][1]


def _archive_on(inbox, day):
    from dispute_evidence.inbox import _move_into

    return _move_into(inbox, inbox / "sub" / "a.csv", ("archive", day, "r1"))


def test_broken_own_folders_leave_files_in_place_and_say_why(tmp_path):
    inbox, outside = tmp_path / "inbox", tmp_path / "outside"
    make_inbox(inbox, 2)
    outside.mkdir()
    (inbox / "archive").symlink_to(outside, target_is_directory=True)
    (inbox / "rejected").write_text("a file")
    (inbox / "junk.csv").write_text("a,b\n1,2\n")
    store = StateStore(tmp_path / "s.sqlite3")
    out = ingest_inbox_step(store, options(inbox), "r1")
    assert out.new_files == 3 and set(out.folder_problems) == {"archive", "rejected"}
    assert {f for f, _ in out.not_moved} == {
        "disputes.csv",
        "orders.csv",
        "shipments.csv",
        "junk.csv",
    }
    assert list(outside.iterdir()) == [] and (inbox / "junk.csv").exists()


def test_a_state_store_belongs_to_one_inbox(tmp_path):
    settings = load_settings(None)
    first, second = tmp_path / "first", tmp_path / "second"
    make_inbox(first, 1)
    make_inbox(second, 1)
    state = tmp_path / "shared.sqlite3"
    steps.close_run(steps.open_run(settings, RunRequest(inbox=first, state=state)), "ok")
    with pytest.raises(StateOfAnotherInbox) as err:
        steps.open_run(settings, RunRequest(inbox=second, state=state))
    assert str(first.resolve()) in str(err.value) and "--adopt" in str(err.value)
    with StateStore(state) as store:  # the refused run left no lock behind
        assert store.locks.acquire_run_lock("probe") is None
        store.locks.release_run_lock("probe")
        store.disputes.sync_files([{"provider_dispute_id": "dp_1", "sha256": "ab", "file_name": "x.pdf",
                           "size": 1, "mime": "application/pdf",
                           "path": str(first.resolve() / ".dispute-evidence" / "blobs" / "x.pdf")}])  # fmt: skip
    steps.close_run(
        steps.open_run(settings, RunRequest(inbox=second, state=state, adopt=True)), "ok"
    )
    with StateStore(state) as store:  # adopted: stored copies point into the new place
        assert store.disputes.files_of("dp_1")[0]["path"].startswith(str(second.resolve()) + os.sep)


@pytest.mark.parametrize(
    "content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\x00" * 80]
)
def test_a_damaged_state_file_names_itself_and_the_recovery(tmp_path, content):
    path = tmp_path / "inbox.state.sqlite3"
    path.write_bytes(content)
    with pytest.raises(StateDamaged) as err:
        StateStore(path)
    message = str(err.value)
    assert str(path) in message and "damaged" in message
    assert "restore it from a backup" in message and "--reconcile" in message
    assert path.read_bytes() == content  # never touched


def test_status_refuses_a_state_file_that_does_not_exist(tmp_path):
    with pytest.raises(StateError, match="no state file"):
        StateStore(tmp_path / "typo.state.sqlite3", must_exist=True)
    assert not (tmp_path / "typo.state.sqlite3").exists()


def test_a_killed_run_is_marked_crashed_when_the_next_run_takes_the_lock(tmp_path):
    settings = load_settings(None)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    with StateStore(default_state(inbox)) as store:
        dead = f"{socket.gethostname()}:999999999:20260101T000000Z-dead00"
        assert store.locks.acquire_run_lock(dead) is None
        store.runs.start_run("nightly", "20260101T000000Z-dead00")  # then SIGKILL: no finish_run
    ctx = steps.open_run(settings, RunRequest(inbox=inbox))
    steps.close_run(ctx, "ok")
    with StateStore(default_state(inbox)) as store:
        outcomes = {r["run_id"]: r["outcome"] for r in store.runs.last_runs(5)}
    assert outcomes == {"20260101T000000Z-dead00": "crashed", ctx.run_id: "ok"}


def test_the_state_machine_refuses_illegal_moves_loudly(tmp_path):
    from dispute_evidence.state.lifecycle import IllegalTransition

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    with StateStore(tmp_path / "s.sqlite3") as store:
        ingested = ingest_inbox_step(store, options(inbox), "r1")
        prepare_step(store, options(inbox), ingested, "r1", rebuild=True)
        (f,) = store.disputes.files_of("dp_test_0")
        with pytest.raises(IllegalTransition, match="pending -> uploaded"):
            # never without 'sending'
            store.transitions.mark_file_uploaded("dp_test_0", f["sha256"], "file_1")
        store.transitions.mark_file_sending("dp_test_0", f["sha256"])
        store.transitions.mark_file_uploaded("dp_test_0", f["sha256"], "file_1")
        store.transitions.mark_past_due("dp_test_0", "late")
        with pytest.raises(IllegalTransition, match="past_due -> submitted"):
            store.transitions.mark_submitted(
                "dp_test_0", submitted_hash="h", dispute_id="d", attempts=1
            )
        with pytest.raises(IllegalTransition, match="no such row"):
            store.transitions.mark_rejected("dp_nobody", "x", 1)
        assert store.disputes.dispute("dp_test_0")["status"] == "past_due"
