"""The merchants file: many merchants, each with its inbox, state, API key and schedule.

A key is named once under [keys.<name>] with where its token comes from (an environment
variable or a Prefect Secret block: never the token itself) and its budget; merchants point at
a key by name, so two merchants of one account share one budget by construction. Validation
names the merchant and the key at fault, one line each, before anything is deployed.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dispute_evidence.api.config import check_base_url
from dispute_evidence.checks import cron_problem, database_url_problem, timezone_problem
from dispute_evidence.fleet.budget import BudgetShape
from dispute_evidence.names import did_you_mean
from dispute_evidence.settings import ConfigError, MerchantSection, out_of_range
from dispute_evidence.state.database import has_password, with_search_path

MERCHANT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # numbers bounded, finite


class FleetSection(_Strict):
    state_url: str | None = Field(
        None,
        description="One PostgreSQL database for every merchant without its own `state`: each "
        "gets its own schema (merchant_<id>) in it.",
    )
    budget_url: str | None = Field(
        None,
        description="Database holding each key's shared budget; default: state_url. Every "
        "worker must reach it (PostgreSQL for several machines).",
    )
    base_url: str | None = Field(None, description="API base URL ending in /v1.")
    config: Path | None = Field(
        None, description="Settings file every merchant starts from (relative to this file)."
    )
    schedule: str = Field("0 2 * * *", description="Default cron for a merchant's nightly run.")
    timezone: str = Field("UTC", description="Default IANA time zone of the schedules.")
    wait_for_lock: float = Field(
        1800.0, ge=0, le=86_400, description="Seconds a run waits for the merchant's previous run."
    )


class KeySpec(_Strict):
    token_env: str | None = Field(None, description="Environment variable holding the token.")
    token_secret_block: str | None = Field(
        None, description="Prefect Secret block holding the token."
    )
    rate_limit_per_hour: int = Field(
        5000, ge=1, le=1_000_000_000, description="The key's budget per hour."
    )
    window_seconds: float = Field(
        60.0,
        ge=5,
        le=3600,
        description="Shortest window the budget is pro-rated over: never more than "
        "budget * window / 3600 requests in any such window (60: any minute).",
    )


class MerchantSpec(_Strict):
    id: str = Field(description="Short id: lower-case letters, digits, '-' and '_'.")
    inbox: Path = Field(description="The merchant's inbox folder, as every worker sees it.")
    key: str = Field(description="Name of the API key under [keys].")
    state: str | None = Field(None, description="Own state path or URL; default: fleet's.")
    schedule: str | None = Field(None, description="Cron; default: [fleet] schedule.")
    timezone: str | None = Field(None, description="IANA zone; default: [fleet] timezone.")
    profile: MerchantSection = Field(default_factory=MerchantSection)


class MerchantsFile(_Strict):
    fleet: FleetSection = Field(default_factory=FleetSection)
    keys: dict[str, KeySpec] = Field(default_factory=dict)
    merchant: list[MerchantSpec] = Field(default_factory=list)


class MerchantRun(_Strict):
    """Everything a worker needs to run one merchant: a deployment's parameters (no secret)."""

    id: str
    inbox: str
    state: str = Field(description="State path or URL (shared PostgreSQL: with its schema).")
    schema_name: str | None = Field(None, description="PostgreSQL schema created on first run.")
    key: str = Field(description="The API key's name: its budget is shared by name.")
    token_env: str | None = None
    token_secret_block: str | None = None
    rate_limit_per_hour: int = 5000
    window_seconds: float = 60.0
    budget_url: str
    base_url: str | None = None
    config: str | None = None
    profile: MerchantSection = Field(default_factory=MerchantSection)
    wait_for_lock: float = 1800.0
    schedule: str = "0 2 * * *"
    timezone: str = "UTC"

    def budget_shape(self) -> BudgetShape:
        """The key's shared bucket: its budget, pro-rated over window_seconds."""
        return BudgetShape.for_budget(self.rate_limit_per_hour, strictest=self.window_seconds)


def plan_runs(spec: MerchantsFile, base: Path) -> list[MerchantRun]:
    """One MerchantRun per merchant, paths made absolute against the merchants file's folder."""
    fleet = spec.fleet

    def absolute(p: Path | str) -> str:
        p = Path(p).expanduser()
        return str(p if p.is_absolute() else (base / p).resolve())

    budget_url = fleet.budget_url or fleet.state_url or absolute("budgets.sqlite3")
    runs = []
    for m in spec.merchant:
        key = spec.keys[m.key]
        schema = None if m.state else schema_of(m.id)
        if m.state:
            state = m.state if "://" in m.state else absolute(m.state)
        else:
            state = with_schema(str(fleet.state_url), str(schema))
        runs.append(
            MerchantRun(
                id=m.id,
                inbox=absolute(m.inbox),
                state=state,
                schema_name=schema,
                key=m.key,
                token_env=key.token_env,
                token_secret_block=key.token_secret_block,
                rate_limit_per_hour=key.rate_limit_per_hour,
                window_seconds=key.window_seconds,
                budget_url=budget_url if "://" in budget_url else absolute(budget_url),
                base_url=fleet.base_url,
                config=absolute(fleet.config) if fleet.config else None,
                profile=m.profile,
                wait_for_lock=fleet.wait_for_lock,
                schedule=m.schedule or fleet.schedule,
                timezone=m.timezone or fleet.timezone,
            )
        )
    return runs


def plan_lines(runs: list[MerchantRun]) -> list[str]:
    """One aligned line per merchant: schedule, inbox, key, budget and who shares the key."""
    out = []
    for r in runs:
        sharing = [o.id for o in runs if o.key == r.key and o.id != r.id]
        share = f", shared with {', '.join(sharing)}" if sharing else ""
        out.append(
            f"  {r.id:<16} {r.schedule} ({r.timezone})  inbox {r.inbox}  "
            f"key {r.key} ({r.rate_limit_per_hour:,}/h{share})"
        )
    return out


def schema_of(merchant_id: str) -> str:
    return "merchant_" + merchant_id.replace("-", "_")


def with_schema(url: str, schema: str) -> str:
    """The PostgreSQL URL whose sessions work in `schema` (libpq's search_path option)."""
    return with_search_path(url, schema)


def load_merchants(path: Path) -> MerchantsFile:
    """The merchants file, checked whole: ConfigError with one line per problem."""
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{where}: merchants file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML ({exc})") from None
    try:
        spec = MerchantsFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            "\n".join(f"{where}: {_explain(e, data)}" for e in exc.errors())
        ) from None
    problems = check_merchants(spec, path.parent)
    if problems:
        raise ConfigError("\n".join(f"{where}: {p}" for p in problems))
    return spec


def _explain(error: Any, data: dict[str, Any]) -> str:
    loc = list(error["loc"])
    if loc[:1] == ["merchant"] and len(loc) > 1 and isinstance(loc[1], int):
        entry = data.get("merchant", [])[loc[1]]
        name = entry.get("id", f"#{loc[1] + 1}") if isinstance(entry, dict) else f"#{loc[1] + 1}"
        loc = [f"merchant {name!r}", *loc[2:]]
    elif loc[:1] == ["keys"] and len(loc) > 1:
        loc = [f"key {loc[1]!r}", *loc[2:]]
    key = ".".join(str(p) for p in loc)
    if error["type"] == "extra_forbidden":
        return f"{key}: unknown setting"
    if why := out_of_range(error, MerchantsFile):
        return f"{key}: {why}"
    return f"{key}: {error['msg']}"


def check_merchants(spec: MerchantsFile, base: Path) -> list[str]:
    """What field types cannot see: ids, key references and sources, cron, zones, URLs."""
    out = _check_keys(spec)
    out += _check_fleet(spec.fleet, base)
    seen_ids: set[str] = set()
    states: dict[str, str] = {}
    inboxes = _Inboxes()
    for m in spec.merchant:
        who = f"merchant {m.id!r}"
        if not MERCHANT_ID.match(m.id):
            out.append(f"{who}: id must be 1-40 lower-case letters, digits, '-' or '_'")
        if m.id in seen_ids:
            out.append(f"{who}: the id is used twice; each merchant needs its own")
        seen_ids.add(m.id)
        if m.key not in spec.keys:
            out.append(
                f"{who}: key {m.key!r} is not defined under [keys]{did_you_mean(m.key, spec.keys)}"
            )
        out += [f"{who}: {p}" for p in _check_schedule(m.schedule, m.timezone)]
        state = m.state or (spec.fleet.state_url and f"{spec.fleet.state_url}#{m.id}")
        if not state:
            out.append(f"{who}: no state: give it `state` or set [fleet] state_url")
        elif state in states:
            out.append(
                f"{who}: shares its state with merchant {states[state]!r}; give each its own"
            )
        else:
            states[state] = m.id
            out += [f"{who}: state: {p}" for p in _check_url(m.state)] if m.state else []
        inbox = (base / m.inbox.expanduser()).resolve()
        if clash := inboxes.clash(inbox):
            out.append(f"{who}: {clash}")
        inboxes.add(inbox, m.id)
    if not spec.merchant:
        out.append("no [[merchant]] entries")
    return out


class _Inboxes:
    """The merchants' resolved inboxes, and every folder above each, so an overlap is found in
    one look per folder level of the new inbox. Comparing each inbox with every earlier one
    took 36 s at 2,000 merchants, and `deploy` (and every sweep, which reads the file again)
    would take about 15 minutes at 10,000."""

    def __init__(self) -> None:
        self.own: dict[Path, str] = {}  # resolved folder -> merchant id
        self.above: dict[Path, tuple[Path, str]] = {}  # a folder -> an inbox inside it, whose

    def clash(self, inbox: Path) -> str | None:
        """How `inbox` (resolved) overlaps an earlier merchant's: one folder, or one inside the
        other. Each would read, move and send the other's files as its own."""
        if inbox in self.own:
            where, other = f"both are {inbox}", self.own[inbox]
        elif outer := next((p for p in inbox.parents if p in self.own), None):
            where, other = f"{inbox} is inside its {outer}", self.own[outer]
        elif inbox in self.above:
            inner, other = self.above[inbox]
            where = f"its {inner} is inside {inbox}"
        else:
            return None
        return (
            f"shares its inbox with merchant {other!r} ({where}, symbolic links and '..' "
            "followed); give each merchant its own folder, side by side"
        )

    def add(self, inbox: Path, merchant: str) -> None:
        self.own[inbox] = merchant
        for folder in inbox.parents:
            self.above.setdefault(folder, (inbox, merchant))


def _check_keys(spec: MerchantsFile) -> list[str]:
    out: list[str] = []
    sources: dict[str, str] = {}
    for name, key in spec.keys.items():
        who = f"key {name!r}"
        if bool(key.token_env) == bool(key.token_secret_block):
            out.append(
                f"{who}: set exactly one of token_env or token_secret_block (never the token)"
            )
            continue
        if key.token_env and not ENV_NAME.match(key.token_env):
            out.append(f"{who}: token_env {key.token_env!r} is not an environment variable name")
        source = f"env {key.token_env}" if key.token_env else f"Secret {key.token_secret_block}"
        if source in sources:
            out.append(
                f"{who}: reads the same token as key {sources[source]!r} ({source}); a key is one "
                "budget: define it once and point both merchants at it"
            )
        sources[source] = name
    return out


def _check_fleet(fleet: FleetSection, base: Path) -> list[str]:
    out = [f"fleet: {p}" for p in _check_schedule(fleet.schedule, fleet.timezone)]
    if fleet.state_url:
        out += [f"fleet.state_url: {p}" for p in _check_url(fleet.state_url)]
        if not fleet.state_url.startswith("postgresql"):
            out.append(
                "fleet.state_url: must be PostgreSQL (each merchant gets a schema in it); "
                "for SQLite give each merchant its own `state`"
            )
    if fleet.budget_url:
        out += [f"fleet.budget_url: {p}" for p in _check_url(fleet.budget_url)]
    if fleet.base_url:
        try:
            check_base_url(fleet.base_url)
        except ValueError as exc:
            out.append(f"fleet.base_url: {exc}")
    if fleet.config and not (base / fleet.config).is_file():
        out.append(f"fleet.config: {base / fleet.config}: file not found")
    return out


def _check_schedule(cron: str | None, tz: str | None) -> list[str]:
    out = [f"schedule: {why}"] if (why := cron_problem(cron)) else []
    return out + ([f"timezone: {why}"] if (why := timezone_problem(tz)) else [])


def _check_url(value: str) -> list[str]:
    if why := database_url_problem(value):
        return [why]
    if has_password(value):
        return [
            "has a password: it would show in the Prefect UI with the deployment's parameters; "
            "leave it out and set PGPASSWORD or ~/.pgpass on each worker"
        ]
    return []
