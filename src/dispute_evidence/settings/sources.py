"""Where the settings come from, besides arguments and the TOML file's own reader: the
client's DISPUTE_API_* names (from the environment and from `.env`), `.env` read as the
environment is, the TOML file without the token, and the token's Prefect Secret block. The
order they are consulted in is `settings.Settings.settings_customise_sources`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    TomlConfigSettingsSource,
)

from dispute_evidence.api.config import ApiSettings, api_environ, env_name
from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import EXIT_USAGE
from dispute_evidence.names import did_you_mean
from dispute_evidence.settings.bounds import out_of_range

DEFAULT_CONFIG = Path("config/dispute-evidence.toml")
CONFIG_ENV = "DISPUTE_EVIDENCE_CONFIG"


class ConfigError(DisputeEvidenceError, ValueError):
    """The configuration is wrong; the message names the file and key."""

    exit_code = EXIT_USAGE
    heading = "Configuration error"


class ApiEnvSource(PydanticBaseSettingsSource):
    """The client's own DISPUTE_API_* names, read from `environ` into the `[api]` section."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str | None]) -> None:
        super().__init__(settings_cls)
        self._values = api_environ({k.upper(): v for k, v in environ.items() if v is not None})

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        try:  # checked here, so that a wrong value is named by its variable, not api.<key>
            ApiSettings.model_validate(self._values)
        except ValidationError as exc:
            raise ConfigError("\n".join(api_problem(e) for e in exc.errors())) from None
        return {"api": self._values} if self._values else {}


class DotEnvSource(DotEnvSettingsSource):
    """`.env`, read as the environment is: its other variables (a database password, ...) are
    none of the settings' business, so they are not "unknown keys"."""

    def __call__(self) -> dict[str, Any]:
        return EnvSettingsSource.__call__(self)


class TomlSource(TomlConfigSettingsSource):
    """The TOML file, which may not hold the token (a file is copied, committed, shared)."""

    def __call__(self) -> dict[str, Any]:
        data = super().__call__()
        api = data.get("api")
        if isinstance(api, dict) and {"token", "DISPUTE_API_TOKEN"} & set(api):
            raise ConfigError(
                f"{self.toml_file_path}: api.token: the token is never read from the config "
                f"file; {API_HINTS['token']}"
            )
        return data


def read_dotenv(path: Any) -> dict[str, str | None]:
    return dict(dotenv_values(path)) if path and Path(path).is_file() else {}


def secret_block(name: str) -> str:
    """The token held in a Prefect Secret block (loaded only when the config names one)."""
    from prefect.blocks.system import Secret

    block: Any = Secret.load(name)  # sync context: a block, not a coroutine
    return str(block.get())


API_HINTS = {
    "token": "export DISPUTE_API_TOKEN=<your API key> (or put it in .env, or set [api] "
    "token_secret_block), or try it locally with --sandbox",
    "base_url": "export DISPUTE_API_BASE_URL=https://<the API>/v1 (or set [api] base_url), "
    "or try it locally with --sandbox",
}


def api_problem(error: Any) -> str:
    """One client-settings error as a line naming its environment variable; never its value
    (a number out of its range excepted: the token is no number)."""
    field = str(error["loc"][0]) if error["loc"] else "?"
    env = f"DISPUTE_API_{field.upper()}"
    if error["type"] == "missing":
        return f"{env} is not set: {API_HINTS.get(field, 'set it')}"
    if why := out_of_range(error, ApiSettings):
        return f"{env}: {why}"
    why = str(error["msg"]).removeprefix("Value error, ")
    return why if why.startswith(env) else f"{env}: {why}"


def client_settings(
    section: ApiSettings, block: str | None, base_url: str | None, token: str | None
) -> ApiSettings:
    """The client's configuration: the `[api]` section, arguments on top, the token from the
    Secret block `block` when no other source gave one. ConfigError names what is missing."""
    values = {k: v for k, v in section if k != "token_secret_block" and v != SecretStr("")}
    values.update({k: v for k, v in (("base_url", base_url), ("token", token)) if v})
    if not token and not section.token.get_secret_value() and block:
        values["token"] = secret_block(block)
    try:
        config = ApiSettings.model_validate(values)
    except ValidationError as exc:  # str(exc) would show the values, the token among them
        raise ConfigError("\n".join(api_problem(e) for e in exc.errors())) from None
    if missing := config.missing():
        raise ConfigError("\n".join(f"{env_name(m)} is not set: {API_HINTS[m]}" for m in missing))
    return config


def explain(error: Any, root: Any) -> str:
    """One pydantic error of the settings model `root` as a line naming the key, with a
    did-you-mean for a misspelt one."""
    loc = [str(p) for p in error["loc"]]
    key = ".".join(loc)
    if error["type"] == "extra_forbidden":
        model: Any = root
        for part in loc[:-1]:
            model = model.model_fields[part].annotation if part in model.model_fields else None
            if model is None:
                break
        known = list(model.model_fields) if model is not None else []
        return f"{key}: unknown key{did_you_mean(loc[-1], known)}"
    if why := out_of_range(error, root):
        return f"{key}: {why}"
    return f"{key}: {str(error['msg']).removeprefix('Value error, ')}"


def find_config(config_file: Path | None = None, inbox: Path | None = None) -> Path | None:
    """The config file, in this order: `config_file` (--config), $DISPUTE_EVIDENCE_CONFIG,
    <inbox>/../config/dispute-evidence.toml, ./config/dispute-evidence.toml; None: defaults.
    One named explicitly must exist."""
    if config_file is not None or (config_file := _env_config()) is not None:
        if not config_file.is_file():
            raise ConfigError(f"{config_file}: config file not found")
        return config_file.resolve()
    candidates = [inbox.expanduser().resolve().parent / DEFAULT_CONFIG] if inbox else []
    for candidate in [*candidates, DEFAULT_CONFIG]:
        if candidate.is_file():
            return candidate.resolve()
    return None


def _env_config() -> Path | None:
    value = os.environ.get(CONFIG_ENV, "").strip()
    return Path(value).expanduser() if value else None
