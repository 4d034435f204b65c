"""`dispute-evidence`: the one entry point (the commands register themselves on `app`)."""

from __future__ import annotations

from dispute_evidence.cli import review, run, serve, status  # noqa: F401 - each adds its commands
from dispute_evidence.cli._app import app, main
from dispute_evidence.cli._common import _prefect_api

__all__ = ["_prefect_api", "app", "main"]
