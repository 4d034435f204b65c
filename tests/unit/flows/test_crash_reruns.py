"""A merchant that keeps crashing is not started again forever. (flows/ imports Prefect,
~3.4 s: imported by the test, not at collection, so only the worker running it pays.)"""

from __future__ import annotations

from dispute_evidence.fleet.merchants import MerchantRun


def test_third_crash_in_an_hour_stops_the_automatic_reruns(monkeypatch, tmp_path):
    from flows import pipeline

    merchant = MerchantRun(id="acme", inbox=str(tmp_path), state=str(tmp_path / "s.db"),
                           key="k", token_env="K", budget_url=str(tmp_path / "b.db"))  # fmt: skip
    ran = []
    monkeypatch.setattr(pipeline, "run_merchant", lambda *a, **k: ran.append(a))
    monkeypatch.setattr(pipeline, "_crashes_in_the_last_hour", lambda: 3)
    state = pipeline.merchant_run.fn(merchant, trigger=pipeline.AFTER_CRASH)
    assert state.is_failed() and not ran
    assert "Merchant acme: 3 runs crashed in the last hour" in state.message
    assert "run its deployment by hand" in state.message
    # fewer crashes: tests/e2e/fleet/test_multi_worker.py sees the rerun go ahead and complete
