"""`deploy --check`: what a merchants file needs beyond being valid, checked from here.

Each merchant's inbox is a folder, each database (state and the shared budget) answers,
each Secret block exists on the Prefect server. One line per problem, naming the merchant;
a password in a database URL is never shown.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from dispute_evidence.fleet.merchants import MerchantRun

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
            users.setdefault(_database(url), []).append(r.id)
    for database, ids in users.items():
        if why := database_problem(database):
            who = ", ".join(sorted(set(ids)))
            problems.append(f"database {_shown(database)} (used by {who}) {why}")
    blocks = sorted({r.token_secret_block for r in runs if r.token_secret_block})
    if blocks and not os.environ.get("PREFECT_API_URL"):
        return problems, [
            f"Secret block '{b}': not checked (set PREFECT_API_URL to your Prefect server)"
            for b in blocks
        ]
    problems += [f"Secret block '{b}' {why}" for b in blocks if (why := secret_problem(b))]
    return problems, []


def _database(url: str) -> str:
    """The database a state or budget value names, without per-merchant options."""
    if "://" not in url:
        return url  # a SQLite path
    return make_url(url).set(query={}).render_as_string(hide_password=False)


def _shown(database: str) -> str:
    if "://" not in database:
        return database
    return make_url(database).render_as_string(hide_password=True)


def database_problem(database: str) -> str | None:
    """Why the database does not answer `SELECT 1` (None when it does)."""
    if "://" not in database:
        folder = Path(database).expanduser().parent
        return None if folder.is_dir() else f"cannot be created: {folder} is not a folder"
    args = {"connect_timeout": CONNECT_TIMEOUT} if database.startswith("postgresql") else {}
    engine = create_engine(database, connect_args=args)
    try:
        with engine.connect() as c:
            c.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any failure is the answer; its class says which
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return f"does not answer ({type(exc).__name__}: {first[:200]})".replace(
            make_url(database).password or "\0", "***"
        )
    finally:
        engine.dispose()
    return None


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
