"""What a run will wait for the API (issue 30): a `Retry-After: 3600` stops the run with one line
naming the API's answer and when to run again (the next run resumes, sending each dispute
once); an API that accepts connections but never answers is given up on in seconds."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from typer.testing import CliRunner

from dispute_evidence.api import DisputeEvidenceClient, Evidence
from dispute_evidence.api.errors import WaitTooLong
from dispute_evidence.api.testing import MockTransport, respond
from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox

URL = "http://127.0.0.1:9/v1"


def _run(*args: str):
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r


def _env(monkeypatch, base_url: str) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")


def test_retry_after_an_hour_stops_the_run_in_one_line_and_the_next_run_resumes(
    tmp_path, monkeypatch, sandbox_factory
):
    sb = sandbox_factory(rows=seed_rows(3))
    _env(monkeypatch, sb.base_url)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    sb.config.fail_rate, sb.config.fail_retry_after = 1.0, 3600.0  # every request: 503, wait 1 h
    started = time.monotonic()
    busy = _run("--inbox", str(inbox))
    assert time.monotonic() - started < 60  # not an hour, not six
    assert busy.exit_code == 4, busy.output
    said = [line for line in busy.stderr.splitlines() if "Retry-After" in line]
    assert len(said) == 1, busy.stderr
    assert "answered 503" in said[0] and "60 min" in said[0] and "run again after" in said[0]
    assert all(d["evidence_updates"] == 0 for d in sb.snapshot().values())

    sb.config.fail_rate = 0.0  # the API is back
    again = _run("--inbox", str(inbox))
    assert again.exit_code == 0 and "3 sent" in again.output, again.output
    snap = sb.snapshot()
    assert [d["evidence_updates"] for d in snap.values()] == [1, 1, 1]
    assert all(len(d["files"]) == len({f["file_name"] for f in d["files"]}) for d in snap.values())


def test_a_wait_within_the_budget_is_waited_one_past_it_is_not():
    slept: list[float] = []
    answers = iter([(503, {"Retry-After": "5"}), (200, None), (503, {"Retry-After": "3600"})])

    def handler(request):
        status, headers = next(answers)
        body = {"message": "ok", "dispute_id": "du_1", "provider_dispute_id": "dp_1"}
        return respond(request, status, body if status == 200 else {"message": "busy"}, headers)

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go():
        async with DisputeEvidenceClient(
            URL, TOKEN, transport=MockTransport(handler), sleep=fake_sleep, max_wait=300
        ) as client:
            await client.update_evidence("dp_1", Evidence())
            with pytest.raises(WaitTooLong) as stop:
                await client.update_evidence("dp_1", Evidence())
            return stop.value

    stop = asyncio.run(go())
    assert slept == [5.0]  # the hour was never slept
    assert stop.status == 503 and "asked to wait 60 min" in stop.message
    assert stop.retry_at and stop.retry_at in stop.message and TOKEN not in stop.message


@pytest.fixture
def silent_api():
    """A server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join(timeout=5)
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.integration
def test_an_api_that_never_answers_is_exit_4_in_seconds(tmp_path, monkeypatch, silent_api):
    _env(monkeypatch, silent_api)
    monkeypatch.setenv("DISPUTE_API_CONNECT_TIMEOUT", "2")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    started = time.monotonic()
    r = _run("--inbox", str(inbox))
    took = time.monotonic() - started
    assert r.exit_code == 4, r.output
    said = [line for line in r.stderr.splitlines() if "Could not reach the API" in line]
    assert len(said) == 1 and "DISPUTE_API_BASE_URL" in said[0]
    assert took < 90, took  # a hang guard: two attempts of 2 s and a backoff; not 6 x 30 s


@pytest.mark.parametrize(
    ("retry_after", "stated"),
    [("86400", "24 h"), ("259200", "3 days"), ("http-date", "3 days")],
)
def test_item_12_a_wait_far_ahead_is_stated_as_the_api_asked_it(retry_after, stated):
    """Issue 39, item 12: a Retry-After of a day, or an HTTP date three days ahead, was stated
    as '60 min' (the client cut it to an hour) with a 'run again after' an hour from now."""
    ahead = datetime.now(UTC) + timedelta(days=3)
    header = format_datetime(ahead, usegmt=True) if retry_after == "http-date" else retry_after

    def handler(request):
        return respond(request, 503, {"message": "busy"}, {"Retry-After": header})

    async def go():
        async with DisputeEvidenceClient(
            URL, TOKEN, transport=MockTransport(handler), sleep=_never, max_wait=300
        ) as client:
            with pytest.raises(WaitTooLong) as stop:
                await client.update_evidence("dp_1", Evidence())
            return stop.value

    stop = asyncio.run(go())
    assert f"asked to wait {stated} (Retry-After)" in stop.message, stop.message
    when = datetime.strptime(stop.retry_at or "", "%Y-%m-%d %H:%M UTC").replace(tzinfo=UTC)
    expected = datetime.now(UTC) + timedelta(seconds=86400 if stated == "24 h" else 3 * 86400)
    assert abs((when - expected).total_seconds()) < 600, (when, expected)


async def _never(seconds: float) -> None:
    raise AssertionError(f"slept {seconds} s: a wait past max_wait is never slept")
