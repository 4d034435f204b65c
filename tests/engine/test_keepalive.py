"""A run's lock and its dispute leases live as long as its process, and not much longer."""

from __future__ import annotations

import time

from sqlalchemy import select

from dispute_evidence.engine.run import KeepAlive
from dispute_evidence.engine.schema import disputes
from dispute_evidence.engine.state import StateStore, new_owner
from dispute_evidence.engine.steps import ingest_inbox_step, prepare_step
from tests.engine.helpers import make_inbox, options


def _lock_expires(store: StateStore) -> float:
    expires = store.run_lock_expires()
    assert expires is not None
    return expires


def test_keepalive_renews_the_lock_and_this_process_leases_only(tmp_path):
    make_inbox(tmp_path / "inbox", 3)
    store = StateStore(tmp_path / "state.sqlite3")
    opts = options(tmp_path / "inbox")
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r1"), "r1", rebuild=True)
    me = new_owner("r1")
    assert store.acquire_run_lock(me, ttl=1.0) is None
    assert store.claim("dp_test_0", new_owner("sub"), ttl=1.0)  # this process's submitter
    assert store.claim("dp_test_1", "otherhost:4242:sub", ttl=1.0)  # another machine's
    before = _lock_expires(store)
    keeper = KeepAlive(store, me, every=0.05).start()
    time.sleep(0.3)
    keeper.stop()
    assert _lock_expires(store) > before + 60  # renewed to the full TTL
    with store.engine.connect() as c:
        rows = c.execute(select(disputes.c.provider_dispute_id, disputes.c.lease_expires)).all()
    leases = {pid: expires for pid, expires in rows}
    assert float(leases["dp_test_0"]) > time.time() + 60
    assert float(leases["dp_test_1"]) < time.time() + 1  # not ours: left to expire
    # once the keeper stops (its process died), another machine takes over when the TTL runs out
    assert store.acquire_run_lock("otherhost:1:r2", ttl=1.0) is not None
    store.close()
