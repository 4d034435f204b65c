"""Configuration: one Settings model with sections, validated at start.

One precedence order, highest first (`Settings.settings_customise_sources` lists it):

1. arguments (--base-url, --sandbox, a RunRequest's API overrides);
2. the environment: the client's own names DISPUTE_API_<KEY> (api/config.py declares them on
   `ApiSettings`), then DISPUTE_EVIDENCE_<SECTION>__<KEY>;
3. a `.env` file in the current directory, read the same way (the client's names first);
4. the TOML file, found by `find_config` (--config, then DISPUTE_EVIDENCE_CONFIG, then
   <inbox>/../config/dispute-evidence.toml, then ./config/dispute-evidence.toml); every
   command says which one it used;
5. the defaults.

The `[api]` section is the client's configuration itself (`ApiSettings`). The API token is never
read from TOML: the environment, `.env` or a Prefect Secret block only.
Importing this module loads no engine, pandas, SQLAlchemy or aiohttp: the policies it builds
live in `policies.py`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from dispute_evidence.api.config import ApiSettings
from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.checks import (
    MONTH_FIRST_LOCALES,
    locale_problem,
)
from dispute_evidence.policies import (
    LIMIT_FIGURES,
    PROFILE_NAMES,
    AdvicePolicy,
    AlertPolicy,
    PacketPolicy,
    ReadPolicy,
    RetentionPolicy,
    Upload,
    profiles,
)
from dispute_evidence.settings.bounds import (
    MAX_AMOUNT,
    MAX_DAYS,
    fee_schedule_problem,
    figures_problem,
)
from dispute_evidence.settings.review_section import ReviewSection
from dispute_evidence.settings.sources import (
    DEFAULT_CONFIG,
    ApiEnvSource,
    DotEnvSource,
    TomlSource,
    client_settings,
    read_dotenv,
)
from dispute_evidence.settings.standing_section import StandingSection

DOTENV = Path(".env")
NO_CONFIG = "none: defaults"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # see bounds.py


class ApiSection(ApiSettings):
    """`[api]`: the client's configuration (`ApiSettings`: base_url, token, request budget,
    timeouts, attempts, concurrency), and the Prefect Secret block the token may come from."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    token_secret_block: str | None = Field(
        None, description="Prefect Secret block holding the token, if not in env or .env."
    )
    max_concurrency: int = Field(
        8,
        ge=1,
        le=64,
        validation_alias=AliasChoices(
            "max_concurrency", "concurrency", "DISPUTE_API_MAX_CONCURRENCY"
        ),
        description="Disputes worked on (and requests in flight) at once; `concurrency` in "
        "the TOML file.",
    )


class MerchantSection(_Section):
    merchant_id: str = Field("", description="Your merchant id at the provider.")
    merchant_name: str = Field("", description="Name shown on the evidence.")
    merchant_website: str = Field("", description="Shop URL shown on the evidence.")
    merchant_contact: str = Field(
        "",
        description="An e-mail or phone a reviewer can reach you at, on the letter's head "
        "(not part of the API's merchant_profile).",
    )
    country: str = Field(
        "",
        max_length=3,
        description="Your country as an ISO code (US, CA, GB, ...): a card issued there is a "
        "domestic transaction, which Visa's April 2026 address-match rule for fraud disputes "
        "turns on (empty: the rule is never claimed).",
    )

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
        500, gt=0, le=100_000, description="Largest spreadsheet read (MB, checked first)."
    )
    settle_seconds: float = Field(
        5, ge=0, le=3600, description="A file must be unchanged this long before it is read."
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
    locale: str | None = Field(
        None,
        description="How numeric dates like 01/12/2025 are read when a column leaves it open: "
        "e.g. 'en_GB' (day first) or 'en_US' (month first). Unset: such dates are refused.",
    )

    timezone: str = Field(
        "UTC",
        description="IANA zone of your sheets' deadlines that carry none: a deadline given as a "
        "date alone (30/11/2026) means the end of that day there. The API's deadline wins once "
        "it has been read.",
    )

    @field_validator("locale")
    @classmethod
    def _a_locale(cls, value: str | None) -> str | None:
        if value is not None and (why := locale_problem(value)):
            raise ValueError(why)
        return value

    def dayfirst(self) -> bool | None:
        if self.locale is None:
            return None
        return self.locale not in MONTH_FIRST_LOCALES


class EvidenceSection(_Section):
    summary_pdf: bool = Field(
        True,
        description="Upload a generated evidence summary PDF with each dispute "
        "(<dispute>-evidence-summary.pdf; a new version only when what it shows changed).",
    )
    send_partial_orders: bool = Field(
        False,
        description="Send a dispute whose order has a row that was not used, or whose lines "
        "do not add up to the order's subtotal, as it is (default: hold it until fixed).",
    )
    read_documents: bool = Field(
        True,
        description="Read evidence documents for facts (PDF text; Tesseract OCR for images "
        "and scans, when installed) and match files named by no dispute by what their text "
        "names. Each file is read once (cached by content in <inbox>/.dispute-evidence).",
    )
    read_seconds: float = Field(
        20.0,
        gt=0,
        le=3600,
        description="Most time reading one document may take (OCR included); past it the "
        "reader is killed and the file is sent as a file only, with one line in the report.",
    )
    read_memory_mb: int = Field(
        1024, ge=128, le=65_536, description="Most memory (MB) the document reader may use."
    )

    upload: Upload = Field(
        "files",
        description="What goes to the API per dispute: 'files' (each matched document as it "
        "is, plus the generated summary PDF) or 'packet' (one PDF: the letter, the data sheet "
        "and every matched document; at most 2 requests on a dispute's first send).",
    )
    limits: str = Field(
        "auto",
        description="The card network limits what goes out is checked against (pages, MB, "
        "files): 'auto' picks by the card brand in the payments export, else 'default'; or "
        f"one of {', '.join(PROFILE_NAMES)} (networks.py).",
        json_schema_extra={"enum": ["auto", *PROFILE_NAMES]},
    )
    limit_profiles: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Figures laid over the built-in profiles, e.g. [evidence.limit_profiles."
        "mastercard] max_pages = 19 (max_pages, max_total_bytes, max_file_bytes, max_files, "
        "max_image_side); docs/packet.md lists the defaults and their sources.",
    )

    @field_validator("limits")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        if value not in ("auto", *PROFILE_NAMES):
            raise ValueError(f"{value!r}: use auto or one of {', '.join(PROFILE_NAMES)}")
        return value

    @field_validator("limit_profiles")
    @classmethod
    def _known_figures(cls, value: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        for name, figures in value.items():
            if name not in PROFILE_NAMES:
                raise ValueError(
                    f"{name!r} is not a profile: use one of {', '.join(PROFILE_NAMES)}"
                )
            if unknown := sorted(set(figures) - set(LIMIT_FIGURES)):
                raise ValueError(
                    f"[evidence.limit_profiles.{name}]: unknown {', '.join(unknown)} "
                    f"(known: {', '.join(LIMIT_FIGURES)})"
                )
            if why := figures_problem(name, figures):
                raise ValueError(why)
        return value

    def packet_policy(self) -> PacketPolicy:
        return PacketPolicy(self.upload, self.limits, profiles(self.limit_profiles))


class AdviceSection(_Section):
    dispute_fee: float = Field(
        15.0,
        ge=0,
        le=MAX_AMOUNT,
        description="What fighting one dispute costs you (fees, time), in your currency: the "
        "advice is fight when P(win) x amount is more than this.",
    )
    hold_under_amount: float | None = Field(
        None,
        gt=0,
        le=MAX_AMOUNT,
        description="Hold (do not send) disputes under this amount: 'held: under your fight "
        "threshold'. Unset: nothing is held; the advice is only advice.",
    )
    fee_by_days: dict[int, float] = Field(
        default_factory=dict,
        description="The cost of fighting by days since the dispute opened (networks charge "
        "more the later you answer), e.g. {10 = 16.05, 15 = 16.50, 20 = 17.00, 25 = 18.00, "
        "30 = 19.00}: up to 10 days 16.05, and so on; after the last, the last. Replaces "
        "dispute_fee when the API has said when the dispute opened.",
    )

    @field_validator("fee_by_days")
    @classmethod
    def _bounded_fees(cls, value: dict[int, float]) -> dict[int, float]:
        if why := fee_schedule_problem(value):
            raise ValueError(why)
        return value

    def policy(self) -> AdvicePolicy:
        schedule = tuple(sorted(self.fee_by_days.items()))
        return AdvicePolicy(self.dispute_fee, self.hold_under_amount, schedule)


class ReadbackSection(_Section):
    enabled: bool = Field(True, description="Read disputes back from the API each real run.")
    read_share: float = Field(
        0.10, gt=0, le=1, description="Most of the hour's request budget a run spends reading."
    )
    refresh_hours: float = Field(
        24, gt=0, le=8760, description="How often an open dispute with nothing to send is read."
    )
    closed_statuses: list[str] = Field(
        default_factory=lambda: [
            "won",
            "lost",
            "warning_closed",
            "charge_refunded",
            "closed",
            "accepted",
            "withdrawn",
            "expired",
            "resolved",
        ],
        description="API statuses that end a dispute: nothing more is sent to it (any status "
        "ending in _closed too).",
    )
    under_review_statuses: list[str] = Field(
        default_factory=lambda: ["under_review", "warning_under_review"],
        description="API statuses in which the provider is reviewing the evidence.",
    )
    resend_under_review: bool = Field(
        False, description="Send changed evidence to a dispute under review (if it accepts it)."
    )

    def policy(self) -> ReadPolicy | None:
        if not self.enabled:
            return None
        return ReadPolicy(
            closed=frozenset(s.lower() for s in self.closed_statuses),
            under_review=frozenset(s.lower() for s in self.under_review_statuses),
            resend_under_review=self.resend_under_review,
            read_share=self.read_share,
            refresh_hours=self.refresh_hours,
        )


class AlertsSection(_Section):
    alert_hours: float = Field(
        48,
        gt=0,
        le=8760,
        description="Alert about a dispute due within this many hours that still "
        "needs something (data, evidence, approval); at most once per dispute per day.",
    )
    events: bool = Field(
        True,
        description="Emit a Prefect event per dispute at risk "
        "(dispute-evidence.dispute.at-risk on resource dispute-evidence.dispute.<id>).",
    )
    block: str | None = Field(
        None,
        pattern=r"^[a-z0-9-]+/[^/]+$",
        description="Prefect notification block to notify through, as '<block type>/<name>': "
        "e.g. 'slack-webhook/disputes', 'custom-webhook/ops', 'sendgrid-email/analysts', "
        "'microsoft-teams-webhook/…'. Unset: Prefect events only.",
    )

    def policy(self) -> AlertPolicy:
        return AlertPolicy(hours=self.alert_hours, events=self.events, block=self.block)


class RetentionSection(_Section):
    """How long customer data, reports and archived drops are kept. Off by default: nothing is
    ever deleted unless a number of days is set here (engine/prepare/retention_clearing.py)."""

    customer_data_days: int | None = Field(
        None,
        ge=0,
        le=MAX_DAYS,
        description="Days after a dispute closes before its customer's names, emails, "
        "addresses, IP addresses and device ids are cleared from the state and the stored "
        "copies of its files in .dispute-evidence/ are deleted (amounts, dates, outcomes and "
        "evidence kinds stay). Unset: kept.",
    )
    reports_days: int | None = Field(
        None,
        ge=1,
        le=MAX_DAYS,
        description="Report folders older than this many days are removed. Unset: kept.",
    )
    archive_days: int | None = Field(
        None,
        ge=1,
        le=MAX_DAYS,
        description="archive/<date>/ folders (the analysts' own files) older than this many "
        "days are removed. Unset: kept.",
    )

    def policy(self) -> RetentionPolicy:
        return RetentionPolicy(self.customer_data_days, self.reports_days, self.archive_days)


class ScheduleSection(_Section):
    cron: str = Field("0 2 * * *", description="Nightly run (cron).")
    timezone: str | None = Field(
        None, description="IANA zone for the cron, e.g. Europe/Berlin; default: this machine's."
    )
    inbox_watch: Literal["auto", "events", "polling"] = Field(
        "auto",
        description="How `serve` notices drops: file events (inotify), polling (network "
        "shares), or auto (events, polling where they are unavailable).",
    )
    inbox_poll_seconds: int = Field(
        30, ge=5, le=60, description="When polling: how often the inbox is looked at."
    )


class PrefectSection(_Section):
    api_url: str | None = Field(
        None,
        description="Prefect server that records runs (its /api URL); env PREFECT_API_URL wins. "
        "Unset: a one-off run records in the server this inbox's `serve` uses, or nowhere.",
    )


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
        env_prefix="DISPUTE_EVIDENCE_",
        env_nested_delimiter="__",
        extra="forbid",
        env_file=DOTENV,
        env_file_encoding="utf-8",
    )

    api: ApiSection = Field(default_factory=ApiSection)
    merchant: MerchantSection = Field(default_factory=MerchantSection)
    ingest: IngestSection = Field(default_factory=IngestSection)
    evidence: EvidenceSection = Field(default_factory=EvidenceSection)
    readback: ReadbackSection = Field(default_factory=ReadbackSection)
    review: ReviewSection = Field(default_factory=ReviewSection)
    alerts: AlertsSection = Field(default_factory=AlertsSection)
    advice: AdviceSection = Field(default_factory=AdviceSection)
    retention: RetentionSection = Field(default_factory=RetentionSection)
    standing: StandingSection = Field(default_factory=StandingSection)
    schedule: ScheduleSection = Field(default_factory=ScheduleSection)
    paths: PathsSection = Field(default_factory=PathsSection)
    prefect: PrefectSection = Field(default_factory=PrefectSection)
    _config_file: Path | None = PrivateAttr(None)

    @property
    def config_file(self) -> Path | None:
        """The TOML file these settings were read from (None: defaults and environment)."""
        return self._config_file

    @property
    def config_label(self) -> str:
        """Which config file is in use, as commands and reports say it."""
        return str(self._config_file) if self._config_file else NO_CONFIG

    @property
    def config_folder(self) -> Path:
        """Where paths in the config are relative to: its file's folder, else ./config."""
        return self._config_file.parent if self._config_file else DEFAULT_CONFIG.parent

    def inbox(self, given: Path | None) -> Path | None:
        """The inbox: the one given, else `[paths] inbox` (relative to the config's folder)."""
        if given is not None or self.paths.inbox is None:
            return given
        inbox = self.paths.inbox.expanduser()
        if not inbox.is_absolute() and self._config_file is not None:
            inbox = self._config_file.parent / inbox
        return inbox

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        dotenv = settings_cls.model_config.get("env_file")
        sources = [
            init_settings,
            ApiEnvSource(settings_cls, os.environ),
            env_settings,
            ApiEnvSource(settings_cls, read_dotenv(dotenv)),
            DotEnvSource(settings_cls),
        ]
        if settings_cls.model_config.get("toml_file"):  # set per load by load_settings
            sources.append(TomlSource(settings_cls))
        return tuple(sources)

    def api_settings(self, base_url: str | None = None, token: str | None = None) -> ApiSettings:
        """The client's configuration: the `[api]` section, arguments on top, the token from
        the Secret block when no other source gave one. ConfigError names what is missing."""
        return client_settings(self.api, self.api.token_secret_block, base_url, token)
