"""A planted `<inbox>/.dispute-evidence/prefect-server.json` is never followed (issue 30): a
one-off `run` records into a Prefect server only when the marker is this user's (0600), the
serve that wrote it runs, and the server holds that serve's token."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.served import SERVER_MARKER, serve_token_name, write_server_marker
from tests.integration.flows.test_new_user import _AnyPrefect
from tests.support.engine_helpers import make_inbox

pytestmark = pytest.mark.integration  # see the tiers in tests/conftest.py


def _plant(inbox, url: str, token: str, mode: int = 0o600) -> None:
    folder = inbox / ".dispute-evidence"
    folder.mkdir(mode=0o700, exist_ok=True)
    marker = folder / SERVER_MARKER
    marker.write_text(json.dumps({"api_url": url, "pid": os.getpid(), "token": token}))
    marker.chmod(mode)


def test_a_planted_marker_pointing_at_another_server_turns_no_run_into_a_flow_run(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    stranger = _AnyPrefect()  # answers 200 "true" to everything
    try:
        _plant(inbox, stranger.url, "anything")  # a live pid (this one), 0600, any token
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])
        assert r.exit_code == 0, r.output
        assert not [h for h in stranger.hits if "flow_runs" in h or "/logs" in h], stranger.hits
        assert all("/health" in h or "/variables/" in h for h in stranger.hits), stranger.hits
    finally:
        stranger.close()


def test_the_marker_is_followed_only_with_its_serves_token_and_owner_only_mode(tmp_path):
    from dispute_evidence.served import served_prefect_api

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    server = _AnyPrefect({serve_token_name(inbox): "the-token"})
    try:
        write_server_marker(inbox, server.url, "the-token")
        marker = inbox / ".dispute-evidence" / SERVER_MARKER
        assert marker.stat().st_mode & 0o777 == 0o600
        assert served_prefect_api(inbox) == server.url  # this inbox's own serve
        _plant(inbox, server.url, "a-guess")
        assert served_prefect_api(inbox) is None  # the server does not hold that token
        _plant(inbox, server.url, "the-token", mode=0o644)
        assert served_prefect_api(inbox) is None  # not written as serve writes it
        link = inbox / ".dispute-evidence" / "elsewhere.json"
        marker.rename(link)
        marker.symlink_to(link)
        assert served_prefect_api(inbox) is None  # a link is never followed
    finally:
        server.close()


def test_a_marker_owned_by_another_user_is_not_followed_even_to_a_server_with_the_token(
    tmp_path, monkeypatch
):
    """The owner check is what stops a planted marker: another user (here `nobody`) can write
    one with any token, and start a server answering with it. Everything else right (0600, a
    live pid, the server holding the marker's token), the one-off run stays in-process and
    sends that server nothing."""
    import pwd

    import pytest

    from dispute_evidence.served import served_prefect_api

    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    nobody = pwd.getpwnam("nobody")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    server = _AnyPrefect({serve_token_name(inbox): "the-token"})
    try:
        marker = write_server_marker(inbox, server.url, "the-token")
        assert marker is not None and served_prefect_api(inbox) == server.url  # ours: followed
        server.hits.clear()
        os.chown(marker, nobody.pw_uid, nobody.pw_gid)
        assert marker.stat().st_mode & 0o777 == 0o600 and marker.stat().st_uid == nobody.pw_uid
        assert served_prefect_api(inbox) is None
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--dry-run"])
        assert r.exit_code == 0, r.output
        assert server.hits == []  # not even asked for its health or the token
    finally:
        server.close()
