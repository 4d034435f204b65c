"""Fixtures every flow and CLI test gets, whatever its tier: each tier's `flows/conftest.py`
imports them (the session's one Prefect test server is `prefect_harness` in tests/conftest.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner


def _unbind_closed_streams() -> None:
    import logging
    import sys

    from prefect.logging.handlers import PrefectConsoleHandler

    loggers = [logging.getLogger(), *map(logging.getLogger, list(logging.root.manager.loggerDict))]
    for handler in {h for lg in loggers for h in getattr(lg, "handlers", [])}:
        if isinstance(handler, logging.StreamHandler) and getattr(handler.stream, "closed", False):
            handler.stream = sys.__stderr__  # setStream would flush the closed one
            if isinstance(handler, PrefectConsoleHandler):
                handler.console.file = sys.__stderr__


@pytest.fixture(autouse=True)
def _prefect_console_outlives_cli_runner(monkeypatch):
    """Log handlers set up during a CliRunner invocation keep its stderr, which is closed
    afterwards: the next flow run's logs would then recurse on errors. After every invocation
    (several in one test, too), such handlers are pointed back at the real stderr."""
    invoke = CliRunner.invoke

    def invoke_then_unbind(self, *args, **kwargs):
        try:
            return invoke(self, *args, **kwargs)
        finally:
            _unbind_closed_streams()

    monkeypatch.setattr(CliRunner, "invoke", invoke_then_unbind)
    yield
    _unbind_closed_streams()


@pytest.fixture(autouse=True)
def _a_merchant_profile(monkeypatch):
    """Runs here have a merchant profile, as a configured install does (a test that checks the
    warning for a missing one removes it)."""
    for key, value in (("MERCHANT_ID", "m_1"), ("MERCHANT_NAME", "Acme"),
                       ("MERCHANT_WEBSITE", "https://acme.test")):  # fmt: skip
        monkeypatch.setenv(f"DISPUTE_EVIDENCE_MERCHANT__{key}", value)
