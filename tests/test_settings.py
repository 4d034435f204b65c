"""One Settings: the [api] section is the client's configuration, read in one documented
order (arguments > DISPUTE_API_* > DISPUTE_EVIDENCE_API__* > .env > TOML > defaults)."""

from __future__ import annotations

import subprocess
import sys
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


def test_importing_the_settings_loads_no_engine_pandas_sqlalchemy_or_aiohttp() -> None:
    code = (
        "import sys, dispute_evidence.settings; "
        "print(sorted(m for m in ('pandas', 'sqlalchemy', 'aiohttp', 'prefect', "
        "'dispute_evidence.engine', 'dispute_evidence.ingest') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
