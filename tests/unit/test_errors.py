"""One root error (errors.py): every error the pipeline defines is a DisputeEvidenceError,
carrying the exit code a command ends with and plain lines to say. The API client and the
sandbox have roots of their own."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest
import typer

import dispute_evidence
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import EXIT_FAILED, EXIT_USAGE

ROOT = Path(dispute_evidence.__file__).parent
OWN_ROOTS = ("api", "sandbox")  # their own trees (api/errors.py; the sandbox's HTTP errors)


def pipeline_modules() -> list[str]:
    """Every module of the package outside api/ and sandbox/ (namespace folders too)."""
    names = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in OWN_ROOTS or parts[-1] == "__main__":
            continue
        dotted = parts[:-1] if parts[-1] == "__init__" else parts
        names.append(".".join(("dispute_evidence", *dotted)))
    return names


def defined_exceptions(module: str) -> list[type[Exception]]:
    found = vars(importlib.import_module(module)).values()
    return [
        c
        for c in found
        if inspect.isclass(c) and issubclass(c, Exception) and c.__module__ == module
    ]


def test_every_error_the_pipeline_defines_is_under_the_root() -> None:
    modules = pipeline_modules()
    assert "dispute_evidence.engine.run_steps" in modules  # engine/ has no __init__: walked by file
    errors = [c for m in modules for c in defined_exceptions(m)]
    assert len(errors) >= 14  # RunLocked ... PacketError: the walk found them
    outside = [
        f"{c.__module__}.{c.__qualname__}"
        for c in errors
        if not issubclass(c, DisputeEvidenceError)
    ]
    assert outside == []


def test_an_error_says_its_heading_before_each_line_and_carries_its_code() -> None:
    from dispute_evidence.engine.run_steps import RunLocked
    from dispute_evidence.settings import ConfigError
    from dispute_evidence.state.store import StateError

    config = ConfigError("a.toml: [api] rate: not a number\nb.toml: [ingest] dayfirst: unknown")
    assert config.lines() == [
        "Configuration error: a.toml: [api] rate: not a number",
        "Configuration error: b.toml: [ingest] dayfirst: unknown",
    ]
    assert isinstance(config, ValueError)  # still caught as one where code does
    assert config.exit_code == EXIT_USAGE
    assert StateError("no state file at x").lines() == ["State store problem: no state file at x"]
    assert StateError("x").exit_code == EXIT_FAILED
    assert RunLocked("another run is in progress").lines() == ["another run is in progress"]


def test_the_state_edge_errors_are_under_the_root_with_their_codes() -> None:
    from dispute_evidence.exits import EXIT_DISK_FULL
    from dispute_evidence.state.errors import StateError, StateFull, StateUnavailable

    full = StateFull("/data/inbox.state.sqlite3")
    assert isinstance(full, StateError) and full.exit_code == EXIT_DISK_FULL
    assert full.lines() == [
        "Disk full: cannot write /data/inbox.state.sqlite3. Nothing was lost: what was sent is "
        "recorded, and files not yet read stay in the inbox. Free some space on that disk and "
        "run again: the same state goes on."
    ]
    lost = StateUnavailable("the state database stopped answering (terminated)")
    assert isinstance(lost, StateError) and lost.exit_code == EXIT_FAILED
    assert lost.lines() == [
        "State store problem: the state database stopped answering (terminated)"
    ]


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        ("full", 74, "Disk full: cannot write /s.sqlite3."),
        ("lost", EXIT_FAILED, "State store problem: stopped answering"),
        ("damaged", EXIT_USAGE, "named wrong"),
    ],
)
def test_a_commands_own_code_never_replaces_a_full_disk_or_a_lost_database(
    error: str, code: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`status` and `approve` say a state they cannot open as a usage error (exit 2); a full
    disk is 74 and a lost database 1 there as in a run (the one mapping site, exit_on)."""
    from dispute_evidence.cli._common import exit_on
    from dispute_evidence.state.errors import StateDamaged, StateFull, StateUnavailable

    exc = {
        "full": StateFull("/s.sqlite3"),
        "lost": StateUnavailable("stopped answering"),
        "damaged": StateDamaged("not a database"),
    }[error]
    with pytest.raises(typer.Exit) as ended:
        exit_on(exc, code=EXIT_USAGE, lines=["named wrong"])
    assert ended.value.exit_code == code
    assert capsys.readouterr().err.startswith(said)


def test_a_lost_database_that_led_to_another_error_is_said_as_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from dispute_evidence.cli._common import exit_on
    from dispute_evidence.state.errors import StateUnavailable

    failed = RuntimeError("closing the run failed")
    failed.__cause__ = StateUnavailable("stopped answering")  # as `raise ... from` leaves it
    with pytest.raises(typer.Exit) as ended:
        exit_on(failed)
    assert ended.value.exit_code == EXIT_FAILED
    assert capsys.readouterr().err == "State store problem: stopped answering\n"
