"""Configuration: one Settings model with sections, validated at start.

Sources, highest first: arguments > environment (DISPUTE_EVIDENCE_<SECTION>__<KEY>, and the
client's own DISPUTE_API_*) > the TOML file (config/dispute-evidence.toml by default).
The API token is never read from TOML: environment or a Prefect Secret block only.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from dispute_evidence.api import ApiSettings, MerchantProfile
from dispute_evidence.ingest.layouts import Mapping
from dispute_evidence.ingest.mappings import MappingError, parse_mappings

DEFAULT_CONFIG = Path("config/dispute-evidence.toml")


class ConfigError(ValueError):
    """The configuration is wrong; the message names the file and key."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApiSection(_Section):
    base_url: str | None = Field(
        None, description="API base URL ending in /v1; env DISPUTE_API_BASE_URL wins."
    )
    token_secret_block: str | None = Field(
        None, description="Prefect Secret block holding the token, if not in env."
    )
    rate_limit_per_hour: int = Field(
        5000, ge=1, description="Request budget per hour (env DISPUTE_API_RATE_LIMIT_PER_HOUR)."
    )
    timeout: float = Field(30.0, gt=0, description="Seconds per JSON request.")
    upload_timeout: float = Field(120.0, gt=0, description="Seconds per file upload.")
    max_attempts: int = Field(6, ge=1, description="Attempts per request, the first included.")
    concurrency: int = Field(8, ge=1, le=64, description="Disputes worked on at once.")


class MerchantSection(_Section):
    merchant_id: str = Field("", description="Your merchant id at the provider.")
    merchant_name: str = Field("", description="Name shown on the evidence.")
    merchant_website: str = Field("", description="Shop URL shown on the evidence.")

    def profile(self) -> MerchantProfile | None:
        if not (self.merchant_id or self.merchant_name or self.merchant_website):
            return None
        return MerchantProfile(
            merchant_id=self.merchant_id,
            merchant_name=self.merchant_name,
            merchant_website=self.merchant_website,
        )


class IngestSection(_Section):
    max_file_mb: float = Field(
        500, gt=0, description="Largest spreadsheet read, in MB (checked before reading)."
    )
    settle_seconds: float = Field(
        5, ge=0, description="A file must be unchanged this long before it is read."
    )
    archive: bool = Field(
        True, description="Move ingested files to archive/<date>/<run-id>/ (never deleted)."
    )
    mapping_files: list[Path] = Field(
        default_factory=list, description="Extra TOML files of column mappings."
    )
    mapping: list[dict[str, Any]] = Field(
        default_factory=list, description="Inline column mappings ([[ingest.mapping]])."
    )


class ScheduleSection(_Section):
    cron: str = Field("0 2 * * *", description="Nightly run (cron).")
    timezone: str | None = Field(
        None, description="IANA zone for the cron, e.g. Europe/Berlin; default: this machine's."
    )
    inbox_poll_seconds: int = Field(
        30, ge=5, le=60, description="How often the inbox deployment looks for new files."
    )

    @field_validator("cron")
    @classmethod
    def _five_fields(cls, v: str) -> str:
        if len(v.split()) != 5:
            raise ValueError("cron needs 5 fields, e.g. '0 2 * * *'")
        return v


class PathsSection(_Section):
    inbox: Path | None = Field(None, description="The inbox folder analysts drop files into.")
    state: str | None = Field(
        None, description="State store: a path (SQLite) or an SQLAlchemy URL."
    )
    reports: Path | None = Field(
        None, description="Where reports/<run-id>/ go; default: beside the inbox."
    )


class Settings(BaseSettings):
    """Everything the product can be told."""

    model_config = SettingsConfigDict(
        env_prefix="DISPUTE_EVIDENCE_", env_nested_delimiter="__", extra="forbid"
    )

    api: ApiSection = Field(default_factory=ApiSection)
    merchant: MerchantSection = Field(default_factory=MerchantSection)
    ingest: IngestSection = Field(default_factory=IngestSection)
    schedule: ScheduleSection = Field(default_factory=ScheduleSection)
    paths: PathsSection = Field(default_factory=PathsSection)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        from pydantic_settings import TomlConfigSettingsSource

        sources = [init_settings, env_settings, dotenv_settings]
        if settings_cls.model_config.get("toml_file"):  # set per load by load_settings
            sources.append(TomlConfigSettingsSource(settings_cls))
        return tuple(sources)

    def mappings(self, base: Path) -> tuple[Mapping, ...]:
        """Inline mappings, then mapping files (relative to the config file's folder)."""
        out = list(parse_mappings({"mapping": self.ingest.mapping}, "config [[ingest.mapping]]"))
        for f in self.ingest.mapping_files:
            path = f if f.is_absolute() else base / f
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            out.extend(parse_mappings(data, str(path)))
        return tuple(out)

    def api_settings(self, base_url: str | None = None, token: str | None = None) -> ApiSettings:
        """Client settings: arguments > DISPUTE_API_* env > [api] section; token from env or Secret block."""
        values: dict[str, Any] = {
            "rate_limit_per_hour": self.api.rate_limit_per_hour,
            "timeout": self.api.timeout,
            "upload_timeout": self.api.upload_timeout,
            "max_attempts": self.api.max_attempts,
            "max_concurrency": self.api.concurrency,
        }
        values = {k: v for k, v in values.items() if f"DISPUTE_API_{k.upper()}" not in os.environ}
        if base_url or (self.api.base_url and "DISPUTE_API_BASE_URL" not in os.environ):
            values["base_url"] = base_url or self.api.base_url
        if token:
            values["token"] = SecretStr(token)
        elif "DISPUTE_API_TOKEN" not in os.environ and self.api.token_secret_block:
            from prefect.blocks.system import Secret

            block: Any = Secret.load(
                self.api.token_secret_block
            )  # sync context: a block, not a coroutine
            values["token"] = SecretStr(block.get())
        return ApiSettings(**values)


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from `config_file` (or config/dispute-evidence.toml if present), env and overrides."""
    path = config_file or (DEFAULT_CONFIG if DEFAULT_CONFIG.exists() else None)
    if path is not None and not path.exists():
        raise ConfigError(f"{path}: config file not found")
    config = SettingsConfigDict(**{**Settings.model_config, "toml_file": path})
    # a subclass per load carries its file: no module-level state shared between loads
    loaded: type[Settings] = (
        Settings if path is None else type("Settings", (Settings,), {"model_config": config})
    )
    try:
        return loaded(**overrides)
    except ValidationError as exc:
        lines = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise ConfigError(f"{path or 'settings'}: " + "; ".join(lines)) from None
    except (tomllib.TOMLDecodeError, MappingError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
