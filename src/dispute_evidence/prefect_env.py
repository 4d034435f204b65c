"""Prefect is configured through its process environment: it reads PREFECT_* as it is first
imported, and the flow-run processes it starts inherit them. This is the one place the product
sets them (never to hand its own values on: a run's inputs travel in a RunRequest, the
settings are loaded once per process)."""

from __future__ import annotations

import os

CONSOLE_LEVEL = "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"


def quiet() -> None:
    """No analytics (no internet here: it would only log errors); Prefect's own INFO lines
    (task started, finished...) kept off the terminal; the Prefect UI still gets the logs.
    Unless the environment already says otherwise."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault(CONSOLE_LEVEL, "WARNING")


def verbose() -> None:
    """Prefect's INFO lines on the terminal too (`--verbose`), before Prefect is imported."""
    os.environ[CONSOLE_LEVEL] = "INFO"


def use_server(api_url: str) -> None:
    """Record flow runs in the Prefect server at `api_url`, here and in the processes that run
    them, unless PREFECT_API_URL already names one."""
    os.environ.setdefault("PREFECT_API_URL", api_url)


def server() -> str | None:
    """The Prefect server this process records in (PREFECT_API_URL), if one is named."""
    from dispute_evidence.settings.environment import environment

    return environment().prefect_api_url
