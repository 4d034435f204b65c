"""The settings in fresh processes: importing them loads no engine, pandas, sqlalchemy or
aiohttp; the CLI refuses overflowing settings, one line each, exit 2 (the rest:
tests/unit/test_settings.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_settings import (
    TOKEN,
    _clean,  # noqa: F401 (autouse)
)


@pytest.mark.e2e
def test_importing_the_settings_loads_no_engine_pandas_sqlalchemy_or_aiohttp() -> None:
    code = (
        "import sys, dispute_evidence.settings; "
        "print(sorted(m for m in ('pandas', 'sqlalchemy', 'aiohttp', 'prefect', "
        "'dispute_evidence.engine', 'dispute_evidence.ingest') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.e2e
def test_the_run_refuses_overflowing_settings_in_one_line_each_exit_2(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    config = tmp_path / "c.toml"
    config.write_text(
        "[retention]\ncustomer_data_days = 1000000000000\n[api]\ntimeout = inf\n"
        "[evidence]\nread_seconds = inf\n"
    )
    import os

    out = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "run", "--config", str(config), "--inbox",
         str(tmp_path / "inbox"), "--dry-run"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "DISPUTE_API_BASE_URL": "http://127.0.0.1:9/v1",
             "DISPUTE_API_TOKEN": TOKEN},
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "Error:" not in out.stderr.replace(
        "Configuration error:", ""
    )
    assert sorted(out.stderr.splitlines()) == [
        f"Configuration error: {config}: api.timeout: must be a finite number, more than 0 and "
        "at most 3,600 (got inf)",
        f"Configuration error: {config}: evidence.read_seconds: must be a finite number, more "
        "than 0 and at most 3,600 (got inf)",
        f"Configuration error: {config}: retention.customer_data_days: must be at least 0 and "
        "at most 36,500 (got 1000000000000)",
    ]
