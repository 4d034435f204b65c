"""Why a value the settings (or a merchants file) take is wrong: a cron expression, an IANA
time zone, a state store's database URL. Each returns None when the value is fine."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from cronsim import CronSim, CronSimError

from dispute_evidence.names import did_you_mean


def cron_problem(cron: str | None) -> str | None:
    """Why `cron` is not a 5-field cron expression (None when it is, or unset)."""
    if not cron:
        return None
    try:
        CronSim(cron, datetime(2026, 1, 1))
    except CronSimError as exc:
        return (
            f"{cron!r} is not a cron expression ({exc}); it needs 5 fields "
            "(minute hour day month weekday), e.g. '0 2 * * *'"
        )
    return None


def timezone_problem(tz: str | None) -> str | None:
    """Why `tz` is not an IANA time zone, with a did-you-mean (None when it is, or unset)."""
    if not tz:
        return None
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zones = available_timezones()
        return (
            f"{tz!r} is not an IANA time zone{did_you_mean(tz, zones)}; "
            "e.g. 'Europe/Berlin' or 'America/New_York'"
        )
    return None


def database_url_problem(value: str) -> str | None:
    """Why a state value is neither a path nor a database URL (None when it is one)."""
    if "://" not in value:
        return None  # a SQLite path
    from sqlalchemy.engine import make_url  # only for a URL: importing the settings stays light
    from sqlalchemy.exc import ArgumentError

    try:
        make_url(value)
    except ArgumentError:
        return "not a path or a database URL (e.g. postgresql+psycopg://user@host/db)"
    return None
