"""One run, as an entry point was asked for it: built once by the CLI (`run`, `demo`), a
flow (`evidence_run` takes it as its typed parameter, as `merchant_run` takes a MerchantRun),
the fleet and prefect.yaml, then passed whole to the engine. Nothing is handed on through
environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dispute_evidence.settings.load import load_settings
from dispute_evidence.settings.model import Settings


class RunRequest(BaseModel):
    """What one run was asked to do. The token is never part of it: it is a secret (the
    environment, `.env` or a Prefect Secret block), and a request is a flow parameter."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    inbox: Path = Field(description="The inbox folder to read.")
    config: Path | None = Field(
        None, description="The config file (None: the search order of settings.find_config)."
    )
    state: str | None = Field(
        None,
        description="State store: a path or an SQLAlchemy URL (None: [paths] state, else "
        "<inbox>.state.sqlite3 beside the inbox).",
    )
    dry_run: bool = Field(False, description="Read and build everything; send and record nothing.")
    trigger: str = Field("manual", description="What started the run: manual, nightly, inbox...")
    adopt: bool = Field(False, description="The inbox moved: its state store may take it.")
    reconcile: bool = Field(
        False, description="A new state store checks the API's file listings before uploading."
    )
    wait_for_lock: float = Field(
        0.0, ge=0, description="Seconds to wait for a run already working on this inbox."
    )
    sandbox: bool = Field(False, description="Send to a local API of this inbox's own.")
    base_url: str | None = Field(None, description="The API's URL, over the settings' one.")
    overrides: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Settings over the config's, by section: {'ingest': {'settle_seconds': 0}}.",
    )

    @field_validator("state", mode="before")
    @classmethod
    def _path_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, Path) else value

    def load_settings(self) -> Settings:
        """The settings this run uses (ConfigError names every wrong key)."""
        return load_settings(self.config, inbox=self.inbox, **self.overrides)
