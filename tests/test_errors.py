"""One root error (errors.py): every error the pipeline defines is a DisputeEvidenceError,
carrying the exit code a command ends with and plain lines to say. The API client and the
sandbox have roots of their own."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

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
    assert "dispute_evidence.engine.run" in modules  # engine/ has no __init__: walked by file
    errors = [c for m in modules for c in defined_exceptions(m)]
    assert len(errors) >= 14  # RunLocked ... PacketError: the walk found them
    outside = [
        f"{c.__module__}.{c.__qualname__}"
        for c in errors
        if not issubclass(c, DisputeEvidenceError)
    ]
    assert outside == []


def test_an_error_says_its_heading_before_each_line_and_carries_its_code() -> None:
    from dispute_evidence.engine.run import RunLocked
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
