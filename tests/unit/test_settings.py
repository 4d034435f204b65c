"""One Settings: the [api] section is the client's configuration, read in one documented
order (arguments > DISPUTE_API_* > DISPUTE_EVIDENCE_API__* > .env > TOML > defaults)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.api.config import ApiSettings
from dispute_evidence.settings import ConfigError, load_settings

TOKEN = "sk_test_settings"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(("DISPUTE_API_", "DISPUTE_EVIDENCE_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # .env and ./config are looked for here


def test_settings_and_client_agree_on_one_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPUTE_EVIDENCE_API__TIMEOUT", "7")
    monkeypatch.setenv("DISPUTE_API_TIMEOUT", "3")
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    settings = load_settings()
    client = settings.api_settings(base_url="https://api.example.com/v1")
    assert settings.api.timeout == 3 and client.timeout == 3
    assert DisputeEvidenceClient("https://api.example.com/v1").settings.timeout == 3


def test_order_arguments_env_dotenv_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        '[api]\nbase_url = "https://toml.example/v1"\ntimeout = 11\nmax_attempts = 4\n'
        "concurrency = 5\nupload_timeout = 50\n"
    )
    (tmp_path / ".env").write_text(
        "DISPUTE_API_TOKEN=sk_from_dotenv\nDISPUTE_API_TIMEOUT=12\nPOSTGRES_PASSWORD=unrelated\n"
        "DISPUTE_EVIDENCE_API__MAX_ATTEMPTS=9\n"
    )
    monkeypatch.setenv("DISPUTE_EVIDENCE_API__UPLOAD_TIMEOUT", "60")
    settings = load_settings(config)
    api = settings.api
    assert (api.base_url, api.timeout, api.max_attempts) == ("https://toml.example/v1", 12, 9)
    assert (api.upload_timeout, api.max_concurrency) == (60, 5)
    assert api.token.get_secret_value() == "sk_from_dotenv" and "sk_from" not in repr(api)
    given = settings.api_settings(base_url="http://127.0.0.1:9/v1", token="sk_argument")
    assert given.base_url == "http://127.0.0.1:9/v1"
    assert given.token.get_secret_value() == "sk_argument"


def test_token_never_read_from_toml(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[api]\ntoken = "sk_committed_by_mistake"\n')
    with pytest.raises(ConfigError, match="api.token: the token is never read") as caught:
        load_settings(config)
    assert "sk_committed" not in str(caught.value)


def test_a_bad_client_variable_is_named_never_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", "http://api.example.com/v1")
    monkeypatch.setenv("DISPUTE_API_TOKEN", "sk_line\nbreak")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    lines = str(caught.value).splitlines()
    assert any(line.startswith("DISPUTE_API_BASE_URL: plain http://") for line in lines)
    assert any(line.startswith("DISPUTE_API_TOKEN has a line break") for line in lines)
    assert "sk_line" not in str(caught.value)


def test_missing_url_and_token_named_with_what_to_do() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings().api_settings()
    text = str(caught.value)
    assert "DISPUTE_API_BASE_URL is not set" in text and "DISPUTE_API_TOKEN is not set" in text
    with pytest.raises(ValueError, match="DISPUTE_API_TOKEN is not set"):
        DisputeEvidenceClient("https://api.example.com/v1")


def test_the_section_is_the_clients_configuration() -> None:
    assert isinstance(load_settings().api, ApiSettings)


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        (
            "[retention]\ncustomer_data_days = 1000000000000",
            "retention.customer_data_days: must be at least 0 and at most 36,500 "
            "(got 1000000000000)",
        ),
        (
            "[retention]\nreports_days = 1000000000000",
            "retention.reports_days: must be at least 1 and at most 36,500 (got 1000000000000)",
        ),
        (
            "[api]\ntimeout = inf",
            "api.timeout: must be a finite number, more than 0 and at most 3,600 (got inf)",
        ),
        (
            "[api]\nupload_timeout = inf",
            "api.upload_timeout: must be a finite number, more than 0 and at most 3,600 (got inf)",
        ),
        (
            "[evidence]\nread_seconds = inf",
            "evidence.read_seconds: must be a finite number, more than 0 and at most 3,600 "
            "(got inf)",
        ),
        (
            "[evidence]\nread_memory_mb = 10000000000000",
            "evidence.read_memory_mb: must be at least 128 and at most 65,536 (got 10000000000000)",
        ),
        (
            "[alerts]\nalert_hours = nan",
            "alerts.alert_hours: must be a finite number, more than 0 and at most 8,760 (got nan)",
        ),
        (
            "[advice]\nfee_by_days = {1000000000000 = 16.05}",
            "advice.fee_by_days: 1000000000000 days: must be at least 0 and at most 3,650",
        ),
        (
            "[evidence.limit_profiles.visa]\nmax_pages = 1000000000000000000000",
            "evidence.limit_profiles: [evidence.limit_profiles.visa] max_pages: must be at least "
            "1 and at most 1,000,000,000 (got 1000000000000000000000)",
        ),
    ],
)
def test_a_number_out_of_bounds_is_one_line_naming_the_key_and_its_range(
    tmp_path: Path, toml: str, line: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert str(caught.value).splitlines() == [f"{config}: {line}"]


def test_a_client_variable_out_of_bounds_is_named_with_its_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPUTE_API_CONNECT_TIMEOUT", "inf")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value).splitlines() == [
        "DISPUTE_API_CONNECT_TIMEOUT: must be a finite number, more than 0 and at most 600 "
        "(got inf)"
    ]


def _numbers(model: type, where: str = "") -> list[tuple[str, object]]:
    """Every int or float field under `model`, by dotted key, with its FieldInfo (numbers
    inside dicts, fee_by_days and limit_profiles, are bounded by their validators)."""
    import typing

    from pydantic import BaseModel

    out: list[tuple[str, object]] = []
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        if typing.get_origin(field.annotation) is dict:
            continue
        args = typing.get_args(field.annotation) or (field.annotation,)
        for arg in args:
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                out += _numbers(arg, f"{where}{name}.")
            elif arg in (int, float):
                out.append((f"{where}{name}", field))
    return out


def test_every_numeric_setting_has_both_bounds_and_must_be_finite() -> None:
    from annotated_types import Ge, Gt, Le, Lt

    from dispute_evidence.fleet.merchants import MerchantsFile
    from dispute_evidence.settings import Settings

    fields = _numbers(Settings) + _numbers(MerchantsFile)
    assert len(fields) > 25
    for key, field in fields:
        meta = field.metadata  # type: ignore[attr-defined]
        assert any(isinstance(m, Ge | Gt) for m in meta), f"{key}: no lower bound"
        assert any(isinstance(m, Le | Lt) for m in meta), f"{key}: no upper bound"
    for model in (Settings, MerchantsFile):
        with pytest.raises(ValueError, match="finite number"):
            model.model_validate(
                {
                    "alerts" if model is Settings else "fleet": {
                        "alert_hours" if model is Settings else "wait_for_lock": float("inf")
                    }
                }
            )
