"""A run's lock and its dispute leases live as long as its process, and not much longer."""

from __future__ import annotations

import threading

from sqlalchemy import select

from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.engine.run_steps import KeepAlive
from dispute_evidence.state.schema import disputes
from dispute_evidence.state.store import (
    LEASE_SECONDS,
    RUN_LOCK_SECONDS,
    StateStore,
    new_owner,
)
from tests.support.engine_helpers import make_inbox, options


def _leases(store: StateStore) -> dict[str, float | None]:
    with store.engine.connect() as c:
        rows = c.execute(select(disputes.c.provider_dispute_id, disputes.c.lease_expires)).all()
    return {pid: None if expires is None else float(expires) for pid, expires in rows}


def test_keepalive_renews_the_lock_and_this_process_leases_only(tmp_path):
    """Each beat, `every` seconds apart by the store's clock, renews the run lock and this
    process's leases to their full TTL; another machine's lease is left to run out."""
    now = [1_000_000.0]
    make_inbox(tmp_path / "inbox", 3)
    store = StateStore(tmp_path / "state.sqlite3", wall=lambda: now[0])
    opts = options(tmp_path / "inbox")
    prepare_step(store, opts, ingest_inbox_step(store, opts, "r1"), "r1", rebuild=True)
    me = new_owner("r1")
    assert store.locks.acquire_run_lock(me, ttl=1.0) is None
    assert store.locks.claim("dp_test_0", new_owner("sub"), ttl=1.0)  # this process's submitter
    assert store.locks.claim("dp_test_1", "otherhost:4242:sub", ttl=1.0)  # another machine's
    waits: list[float] = []

    def wait(seconds: float) -> bool:  # three beats, then the keeper is stopped
        waits.append(seconds)
        if len(waits) > 3:
            return True
        now[0] += seconds
        return False

    keeper = KeepAlive(store, me, every=30.0, wait=wait).start()
    keeper.stop()  # returns once the keeper's last wait said stop
    assert waits == [30.0, 30.0, 30.0, 30.0]
    # renewed at the 3rd beat
    assert store.locks.run_lock_expires() == 1_000_090.0 + RUN_LOCK_SECONDS
    leases = _leases(store)
    assert leases["dp_test_0"] == 1_000_090.0 + LEASE_SECONDS
    assert leases["dp_test_1"] == 1_000_001.0  # not ours: as it was claimed
    assert leases["dp_test_2"] is None
    # the keeper stopped (its process died): another machine waits for the TTL to run out
    assert store.locks.acquire_run_lock("otherhost:1:r2", ttl=1.0) is not None
    now[0] += RUN_LOCK_SECONDS
    assert store.locks.acquire_run_lock("otherhost:1:r2", ttl=1.0) is None
    store.close()


def test_keepalive_stopped_before_its_first_beat_renews_nothing(tmp_path):
    """stop() ends the real wait at once: a run closed early does not wait out a beat."""
    now = [1_000_000.0]
    with StateStore(tmp_path / "state.sqlite3", wall=lambda: now[0]) as store:
        me = new_owner("r1")
        assert store.locks.acquire_run_lock(me, ttl=1.0) is None
        now[0] += 0.5
        KeepAlive(store, me, every=3600.0).start().stop()  # a real hour's wait, cut short
        assert "run-keepalive" not in {t.name for t in threading.enumerate()}
        assert store.locks.run_lock_expires() == 1_000_001.0


class FlakyLocks:
    """The store's locks part, whose renewals fail when told to (the database not answering)."""

    def __init__(self, fails: list[bool]) -> None:
        self.fails = fails
        self.renewed = 0

    def renew_run_lock(self, owner: str) -> None:
        if self.fails.pop(0):
            raise ConnectionError("connection to server at 127.0.0.1 failed: Connection refused")
        self.renewed += 1

    def renew_leases(self, prefix: str) -> None:
        pass


class FlakyStore:
    def __init__(self, fails: list[bool]) -> None:
        self.locks = FlakyLocks(fails)


def _beats(fails: list[bool]) -> FlakyLocks:
    store, beats = FlakyStore(list(fails)), [len(fails)]

    def wait(seconds: float) -> bool:
        beats[0] -= 1
        return beats[0] < 0

    KeepAlive(store, "me", every=30.0, wait=wait).start().stop()  # type: ignore[arg-type]
    return store.locks


def test_one_missed_renewal_is_tried_again_and_not_said_two_in_a_row_are(caplog):
    """A run whose database stops answering says so itself, in one line: the keeper's one missed
    beat (the lock keeps most of its 120 s) adds no second line. Two in a row put the lock at
    risk, and that is said, once a beat, with how often it failed."""
    caplog.set_level("DEBUG", logger="dispute_evidence.run")
    locks = _beats([False, True, False, True, False])
    assert locks.renewed == 3
    assert [r for r in caplog.records if r.levelname == "WARNING"] == []
    caplog.clear()
    _beats([False, True, True, True])
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(said) == 2
    assert said[0].startswith("could not renew the run lock 2 time(s) in a row, every 30 s")
    assert "lapses 120 s after the last renewal" in said[0] and "Connection refused" in said[0]
