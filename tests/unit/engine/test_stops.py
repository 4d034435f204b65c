"""Why a run stops sending is typed (exits.py Stop), from the API error that stopped it, in one
place (engine/delivery/stops.py); the exit code is exits.py's one mapping, never the engine's
(issue 47.4: the engine mapped API errors to exit codes itself in run._prove_key and
phase._submit)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dispute_evidence.api import ApiSettings
from dispute_evidence.api.errors import (
    ApiConnectionError,
    ApiUnavailable,
    AuthenticationFailed,
    PermissionDenied,
    UnexpectedResponse,
    WaitTooLong,
)
from dispute_evidence.engine.delivery.stops import stopped_by
from dispute_evidence.engine.delivery.submit import RunAborted, SubmitOutcome
from dispute_evidence.engine.reporting.headline import stop_words
from dispute_evidence.engine.session import SubmitStats
from dispute_evidence.exits import EXIT_AUTH, EXIT_UNREACHABLE, Stop, exit_for
from tests.support.source import nodes_of

API = ApiSettings(base_url="https://api.example.com/v1", token="sk_test_stops_unit")
ENGINE = Path(__file__).parents[3] / "src" / "dispute_evidence" / "engine"

CASES = [
    (AuthenticationFailed("bad key", status=401), Stop.KEY_REFUSED, EXIT_AUTH, "refused the key"),
    (PermissionDenied("not yours", status=403), Stop.KEY_REFUSED, EXIT_AUTH, "refused the key"),
    (RunAborted("The API refused the key while sending"), Stop.KEY_REFUSED, EXIT_AUTH, "while"),
    (ApiConnectionError("connection refused"), Stop.UNREACHABLE, EXIT_UNREACHABLE, "Could not"),
    (ApiUnavailable("503", status=503), Stop.UNREACHABLE, EXIT_UNREACHABLE, "api.example.com"),
    (
        WaitTooLong("asked to wait 2 h", retry_at="2026-11-28T22:00Z"),
        Stop.WAIT_TOO_LONG,
        EXIT_UNREACHABLE,
        "asked to wait 2 h",
    ),
    (
        UnexpectedResponse("a login page answered", status=200),
        Stop.NOT_THE_API,
        EXIT_UNREACHABLE,
        "run again once the API answers",
    ),
]


@pytest.mark.parametrize(("exc", "stop", "code", "words"), CASES)
def test_each_api_error_is_one_typed_stop_with_its_words_and_one_exit_code(exc, stop, code, words):
    why = stopped_by(API, exc, sent=False)
    assert why.stop is stop and words in why.words
    assert exit_for(why.stop) == code
    outcome = SubmitOutcome(SubmitStats(), 1, stopped=why.words, stop=why.stop)
    assert outcome.stop_code == code
    assert stop_words(outcome) == f"stopped: {stop}"
    assert API.token.get_secret_value() not in why.words


def test_a_wait_asked_too_long_says_when_to_run_again():
    why = stopped_by(
        API, WaitTooLong("wait", retry_at="2026-11-28T22:00Z", answer="429"), sent=True
    )
    assert (why.retry_at, why.answer) == ("2026-11-28T22:00Z", "429")
    assert why.keeps_sent  # what was sent before is counted: the API answered


def test_a_redirect_is_a_configuration_error_not_a_stop():
    exc = UnexpectedResponse("The API redirected the request", status=302)
    with pytest.raises(UnexpectedResponse, match="redirected"):
        stopped_by(API, exc, sent=False)


def test_anything_else_is_raised_again():
    with pytest.raises(ZeroDivisionError):
        stopped_by(API, ZeroDivisionError("not the API's"), sent=True)


def test_no_engine_module_names_an_api_exit_code():
    """exits.py maps a Stop to its code; the engine says only the Stop."""
    named = []
    for path in ENGINE.rglob("*.py"):
        for node in nodes_of(path.read_text()):
            if isinstance(node, ast.ImportFrom) and node.module == "dispute_evidence.exits":
                names = {a.name for a in node.names}
                named += [f"{path.name}: {n}" for n in names & {"EXIT_AUTH", "EXIT_UNREACHABLE"}]
    assert not named
