"""Issue 32: a night's build does not rewrite the closed history (it rewrote every closed
dispute's payload each night, unchanged or not)."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import event, update

from dispute_evidence.api.models import Dispute
from dispute_evidence.engine.delivery.api_views import held_by_api_view, record_views
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.evidence import build_evidence
from dispute_evidence.state.kept import KeptView
from dispute_evidence.state.schema import disputes
from dispute_evidence.state.store import StateStore
from tests.support.engine_helpers import make_inbox, options


def test_an_unchanged_closed_dispute_is_not_written_again(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 30, files=(0, 0))
    store = StateStore(tmp_path / "state.sqlite3")
    opts = options(inbox)
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
    with store.engine.begin() as c:
        c.execute(update(disputes).values(status="closed", api_status="won"))
    built = build_evidence(store.records.load_records(), opts.merchant)
    updates: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("UPDATE DISPUTES"):
            updates.append(statement)

    event.listen(store.engine, "before_cursor_execute", count)
    store.disputes.sync_disputes(built.payloads, built.incomplete)  # the same payloads again
    assert updates == []
    changed = [replace(p, content_hash="new") if i == 0 else p
               for i, p in enumerate(built.payloads)]  # fmt: skip
    store.disputes.sync_disputes(changed, built.incomplete)
    assert len(updates) == 1  # a changed payload is still kept (never sent)
    store.close()


def test_comparing_a_new_disputes_api_view_reads_its_kept_view_not_every_one(tmp_path):
    """The first POST of each new dispute compares its API view (engine/delivery/submit.py): it read
    every kept view of the history, once per new dispute, each night."""
    store = StateStore(tmp_path / "state.sqlite3")
    view = KeptView("fraudulent", 10.0, "usd", "2026-01-01", "tag", "")
    kept = {f"P{i:03}": view for i in range(300)}
    kept["P007"] = view._replace(mismatch="amount: 10.00 in the list, 12.00 at the API")
    store.kept.keep_api_views(kept)
    reads: list[tuple[str, ...]] = []  # what each read of the kept views was bound to

    def count(_conn, _cursor, statement, parameters, *_args):
        if statement.lstrip().upper().startswith("SELECT") and "FROM api_views" in statement:
            reads.append(tuple(parameters))

    api = Dispute(id="dp_1", amount=10.0, currency="usd", reason="fraudulent")
    event.listen(store.engine, "after_cursor_execute", count)
    held = record_views(store, {"P001": (None, api)})
    event.remove(store.engine, "after_cursor_execute", count)
    assert reads == [("P001",)] and held == {}  # no payload: nothing to differ from
    assert list(held_by_api_view(store)) == ["P007"]
    assert list(store.kept.api_views(within=["P300", "P002", "P001"])) == ["P001", "P002"]
    store.close()
