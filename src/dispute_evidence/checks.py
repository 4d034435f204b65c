"""Why a value the settings (or a merchants file) take is wrong: a cron expression, an IANA
time zone, a state store's database URL, a locale. Each returns None when the value is fine."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from cronsim import CronSim, CronSimError

from dispute_evidence.names import did_you_mean

# Where 01/12 is 12 January (CLDR short date patterns M/d/y); elsewhere day first.
MONTH_FIRST_LOCALES = frozenset(
    {
        "en_US",
        "es_US",
        "en_PH",
        "fil_PH",
        "en_AS",
        "en_GU",
        "en_MP",
        "en_PR",
        "en_UM",
        "en_VI",
        "en_FM",
        "en_MH",
        "en_PW",
    }
)


LOCALE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")


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
        return None  # a SQLite path: importing the settings stays light
    from dispute_evidence.state.database import url_problem

    return url_problem(value)


def locale_problem(value: str) -> str | None:
    """Why `value` is not a locale like 'en_GB', with the fix when case or a dash is all."""
    if LOCALE.fullmatch(value):
        return None
    lang, _, territory = value.replace("-", "_").partition("_")
    fixed = f"{lang.lower()}_{territory.upper()}" if territory else lang.lower()
    hint = f" (did you mean {fixed!r}?)" if LOCALE.fullmatch(fixed) else ""
    return f"{value!r} is not a locale like 'en_GB' (language, underscore, territory){hint}"
