"""The process environment's variables that are not settings of ours, read in one place: the
Prefect server a run is recorded in, Prefect's home, the machine's time zone, the local API's
tokens, the fleet's merchants file, and a variable a merchants file names for a key's token.

Read when asked (a test, `serve` or Prefect may set them while the process runs), never cached.
The product's own settings (DISPUTE_EVIDENCE_*, DISPUTE_API_*) are the Settings model's
(settings/model.py, sources.py). Outside settings/, only three modules touch `os.environ`,
and none reads a variable of ours (tests/unit/test_environment_reads.py): the API client reads
its own DISPUTE_API_* names as httpx reads its proxies (api/ never imports the pipeline),
prefect_env.py sets Prefect's variables for this process and its runs, and the document reading
worker hands the environment on to its child process."""

from __future__ import annotations

import os

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Environment(BaseSettings):
    """The variables, as this process has them now ('' counts as not set)."""

    model_config = SettingsConfigDict(case_sensitive=True, env_ignore_empty=True, extra="ignore")

    prefect_api_url: str | None = Field(None, validation_alias="PREFECT_API_URL")
    prefect_home: str | None = Field(None, validation_alias="PREFECT_HOME")
    timezone: str | None = Field(None, validation_alias="TZ")
    sandbox_tokens: str = Field("sk_test_sandbox", validation_alias="DISPUTE_SANDBOX_TOKENS")
    merchants_file: str | None = Field(None, validation_alias="DISPUTE_EVIDENCE_MERCHANTS")


def environment() -> Environment:
    """The variables as they are now."""
    return Environment()


def variable(name: str) -> str:
    """A variable a settings file names (a fleet key's `token_env`), '' when not set."""
    return os.environ.get(name, "")
