"""A nightly run that meets a running inbox run waits for it, then does its own run."""

from __future__ import annotations

import logging
import re
import threading
import time
from pathlib import Path

import yaml

from dispute_evidence.engine.run_steps import RunResult, run_inbox
from dispute_evidence.inbox import default_state
from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.store import StateStore, open_read_only
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox

ROOT = Path(__file__).resolve().parents[3]


def test_every_deployment_in_prefect_yaml_waits_for_the_lock():
    deployments = yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]
    assert {d["name"] for d in deployments} >= {"nightly", "inbox"}
    runs = [d for d in deployments if d["entrypoint"].endswith(":evidence_run")]
    assert len(runs) >= 2  # (the approve flow records approvals; it takes no run lock)
    assert all(d["parameters"]["request"]["wait_for_lock"] > 0 for d in runs)


def test_a_nightly_run_meeting_a_running_inbox_run_waits_then_finishes(
    sandbox_factory, tmp_path, caplog
):
    slow = SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(300, 400), seed=5)
    sb = sandbox_factory(slow, rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    settings = load_settings(None, ingest={"settle_seconds": 0})
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
    results: dict[str, RunResult] = {}

    def inbox_run() -> None:
        results["inbox"] = run_inbox(settings, RunRequest(inbox=inbox, trigger="inbox"), api=api)

    worker = threading.Thread(target=inbox_run)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not sb.requests_by_route() and time.monotonic() < deadline:
            time.sleep(0.02)  # the inbox run holds the lock once it talks to the API
        assert sb.requests_by_route(), "the inbox run never reached the API"
        with caplog.at_level(logging.INFO, logger="dispute_evidence.run"):
            nightly = run_inbox(
                settings,
                RunRequest(inbox=inbox, trigger="nightly", wait_for_lock=120),
                api=api,
                poll=0.05,
            )
    finally:
        worker.join(timeout=120)
    assert "waiting for run" in caplog.text  # it met the inbox run and waited
    # both did their work (5: the sample's weak evidence still needs a person)
    assert results["inbox"].exit_code in (0, 5) and nightly.exit_code in (0, 5)
    assert results["inbox"].counts["evidence_sent"] == 3
    assert nightly.counts["evidence_sent"] == 0 and nightly.counts["files_uploaded"] == 0
    with open_read_only(default_state(inbox)) as store:
        runs = {r["trigger"]: r for r in store.runs.last_runs(5)}
    assert set(runs) == {"inbox", "nightly"}  # the nightly run was not skipped
    assert runs["inbox"]["outcome"] == results["inbox"].outcome
    assert runs["nightly"]["outcome"] == nightly.outcome
    assert runs["inbox"]["finished_at"] <= runs["nightly"]["started_at"]
    for dispute in sb.snapshot().values():  # nothing sent twice
        assert dispute["evidence_updates"] == 1
        names = [f["file_name"] for f in dispute["files"]]
        assert len(names) == len(set(names))


def test_disputes_another_run_holds_are_counted_and_reported(sandbox_factory, tmp_path):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    settings = load_settings(None, ingest={"settle_seconds": 0})
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
    first = run_inbox(settings, RunRequest(inbox=inbox), api=api)
    assert first.counts["evidence_sent"] == 3 and "locked" not in first.counts
    (inbox / "dp_test_1 invoice.pdf").write_bytes(b"%PDF-1.4 a new file for dp_test_1")
    with StateStore(default_state(inbox)) as store:  # a worker elsewhere is working on it
        assert store.locks.claim("dp_test_1", "elsewhere:4242:20261123T000000Z-other")
    second = run_inbox(settings, RunRequest(inbox=inbox), api=api)
    assert second.counts["locked"] == 1 and second.counts["files_uploaded"] == 0
    summary = (second.report.parent / "summary.md").read_text()
    assert re.search(r"Skipped: another run holds them\W+1", summary)


def test_an_interrupt_while_the_run_opens_is_a_stop_with_nothing_sent(sandbox_factory, tmp_path):
    """Ctrl-C while a new state proves the key (the run's first request): said apart from a
    stop part way (the CLI says "0 sent", a served run says so), recorded `interrupted`, the
    lock released; the next run does it all. SIGINT is Python's own handler here, as the CLI
    sets it (cli/_common.py). Seen once in a full run: the run went on to its end, as if the
    interrupt were never given, which it is not while SIGINT is ignored or handled by another
    handler that a test earlier in this worker may have left (Prefect's process utilities,
    for one, install a SIGINT handler that forwards it to a child process)."""
    import _thread
    import signal

    import pytest

    from dispute_evidence.engine.run_steps import InterruptedAtStart, interrupt_exit_code
    from dispute_evidence.exits import EXIT_INTERRUPTED

    slow = SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(2000, 2000))
    sb = sandbox_factory(slow, rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    settings = load_settings(None, ingest={"settle_seconds": 0})
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)

    over = threading.Event()  # the run has returned: no interrupt any more

    def interrupt_once_asked() -> None:
        deadline = time.monotonic() + 60
        while not sb.requests_by_route() and time.monotonic() < deadline and not over.is_set():
            time.sleep(0.02)
        if not over.is_set():
            _thread.interrupt_main()  # as Ctrl-C: KeyboardInterrupt in the main thread

    found = signal.getsignal(signal.SIGINT)  # put back after the test (None: not Python's)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    asker = threading.Thread(target=interrupt_once_asked, daemon=True)
    try:
        asker.start()
        try:
            done = run_inbox(settings, RunRequest(inbox=inbox, trigger="manual"), api=api)
        except InterruptedAtStart as exc:
            stopped = exc
        else:
            pytest.fail(
                f"not stopped at its start: {done.outcome!r}, requests "
                f"{sb.requests_by_route()}, SIGINT's handler before the test: {found!r}"
            )
    finally:
        over.set()
        asker.join()  # never an interrupt into the next test
        signal.signal(signal.SIGINT, signal.SIG_DFL if found is None else found)
    assert interrupt_exit_code(stopped) == EXIT_INTERRUPTED
    assert list(sb.requests_by_route()) == ["GET /v1/disputes"]  # the key's proof, no more
    with open_read_only(default_state(inbox)) as store:
        assert [r["outcome"] for r in store.runs.last_runs(5)] == ["interrupted"]
    again = run_inbox(settings, RunRequest(inbox=inbox, trigger="manual"), api=api)
    assert again.counts["evidence_sent"] == 2  # the lock was released; the next run did it all
