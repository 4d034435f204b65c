"""Nothing wrong is sent and nothing is counted as sent that the API did not receive: a
planted stored copy, a redirect off the API's origin, a lost state meeting an API that
already holds evidence, formula cells in the dry-run preview. Real runs, real sandbox."""

from __future__ import annotations

import asyncio
import hashlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pandas as pd
import pytest
from aiohttp import web
from typer.testing import CliRunner

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.cli import app
from dispute_evidence.engine.delivery.submit import submit_step
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.state.lifecycle import FileStatus
from dispute_evidence.state.store import StateStore
from tests.conftest import TOKEN, seed_rows
from tests.integration.flows.test_bad_input_fs import assert_sent_once, cli_env, expected_files
from tests.support.engine_helpers import make_inbox, options

PLANTED = b"%PDF-1.4\nplanted by someone else\n"


def _use_api(monkeypatch, base_url: str) -> None:
    for key, value in cli_env(base_url).items():
        monkeypatch.setenv(key, value)


def test_a_planted_stored_copy_is_replaced_before_it_is_registered(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(3))
    _use_api(monkeypatch, sb.base_url)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    expected = expected_files(inbox, 3)
    (sha,) = expected["dp_test_0"]
    planted = inbox / ".dispute-evidence" / "blobs" / sha[:2] / f"{sha}.pdf"
    planted.parent.mkdir(parents=True)
    planted.write_bytes(PLANTED)

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])

    assert r.exit_code == 0, r.output
    assert_sent_once(sb, expected)  # the analyst's bytes went, not the planted ones
    assert hashlib.sha256(planted.read_bytes()).hexdigest() == sha


def test_a_stored_copy_changed_after_registering_is_never_uploaded(sandbox, tmp_path):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    opts = options(inbox)
    with StateStore(tmp_path / "state.sqlite3") as store:
        run_id = store.runs.start_run("test")
        ingested = ingest_inbox_step(store, opts, run_id)
        prepare_step(store, opts, ingested, run_id, rebuild=True)
        (row,) = store.disputes.files_of("dp_test_0")
        Path(row["path"]).write_bytes(PLANTED)  # swapped between registering and sending

        async def send():
            async with DisputeEvidenceClient(sandbox.base_url, TOKEN) as client:
                return await submit_step(store, client, opts)

        stats = asyncio.run(send())
        (after,) = store.disputes.files_of("dp_test_0")
    snap = sandbox.snapshot()
    assert snap["dp_test_0"]["files"] == []  # refused: nothing in its place
    assert [len(snap[p]["files"]) for p in ("dp_test_1", "dp_test_2")] == [1, 1]
    assert stats.failed == 1 and after["status"] == FileStatus.PENDING
    assert "not the file registered" in after["last_error"]


def test_the_dry_run_preview_escapes_formula_names(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    (inbox / "=HYPERLINK(dp_test_0).pdf").write_bytes(b"%PDF-1.4\nformula 1\n")
    (inbox / "+SUM(dp_test_1).pdf").write_bytes(b"%PDF-1.4\nformula 2\n")

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])

    assert r.exit_code == 0, r.output
    report = next((tmp_path / "inbox.reports").iterdir())
    cells = pd.read_csv(report / "file_matches.csv", dtype=str).fillna("")
    values = [v for col in cells.columns for v in cells[col]]
    assert not [v for v in values if v[:1] in ("=", "+", "-", "@")], values
    assert {"'=HYPERLINK(dp_test_0).pdf", "'+SUM(dp_test_1).pdf"} <= set(values)


class LoopbackServers:
    """Two small servers on loopback, in one thread: a front for the configured API (reads go
    to the sandbox; every POST is answered 307 to another origin) and that other origin,
    which takes any POST as done and counts it."""

    def __init__(self, sandbox_url: str) -> None:
        self.sandbox_origin = sandbox_url.removesuffix("/v1")
        self.elsewhere_got: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runners: list[web.AppRunner] = []

    async def _front(self, request: web.Request) -> web.StreamResponse:
        if request.method == "POST":
            raise web.HTTPTemporaryRedirect(self.elsewhere + request.path_qs)
        headers = {"Authorization": request.headers["Authorization"]}
        url = self.sandbox_origin + request.path_qs
        async with aiohttp.ClientSession() as s, s.get(url, headers=headers) as r:
            body = await r.read()
            return web.Response(body=body, status=r.status, content_type="application/json")

    async def _elsewhere(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.elsewhere_got.append(request.path)
        pid = "dp_test_0"
        done = {"message": "ok", "dispute_id": "du_x", "provider_dispute_id": pid}
        done["file"] = {"id": "file_x", "url": "http://x/file_x", "name": "x.pdf"}
        return web.json_response(done)

    async def _serve(self, handler) -> str:
        server = web.Application()
        server.router.add_route("*", "/{tail:.*}", handler)
        runner = web.AppRunner(server)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self.runners.append(runner)
        return f"http://127.0.0.1:{runner.addresses[0][1]}"

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def __enter__(self) -> str:
        self.thread.start()
        self.elsewhere = self._run(self._serve(self._elsewhere))
        return self._run(self._serve(self._front)) + "/v1"

    def __exit__(self, *_: object) -> None:
        for runner in self.runners:
            self._run(runner.cleanup())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_a_redirect_off_the_api_is_not_followed_nor_counted_as_sent(
    sandbox_factory, tmp_path, monkeypatch
):
    configured = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    servers = LoopbackServers(configured.base_url)
    with servers as front:
        _use_api(monkeypatch, front)
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])

    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    snap = configured.snapshot()
    assert all(d["evidence_updates"] == 0 and not d["files"] for d in snap.values())
    assert servers.elsewhere_got == []  # the redirect was not followed
    assert r.output.removeprefix("Config: none: defaults\n").startswith("0 sent"), r.output
    report = next(p for p in (tmp_path / "inbox.reports").iterdir() if p.name != "latest")
    problems = (report / "problems.csv").read_text()
    assert "redirected the request to" in problems and "DISPUTE_API_BASE_URL" in problems


class RedirectingEverything(LoopbackServers):
    async def _front(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPPermanentRedirect(self.elsewhere + request.path_qs)


def test_an_api_address_that_redirects_everything_is_one_line(sandbox, tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    servers = RedirectingEverything(sandbox.base_url)
    with servers as front:
        _use_api(monkeypatch, front)
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 2, r.output
    (line,) = [x for x in r.output.strip().splitlines() if not x.startswith("Config: ")]
    assert line.startswith("Configuration error: The API redirected the request to http://")
    assert "DISPUTE_API_BASE_URL" in line and servers.elsewhere_got == []


def test_a_lost_state_meets_the_api_s_evidence_and_sends_no_file_twice(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(3))
    _use_api(monkeypatch, sb.base_url)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    expected = expected_files(inbox, 3)
    assert CliRunner().invoke(app, ["run", "--inbox", str(inbox)]).exit_code == 0
    for path in tmp_path.glob("inbox.state.sqlite3*"):
        path.unlink()  # the state is lost ...
    for path in [p for p in (inbox / "archive").rglob("*") if p.is_file()]:
        target = inbox / path.name
        shutil.copy(path, target)  # ... and the analyst drops everything again

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])

    assert r.exit_code == 0, r.output
    snap = sb.snapshot()
    for pid, hashes in expected.items():
        assert sorted(f["sha256"] for f in snap[pid]["files"]) == sorted(hashes), pid
        assert snap[pid]["evidence_updates"] == 2  # re-sent whole: harmless, a full upsert


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_says_so_and_the_next_one_finishes(sandbox_factory, tmp_path, sig, code):
    slow = SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(150, 150))
    sb = sandbox_factory(slow, rows=seed_rows(8))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 8)
    expected = expected_files(inbox, 8)
    env = {**cli_env(sb.base_url), "DISPUTE_EVIDENCE_API__CONCURRENCY": "1"}
    cmd = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # one at a time: a second update means the first one's answer was recorded
        while sum(d["evidence_updates"] for d in sb.snapshot().values()) < 2:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(sig)  # part way: at least one sent, most not
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == code, out + err
    assert "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    assert last.startswith("Interrupted: ") and last.endswith("sent so far; run again to finish")
    sent_first = int(last.split()[1])
    assert 1 <= sent_first < 8
    with StateStore(tmp_path / "inbox.state.sqlite3") as store:
        assert store.runs.last_runs(1)[0]["outcome"] == "interrupted"
    report = next(p for p in (tmp_path / "inbox.reports").iterdir() if p.name != "latest")
    assert last in (report / "summary.txt").read_text()
    # what this run asked of the API before it stopped: the key check and each update at least
    summary = (report / "summary.txt").read_text()
    counted = next(line for line in summary.splitlines() if "API requests" in line)
    assert int(re.findall(r"\d+", counted)[-1]) >= 1 + sent_first, counted

    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)

    assert again.returncode == 0, again.stdout + again.stderr
    snap = sb.snapshot()
    for pid, hashes in expected.items():  # every file exactly once, every dispute sent
        assert sorted(f["sha256"] for f in snap[pid]["files"]) == sorted(hashes), pid
        # a request cut off after the API applied it is re-sent whole (harmless upsert)
        assert 1 <= snap[pid]["evidence_updates"] <= 2, pid
