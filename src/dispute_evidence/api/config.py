"""The client's configuration: one model, `ApiSettings`, which is also the `[api]` section of
the product's settings (`settings/` reads it from the environment, `.env` and the TOML file).

Each field's environment name is declared on it as an alias choice: `DISPUTE_API_<FIELD>`
(e.g. DISPUTE_API_TOKEN, DISPUTE_API_TIMEOUT). `api_environ` reads exactly those names; a
client built without settings (`DisputeEvidenceClient()`) takes its values from there."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator

ENV_PREFIX = "DISPUTE_API_"


def env_name(field: str) -> str:
    """The environment variable of a client setting: DISPUTE_API_<FIELD>."""
    return f"{ENV_PREFIX}{field.upper()}"


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ApiSettings(BaseModel):
    """How to reach the Dispute Evidence API. base_url and token have no default that works:
    the client refuses to start without them (`missing`)."""

    # every number bounded and finite: inf or 10^12 seconds overflow the timers they reach
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )

    base_url: str = Field(
        "",
        validation_alias=AliasChoices("base_url", "DISPUTE_API_BASE_URL"),
        description="Base URL ending in /v1. https:// required except on loopback.",
    )
    token: SecretStr = Field(
        SecretStr(""),
        validation_alias=AliasChoices("token", "DISPUTE_API_TOKEN"),
        description="Bearer API key. Never logged or shown; never read from the TOML file.",
    )
    rate_limit_per_hour: int = Field(
        5000,
        ge=1,
        le=1_000_000_000,
        validation_alias=AliasChoices("rate_limit_per_hour", "DISPUTE_API_RATE_LIMIT_PER_HOUR"),
        description="Request budget per rate_limit_period (the API's hourly budget).",
    )
    rate_limit_period: float = Field(
        3600.0,
        gt=0,
        le=86_400,
        validation_alias=AliasChoices("rate_limit_period", "DISPUTE_API_RATE_LIMIT_PERIOD"),
        description="Window of the budget, seconds.",
    )
    rate_limit_burst: int | None = Field(
        None,
        ge=1,
        le=10_000,
        validation_alias=AliasChoices("rate_limit_burst", "DISPUTE_API_RATE_LIMIT_BURST"),
        description="Requests that may start together.",
    )
    timeout: float = Field(
        30.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("timeout", "DISPUTE_API_TIMEOUT"),
        description="Seconds for a JSON request, all attempts separate.",
    )
    upload_timeout: float = Field(
        120.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("upload_timeout", "DISPUTE_API_UPLOAD_TIMEOUT"),
        description="Seconds for one file upload.",
    )
    max_concurrency: int = Field(
        8,
        ge=1,
        le=256,
        validation_alias=AliasChoices(
            "max_concurrency", "concurrency", "DISPUTE_API_MAX_CONCURRENCY"
        ),
        description="Requests in flight at once; also the disputes worked on at once "
        "(`concurrency` in the TOML file).",
    )
    max_attempts: int = Field(
        6,
        ge=1,
        le=100,
        validation_alias=AliasChoices("max_attempts", "DISPUTE_API_MAX_ATTEMPTS"),
        description="Attempts per request, the first included (429/5xx/network only).",
    )
    backoff_base: float = Field(
        0.5,
        ge=0,
        le=3600,
        validation_alias=AliasChoices("backoff_base", "DISPUTE_API_BACKOFF_BASE"),
        description="First retry wait, seconds (doubles each time).",
    )
    backoff_cap: float = Field(
        30.0,
        ge=0,
        le=3600,
        validation_alias=AliasChoices("backoff_cap", "DISPUTE_API_BACKOFF_CAP"),
        description="Longest retry wait, seconds.",
    )
    max_wait: float = Field(
        300.0,
        ge=0,
        le=86_400,
        validation_alias=AliasChoices("max_wait", "DISPUTE_API_MAX_WAIT"),
        description="Longest the client waits on the API in all (Retry-After and retries, "
        "seconds): asked to wait longer, the run stops, saying when to run again.",
    )
    connect_timeout: float = Field(
        10.0,
        gt=0,
        le=600,
        validation_alias=AliasChoices("connect_timeout", "DISPUTE_API_CONNECT_TIMEOUT"),
        description="Seconds to connect; until the API has answered once, also for its first "
        "byte (an API that accepts connections but never answers is given up on in seconds).",
    )

    @field_validator("base_url")
    @classmethod
    def _https_unless_loopback(cls, value: str) -> str:
        return check_base_url(value) if value else value

    @field_validator("token", mode="before")
    @classmethod
    def _one_line_token(cls, value: object) -> object:
        return clean_token(value)

    def missing(self) -> list[str]:
        """The settings the client cannot start without that are unset: 'base_url', 'token'."""
        unset = [("base_url", not self.base_url), ("token", not self.token.get_secret_value())]
        return [name for name, is_unset in unset if is_unset]


def api_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The client settings given in `environ` under their DISPUTE_API_* names, by field name."""
    out = {}
    for name, field in ApiSettings.model_fields.items():
        alias = field.validation_alias
        names = alias.choices if isinstance(alias, AliasChoices) else []
        for env in (n for n in names if isinstance(n, str) and n.startswith(ENV_PREFIX)):
            if (value := environ.get(env)) is not None:
                out[name] = value
    return out


class TokenProblem(ValueError):
    """The token cannot be sent as a header; the message never holds the token."""


def clean_token(value: object) -> object:
    """The token without surrounding whitespace (a copy-paste artefact); a line break or other
    control character inside it is refused (it would split the Authorization header)."""
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not isinstance(raw, str):
        return value
    token = raw.strip()
    if not token:
        raise TokenProblem("DISPUTE_API_TOKEN is empty")
    if any(ord(c) < 32 or ord(c) == 127 for c in token):
        raise TokenProblem(
            "DISPUTE_API_TOKEN has a line break or control character inside it; "
            "copy the key again as one line"
        )
    return SecretStr(token)


def check_base_url(value: str) -> str:
    """The URL, trimmed; ValueError unless http(s) with a host, and https off loopback."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL, got {value!r}")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise ValueError(
            "plain http:// is only allowed for loopback (127.0.0.1, localhost, ::1); use https://"
        )
    return value.strip().rstrip("/")
