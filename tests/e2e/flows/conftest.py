"""The flow and CLI tests' own fixtures (tests/support/cli_fixtures.py)."""

from tests.support.cli_fixtures import (  # noqa: F401  (autouse fixtures)
    _a_merchant_profile,
    _prefect_console_outlives_cli_runner,
)
