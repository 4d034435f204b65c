"""Client settings: arguments > environment (DISPUTE_API_*) > defaults."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ApiSettings(BaseSettings):
    """How to reach the Dispute Evidence API."""

    model_config = SettingsConfigDict(env_prefix="DISPUTE_API_", extra="ignore")

    base_url: str = Field(
        description="Base URL ending in /v1. https:// required except on loopback."
    )
    token: SecretStr = Field(description="Bearer API key. Never logged or shown.")
    rate_limit_per_hour: int = Field(
        5000, ge=1, description="Client-side budget per rate_limit_period."
    )
    rate_limit_period: float = Field(3600.0, gt=0, description="Window of the budget, seconds.")
    rate_limit_burst: int | None = Field(
        None, ge=1, description="Requests that may start together."
    )
    timeout: float = Field(
        30.0, gt=0, description="Seconds for a JSON request, all attempts separate."
    )
    upload_timeout: float = Field(120.0, gt=0, description="Seconds for one file upload.")
    max_concurrency: int = Field(8, ge=1, description="Requests in flight at once.")
    max_attempts: int = Field(6, ge=1, description="Attempts per request, first included.")
    backoff_base: float = Field(
        0.5, ge=0, description="First retry wait, seconds (doubles each time)."
    )
    backoff_cap: float = Field(30.0, ge=0, description="Longest retry wait, seconds.")

    @field_validator("base_url")
    @classmethod
    def _https_unless_loopback(cls, value: str) -> str:
        return check_base_url(value)

    @field_validator("token", mode="before")
    @classmethod
    def _one_line_token(cls, value: object) -> object:
        return clean_token(value)


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
