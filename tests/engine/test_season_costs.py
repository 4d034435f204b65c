"""Issue 32: a night's build does not rewrite the closed history (it rewrote every closed
dispute's payload each night, unchanged or not)."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import event, update

from dispute_evidence.engine.schema import disputes
from dispute_evidence.engine.state import StateStore
from dispute_evidence.engine.steps import ingest_inbox_step, prepare_step
from dispute_evidence.evidence import build_evidence
from tests.engine.helpers import make_inbox, options


def test_an_unchanged_closed_dispute_is_not_written_again(tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 30, files=(0, 0))
    store = StateStore(tmp_path / "state.sqlite3")
    opts = options(inbox)
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r"), "r", rebuild=True)
    with store.engine.begin() as c:
        c.execute(update(disputes).values(status="closed", api_status="won"))
    built = build_evidence(store.load_records(), opts.merchant)
    updates: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("UPDATE DISPUTES"):
            updates.append(statement)

    event.listen(store.engine, "before_cursor_execute", count)
    store.sync_disputes(built.payloads, built.incomplete)  # the same payloads again
    assert updates == []
    changed = [replace(p, content_hash="new") if i == 0 else p
               for i, p in enumerate(built.payloads)]  # fmt: skip
    store.sync_disputes(changed, built.incomplete)
    assert len(updates) == 1  # a changed payload is still kept (never sent)
    store.close()
