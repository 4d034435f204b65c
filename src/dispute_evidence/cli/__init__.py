"""`dispute-evidence`: the one entry point (the commands register themselves on `app`)."""

from __future__ import annotations

# each module adds its commands to the app
from dispute_evidence.cli import review, run_commands, serve, status  # noqa: F401
from dispute_evidence.cli._app import app, main
from dispute_evidence.cli._common import _prefect_api

__all__ = ["_prefect_api", "app", "main"]
