"""Tried as a new user would (issue 24): each first-contact problem, through the real CLI."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.served import healthy
from dispute_evidence.settings import RunRequest
from support.pg import free_port
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox


def _run(*args: str):
    return CliRunner().invoke(app, ["run", *args])


@pytest.fixture
def quick_inbox(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    monkeypatch.delenv("DISPUTE_API_BASE_URL", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    return inbox


def _lines(output: str) -> list[str]:
    """The lines a command said after its first, which names the config file."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines[0].startswith("Config: "), lines
    return lines[1:]


# -- 4: an unreachable API, a missing token, a token with a line break -------------------
@pytest.mark.integration
def test_an_unreachable_api_is_one_line_exit_4_and_a_report_saying_nothing_was_sent(
    quick_inbox, monkeypatch
):
    monkeypatch.setenv("DISPUTE_API_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_API_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("DISPUTE_API_BACKOFF_BASE", "0")
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 4, r.output
    assert "Traceback" not in r.output and TOKEN not in r.output
    said = [line for line in _lines(r.stderr) if "Could not reach the API" in line]
    assert len(said) == 1 and "DISPUTE_API_BASE_URL" in said[0]
    reports = quick_inbox.parent / "inbox.reports" / "latest"
    summary = (reports / "summary.txt").read_text()
    assert "stopped: the API could not be reached" in summary
    assert "Nothing was sent" in summary


def test_a_missing_token_is_one_line_naming_the_variable(quick_inbox, sandbox):
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2  # no base URL either: the one line says both
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DISPUTE_API_BASE_URL", sandbox.base_url)
        r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2, r.output
    assert "pydantic" not in r.output and "validation error" not in r.output
    lines = _lines(r.output)
    assert len(lines) == 1 and "DISPUTE_API_TOKEN is not set" in lines[0], lines


def test_a_token_with_a_trailing_newline_is_used_one_with_a_line_break_inside_refused(
    quick_inbox, sandbox, monkeypatch
):
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sandbox.base_url)
    evil = f"{TOKEN}\r\nX-Injected: 1"
    monkeypatch.setenv("DISPUTE_API_TOKEN", evil)
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 2, r.output
    lines = [line for line in r.output.splitlines() if line.strip()]  # said as the config loads
    assert len(lines) == 1 and lines[0].startswith("Configuration error: DISPUTE_API_TOKEN")
    assert "line break" in lines[0]
    assert TOKEN not in r.output and "header injection" not in r.output
    monkeypatch.setenv("DISPUTE_API_TOKEN", f"  {TOKEN}\n")  # pasted with a newline
    r = _run("--inbox", str(quick_inbox))
    assert r.exit_code == 0, r.output
    assert "2 sent" in r.output


# -- 3: which config file, found in a documented order, said first and in the report -----
def test_config_is_found_beside_the_inbox_from_any_directory_and_named(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG", raising=False)
    site = tmp_path / "site"
    make_inbox(site / "inbox", 2)
    (site / "config").mkdir()
    config = site / "config" / "dispute-evidence.toml"
    config.write_text('[paths]\ninbox = "../inbox"\n[ingest]\nlocale = "en_GB"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = _run("--inbox", str(site / "inbox"), "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == f"Config: {config}"
    (summary_file,) = (site / "inbox.reports").glob("*/summary.txt")  # a dry run's own folder
    summary = summary_file.read_text()
    assert re.search(rf"Config file +{re.escape(str(config))}\n", summary)
    # no --inbox: [paths] inbox of the config named by the environment
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(config))
    r = _run("--dry-run")
    assert r.exit_code == 0, r.output
    assert "would send 2" in r.output
    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG")
    r = _run("--dry-run")  # nothing here, no inbox given: one line says what to do
    assert r.exit_code == 2
    assert _lines(r.output) == ["Give --inbox, or set `inbox` under [paths] in the config."]
    assert r.output.startswith("Config: none: defaults\n")


def test_config_search_order(tmp_path, monkeypatch):
    from dispute_evidence.settings import ConfigError, find_config

    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG", raising=False)
    inbox = tmp_path / "site" / "inbox"
    inbox.mkdir(parents=True)
    here, beside, env, given = (
        tmp_path / "config" / "dispute-evidence.toml",
        tmp_path / "site" / "config" / "dispute-evidence.toml",
        tmp_path / "env.toml",
        tmp_path / "given.toml",
    )
    monkeypatch.chdir(tmp_path)
    assert find_config(None, inbox) is None
    for path in (here, beside, env, given):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    assert find_config(None, None) == here.resolve()
    assert find_config(None, inbox) == beside.resolve()
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(env))
    assert find_config(None, inbox) == env.resolve()
    assert find_config(given, inbox) == given.resolve()
    monkeypatch.setenv("DISPUTE_EVIDENCE_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="missing.toml: config file not found"):
        find_config(None, inbox)


# -- 1: a run right after copying files in reads them -------------------------------------
def test_a_run_right_after_copying_an_inbox_in_sends_what_a_nightly_run_would(
    tmp_path, sandbox_factory, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(4))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "2")
    source = tmp_path / "export"
    files = make_inbox(source, 4)
    inbox = tmp_path / "inbox"
    shutil.copytree(source, inbox, copy_function=shutil.copyfile)  # fresh times, as `cp` does
    r = _run("--inbox", str(inbox))
    assert r.exit_code == 0, r.output
    assert "Waiting up to 2 s for " in r.stderr and "still being written" in r.stderr
    assert "4 sent" in r.stdout and "still being written" not in r.stdout
    assert sb.requests_by_route()["POST /v1/files/upload"] == files + 4  # and 4 summary PDFs


def test_the_headline_never_says_nothing_needs_you_above_unread_files():
    from dispute_evidence.engine.reporting.headline import headline

    assert headline({"evidence_sent": 0, "not_read_yet": 3}, False) == (
        "0 sent · 3 file(s) not read yet (still being written)"
    )
    assert headline({"evidence_sent": 1}, False) == "1 sent · nothing needs you"


# -- 2: the sandbox of an inbox keeps its state across runs ------------------------------
@pytest.mark.integration
def test_two_sandbox_runs_in_a_row_behave_like_two_runs_against_a_real_api(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.delenv("DISPUTE_API_TOKEN", raising=False)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    first = _run("--inbox", str(inbox), "--sandbox")
    assert first.exit_code == 0, first.output
    assert "3 sent" in first.output
    pod = "dp_test_1 proof of delivery.pdf"
    (inbox / pod).write_bytes(b"%PDF-1.4\nsigned for by the customer")
    second = _run("--inbox", str(inbox), "--sandbox")
    assert second.exit_code == 0, second.output
    assert "no longer knows" not in second.output and "dispute id" not in second.output
    assert "2 file(s) uploaded" in second.output  # the proof and a new summary PDF
    third = _run("--inbox", str(inbox), "--sandbox")
    assert third.exit_code == 0 and "0 sent · nothing needs you" in third.output
    with sqlite3.connect(inbox / ".dispute-evidence" / "sandbox.sqlite3") as db:
        names = [r[0] for r in db.execute("SELECT file_name FROM files")]
    assert names.count(pod) == 1


# -- 8: polish ------------------------------------------------------------------------------
def test_help_shows_no_bool_metavar_and_each_command_a_whole_first_sentence():
    r = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "<bool>" not in r.output
    for command in ("run", "deploy", "watch", "serve", "status"):
        sub = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert sub.exit_code == 0 and "<bool>" not in sub.output, command
    listed = {line.split()[1]: line for line in r.output.splitlines() if line.startswith("│ ")}
    for command in ("watch", "deploy"):  # the summary is one whole sentence on its own line
        assert listed[command].rstrip(" │").endswith("."), listed[command]


def test_a_locale_written_with_a_hyphen_gets_a_plain_message_and_a_did_you_mean():
    from dispute_evidence.settings import ConfigError, load_settings

    with pytest.raises(ConfigError) as err:
        load_settings(None, ingest={"locale": "en-GB"})
    assert str(err.value) == (
        "settings: ingest.locale: 'en-GB' is not a locale like 'en_GB' (language, underscore, "
        "territory) (did you mean 'en_GB'?)"
    )


def test_every_mapping_error_is_reported_at_once(tmp_path):
    from dispute_evidence.settings import ConfigError, load_settings

    config = tmp_path / "c.toml"
    config.write_text(
        '[[ingest.mapping]]\nkind = "order"\n'
        '[[ingest.mapping]]\nkind = "orders"\ncolumns = { order_numbr = "No", pric = "P" }\n'
    )
    with pytest.raises(ConfigError) as err:
        load_settings(config)
    lines = str(err.value).splitlines()
    assert any("mapping #1: kind must be one of" in line for line in lines)
    assert any("mapping #2: columns.order_numbr is not a orders field" in line for line in lines)
    assert any("mapping #2: columns.pric is not a orders field" in line for line in lines)


def test_a_sheet_with_other_headers_is_told_which_column_is_which(tmp_path):
    from dispute_evidence.ingest import ingest_paths

    sheet = tmp_path / "disputes.csv"
    sheet.write_text("Dispute ID,Order #,Amount\ndp_1,1001,10\n")
    (reject,) = ingest_paths([sheet], tmp_path).rejects
    assert reject.line() == (
        "disputes.csv: no recognised table: as disputes it lacks required column(s) "
        "order_number, provider_dispute_id (recognised: amount; did you mean 'Order #' for "
        "order_number, 'Dispute ID' for provider_dispute_id?). Rename the headers or add a "
        "mapping in config (see README, 'Your own sheets'): [[ingest.mapping]] kind = "
        '"disputes", columns = { amount = "Amount", order_number = "Order #", '
        'provider_dispute_id = "Dispute ID" }.'
    )


def test_the_dry_run_counts_complete_evidence_apart_from_what_was_sent(quick_inbox):
    r = _run("--inbox", str(quick_inbox), "--dry-run")
    assert r.exit_code == 0, r.output
    assert re.search(r"Evidence complete +2 of 2\n", r.output), r.output
    assert re.search(r"Disputes sent in full so far +0 of 2\n", r.output)


def test_runs_are_named_by_inbox_trigger_and_date(prefect_harness, quick_inbox):
    from datetime import datetime

    from prefect import get_client

    from flows.pipeline import evidence_run

    state = evidence_run(RunRequest(inbox=str(quick_inbox), dry_run=True), return_state=True)
    with get_client(sync_client=True) as client:
        name = client.read_flow_run(state.state_details.flow_run_id).name
    assert name.startswith(f"inbox-manual-{datetime.now():%Y%m%d}-"), name


# -- 6: runs recorded only where this inbox says ------------------------------------------
class _AnyPrefect:
    """A stranger's server on this host: answers 200 to everything, counts what it gets."""

    def __init__(self, variables: dict[str, str] | None = None) -> None:
        import http.server
        import json
        import threading

        hits = self.hits = []
        known = variables or {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def _ok(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                name = self.path.rsplit("/", 1)[-1]
                if "/variables/name/" in self.path and name in known:
                    self.wfile.write(json.dumps({"name": name, "value": known[name]}).encode())
                else:
                    self.wfile.write(b"true")

            do_GET = do_POST = do_PATCH = do_PUT = _ok

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.integration
def test_a_one_off_run_never_records_into_a_prefect_server_nobody_named(quick_inbox, monkeypatch):
    import flows.serve

    stranger = _AnyPrefect()
    try:
        monkeypatch.delenv("PREFECT_API_URL", raising=False)
        # a server answering where `serve` starts one (LOCAL_PREFECT, the address a run used
        # to try): a run nobody pointed at it must not record there
        monkeypatch.setattr(flows.serve, "LOCAL_PREFECT", stranger.url)
        assert healthy(flows.serve.LOCAL_PREFECT)  # it answers: a run that looked would use it
        stranger.hits.clear()
        r = _run("--inbox", str(quick_inbox), "--dry-run")
        assert r.exit_code == 0, r.output
        assert stranger.hits == []
    finally:
        stranger.close()


@pytest.mark.integration
def test_a_run_records_where_this_inbox_serve_records(quick_inbox, monkeypatch):
    from dispute_evidence.cli import _prefect_api
    from dispute_evidence.served import serve_token_name, write_server_marker
    from dispute_evidence.settings import load_settings

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    settings = load_settings(None)
    served = _AnyPrefect({serve_token_name(quick_inbox.resolve()): "t0ken"})
    try:
        assert _prefect_api(quick_inbox, settings) is None  # no serve: in-process
        marker = write_server_marker(quick_inbox.resolve(), served.url, "t0ken")
        assert _prefect_api(quick_inbox.resolve(), settings) == served.url
        marker.write_text(f'{{"api_url": "{served.url}", "pid": 999999999, "token": "t0ken"}}')
        assert _prefect_api(quick_inbox, settings) is None  # that serve has gone
        monkeypatch.setenv("DISPUTE_EVIDENCE_PREFECT__API_URL", "http://127.0.0.1:9/api")
        assert _prefect_api(quick_inbox, load_settings(None)) == "http://127.0.0.1:9/api"
    finally:
        served.close()


# -- 7 and 8: serve says what it does, suggests commands that work, stops cleanly ----------
def _lines_of(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))
    into.put(None)


def _drain(lines: queue.Queue) -> list[str | None]:
    out = []
    while not lines.empty():
        out.append(lines.get())
    return out


def _wait_for(lines: queue.Queue, seen: list[str], text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.1))
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if text in line:
            return line
    raise AssertionError(f"no {text!r} in serve's output:\n" + "\n".join(seen))


def test_serve_prints_each_run_suggests_working_commands_and_stops_cleanly_on_sigterm(
    prefect_harness, sandbox_factory, tmp_path, monkeypatch
):
    from prefect.settings import PREFECT_API_URL

    sb = sandbox_factory(rows=seed_rows(2))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    env = {
        **os.environ,
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
        "DISPUTE_API_BASE_URL": sb.base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "dispute_evidence", "serve", "--inbox", str(inbox)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    lines: queue.Queue = queue.Queue()
    errors: queue.Queue = queue.Queue()
    # One reader per pipe, and nothing else reads them: communicate() beside a reader
    # thread closes the pipe under it (ValueError: I/O operation on closed file).
    readers = [
        threading.Thread(target=_lines_of, args=(proc.stdout, lines), daemon=True),
        threading.Thread(target=_lines_of, args=(proc.stderr, errors), daemon=True),
    ]
    for reader in readers:
        reader.start()
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "nightly now:", 120)
        commands = [line.split(":", 1)[1].split() for line in seen if line.startswith("  ")]
        assert commands, seen
        for words in commands:  # full paths that exist: no `prefect` needed on PATH
            program = next(w for w in words if "/" in w and not w.startswith("PREFECT_"))
            assert Path(program).is_file(), words
        assert not any("$ prefect deployment run" in line for line in seen)
        make_inbox(inbox, 2)
        _wait_for(lines, seen, "inbox run started", 180)
        finished = _wait_for(lines, seen, "inbox run finished", 180)
        assert "2 sent" in finished
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=90)
        for reader in readers:
            reader.join(timeout=30)  # each ends at its pipe's end of file
    err = "\n".join(x for x in _drain(errors) if x is not None)
    assert proc.returncode == 0, err
    assert "never awaited" not in err and "Traceback" not in err, err
    seen += [x for x in _drain(lines) if x is not None]
    assert "serve stopped:" in "\n".join(seen), seen[-5:]


def test_deploy_check_needs_no_pool_and_finds_a_missing_secret_block(
    prefect_harness, tmp_path, monkeypatch
):
    from prefect.blocks.system import Secret
    from prefect.settings import PREFECT_API_URL

    Secret(value="sk_test_present").save("acme-key", overwrite=True)
    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))
    merchants = tmp_path / "merchants.toml"
    body = "".join(
        f'[keys.{k}]\ntoken_secret_block = "{k}-key"\n'
        f'[[merchant]]\nid = "{k}"\ninbox = "{tmp_path / k}"\nkey = "{k}"\n'
        f'state = "{tmp_path / k}.sqlite3"\n'
        for k in ("acme", "globex")
    )
    merchants.write_text(body)
    for k in ("acme", "globex"):
        (tmp_path / k).mkdir()
    r = CliRunner().invoke(app, ["deploy", "--merchants", str(merchants), "--check"])
    assert r.exit_code == 2, r.output
    assert f"{merchants}: Secret block 'globex-key' not found on the Prefect server" in r.stderr
    assert "acme-key" not in r.stderr and "sk_test_present" not in r.output


def test_a_served_run_without_a_token_fails_in_one_line_naming_the_variable(
    prefect_harness, quick_inbox, capfd
):
    from flows.pipeline import evidence_run

    state = evidence_run(RunRequest(inbox=str(quick_inbox), trigger="nightly"), return_state=True)
    assert state.is_failed()
    assert state.message.startswith("Configuration error: DISPUTE_API_BASE_URL is not set")
    out = capfd.readouterr().out
    assert "nightly run started on" in out and "nightly run stopped: configuration error" in out
