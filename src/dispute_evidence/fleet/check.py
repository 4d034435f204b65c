"""`deploy --check`: what a merchants file needs beyond being valid, checked from here.

Each merchant's inbox is a folder, each database (state and the shared budget) answers,
each Secret block exists on the Prefect server. One line per problem, naming the merchant;
a password in a database URL is never shown.
"""

from __future__ import annotations

from pathlib import Path

from dispute_evidence.fleet.merchants import MerchantRun
from dispute_evidence.settings.environment import environment
from dispute_evidence.state.database import answer_problem, database_of, shown

CONNECT_TIMEOUT = 5  # seconds: a database that does not answer in this time is reported


def fleet_problems(runs: list[MerchantRun]) -> tuple[list[str], list[str]]:
    """(problems, what could not be checked from here), one line each."""
    problems = [
        f"merchant '{r.id}': inbox {r.inbox} is not a folder (create it, or fix `inbox`)"
        for r in runs
        if not Path(r.inbox).is_dir()
    ]
    users: dict[str, list[str]] = {}
    for r in runs:
        for url in (r.state, r.budget_url):
            users.setdefault(database_of(url), []).append(r.id)
    for database, ids in users.items():
        if why := database_problem(database):
            who = ", ".join(sorted(set(ids)))
            problems.append(f"database {shown(database)} (used by {who}) {why}")
    blocks = sorted({r.token_secret_block for r in runs if r.token_secret_block})
    if blocks and not environment().prefect_api_url:
        return problems, [
            f"Secret block '{b}': not checked (set PREFECT_API_URL to your Prefect server)"
            for b in blocks
        ]
    problems += [f"Secret block '{b}' {why}" for b in blocks if (why := secret_problem(b))]
    return problems, []


def database_problem(database: str) -> str | None:
    """Why the database does not answer `SELECT 1` (None when it does)."""
    return answer_problem(database, CONNECT_TIMEOUT)


def secret_problem(name: str) -> str | None:
    """Why the Prefect Secret block cannot be loaded (None when it can); never its value."""
    from prefect.blocks.system import Secret

    try:
        Secret.load(name)
    except ValueError:
        return "not found on the Prefect server (create it: see docs/deployment.md)"
    except Exception as exc:  # noqa: BLE001 - the server's answer, said in one line
        return f"could not be read ({type(exc).__name__})"
    return None
