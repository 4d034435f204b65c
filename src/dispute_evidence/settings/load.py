"""Loading the settings: the sources in their order (model.py `Settings`), then the checks
pydantic's field types cannot make, the configuration checked whole before anything starts."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import SettingsConfigDict

from dispute_evidence.checks import cron_problem, database_url_problem, timezone_problem
from dispute_evidence.settings.model import Settings
from dispute_evidence.settings.sources import DEFAULT_CONFIG, ConfigError, explain, find_config


def load_settings(
    config_file: Path | None = None, inbox: Path | None = None, **overrides: Any
) -> Settings:
    """Settings from the config file `find_config` picks, env and overrides, checked whole
    before anything starts: ConfigError names every wrong key."""
    path = find_config(config_file, inbox)
    config = SettingsConfigDict(**{**Settings.model_config, "toml_file": path})
    # a subclass per load carries its file: no module-level state shared between loads
    loaded: type[Settings] = (
        Settings if path is None else type("Settings", (Settings,), {"model_config": config})
    )
    where = str(path or "settings")
    base = path.parent if path else DEFAULT_CONFIG.parent
    try:
        settings = loaded(**overrides)
    except ValidationError as exc:
        lines = [f"{where}: {explain(e, Settings)}" for e in exc.errors()]
        lines += [f"{where}: {p}" for p in _problems_elsewhere(loaded, overrides, exc, base)]
        raise ConfigError("\n".join(lines)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML ({exc})") from None
    problems = check_settings(settings, base)
    if problems:
        raise ConfigError("\n".join(f"{where}: {p}" for p in problems))
    settings._config_file = path
    return settings


def _problems_elsewhere(
    loaded: type[Settings], overrides: dict[str, Any], exc: ValidationError, base: Path
) -> list[str]:
    """The checks pydantic cannot make, on the sections it did not refuse: the configuration is
    checked whole, so a wrong URL does not hide a wrong cron line."""
    refused = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
    try:
        defaults = {  # section objects, not dicts: the sources would be merged key by key
            name: loaded.model_fields[name].get_default(call_default_factory=True)
            for name in refused
        }
        rest = loaded(**{**overrides, **defaults})
    except (ValidationError, tomllib.TOMLDecodeError, KeyError, AttributeError):
        return []
    return [p for p in check_settings(rest, base) if p.split(".", 1)[0] not in refused]


def check_settings(settings: Settings, base: Path) -> list[str]:
    """What pydantic's field types cannot see: cron, timezone, URLs, mapping files and columns.
    One line per problem, each naming its key."""
    out = []
    if why := cron_problem(settings.schedule.cron):
        out.append(f"schedule.cron: {why}")
    if why := timezone_problem(settings.schedule.timezone):
        out.append(f"schedule.timezone: {why}")
    if why := timezone_problem(settings.ingest.timezone):
        out.append(f"ingest.timezone: {why}")
    if settings.paths.state and (why := database_url_problem(settings.paths.state)):
        out.append(f"paths.state: {why}")
    # the mapping entries against ingest's fields; imported here, as it loads pandas (0.6 s)
    # that a command which never reads a sheet (status, --help) must not wait for
    from dispute_evidence.ingest.mappings import MappingError, config_mappings

    try:
        config_mappings(settings.ingest.mapping, settings.ingest.mapping_files, base)
    except MappingError as exc:
        out += str(exc).splitlines()
    return out
