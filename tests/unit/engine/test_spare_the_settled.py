"""A run's start freezes the settled objects of its process out of the collector's way
(engine/run_steps.py spare_the_settled), but only a run that has its process to itself."""

from __future__ import annotations

import gc
import threading

from dispute_evidence.engine import run_steps


def test_a_run_on_a_shards_thread_neither_freezes_nor_collects_the_others(monkeypatch):
    """In a shard, sixteen merchants run at once on threads. Before, each one's start made a
    full collection when over SETTLED objects had settled, stopping every run in the process,
    and froze the others' live objects (and their garbage) for the process's life."""
    collected: list[int] = []
    monkeypatch.setattr(run_steps, "SETTLED", 0)  # as if a shard's runs had left many
    monkeypatch.setattr(gc, "collect", lambda *a: collected.append(1) or 0)
    monkeypatch.setattr(gc, "freeze", lambda: collected.append(2))
    worker = threading.Thread(target=run_steps.spare_the_settled)
    worker.start()
    worker.join()
    assert collected == []
    run_steps.spare_the_settled()  # a run with its process to itself (the CLI, a flow run)
    assert collected == [1, 2]
