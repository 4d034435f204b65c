"""Identifiers and timestamps shaped as real payment services make them."""

from __future__ import annotations

import secrets
import string
from datetime import UTC, datetime

from dispute_evidence import clock

_ALPHABET = string.ascii_letters + string.digits


def new_id(prefix: str, rng: object | None = None) -> str:
    """A prefixed random id such as `dis_3xZ9...` (24 url-safe characters)."""
    choice = getattr(rng, "choice", None) or secrets.choice
    return prefix + "_" + "".join(choice(_ALPHABET) for _ in range(24))


def iso(ts: datetime) -> str:
    """RFC 3339 UTC timestamp with a `Z` suffix and whole seconds."""
    return ts.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def utcnow() -> datetime:
    """Now, by the pipeline's clock (a simulation in one process moves both sides' calendar)."""
    return clock.now()
