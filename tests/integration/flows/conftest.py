"""The flow and CLI tests' own fixtures (tests/flows/cli_fixtures.py)."""

from tests.flows.cli_fixtures import (  # noqa: F401  (autouse fixtures)
    _a_merchant_profile,
    _prefect_console_outlives_cli_runner,
)
