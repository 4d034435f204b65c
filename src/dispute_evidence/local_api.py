"""The API a run sends to: the configured one, or with `--sandbox` a local API of the inbox's
own, started for the run and stopped after it (its state kept in the inbox's private folder,
so the next sandbox run meets the same API, as it would a real one)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from dispute_evidence.api.config import ApiSettings
from dispute_evidence.settings import RunRequest

if TYPE_CHECKING:
    from dispute_evidence.sandbox import RunningSandbox
    from dispute_evidence.settings import Settings

SANDBOX_DB = "sandbox.sqlite3"  # in <inbox>/.dispute-evidence/: the inbox's own local API


class RunApi(NamedTuple):
    config: ApiSettings | None  # None: a dry run, which sends nothing
    identity: str | None  # what the state calls the API, when its address does not say


@contextmanager
def run_api(settings: Settings, request: RunRequest) -> Iterator[RunApi]:
    """The client configuration for this run (None: a dry run sends nothing) and, for the
    inbox's own sandbox, what the state calls it (its address changes each run). ConfigError
    when the URL or token is missing or unusable."""
    if request.dry_run:
        yield RunApi(None, None)
        return
    if not request.sandbox:
        yield RunApi(settings.api_settings(base_url=request.base_url), None)
        return
    sb = inbox_sandbox(request.inbox)
    try:
        api = settings.api_settings(base_url=sb.base_url, token=sb.config.tokens[0])
        yield RunApi(api, sandbox_identity_of(request.inbox))
    finally:
        sb.stop()


def sandbox_identity_of(inbox: Path) -> str:
    """What the state calls the inbox's own sandbox: where it keeps its state (one in memory
    is a new API each run)."""
    from dispute_evidence.state.apis import sandbox_identity

    db = _sandbox_db(inbox)
    return sandbox_identity(db if db != ":memory:" else f"in memory {os.urandom(6).hex()}")


def inbox_sandbox(inbox: Path) -> RunningSandbox:
    """A local API that knows the disputes named in the inbox (as the real provider would)."""
    import pandas as pd

    from dispute_evidence.evidence.views import minor_units
    from dispute_evidence.ingest import ingest_paths, scan_inbox
    from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
    from dispute_evidence.sandbox.seed import generate_disputes

    sheets, _, _ = scan_inbox(inbox)
    records = ingest_paths(sheets, inbox).records["disputes"]
    template = generate_disputes(max(len(records), 1), seed=7)
    rows = []
    for tmpl, d in zip(template, records.to_dict("records"), strict=False):
        row = {**tmpl, "provider_dispute_id": d["provider_dispute_id"]}
        if d.get("response_due_by"):
            row["response_due_by"] = d["response_due_by"]
        if d.get("currency"):
            row["currency"] = d["currency"]
        # as the real provider would: the list's reason and amount (runs compare them)
        row["reason"] = d.get("reason") or row["reason"]
        if (amount := pd.to_numeric(d.get("amount"), errors="coerce")) == amount:
            row["amount"] = minor_units(float(amount), str(row["currency"]))
        rows.append(row)
    token = "sk_test_" + os.urandom(12).hex()
    return run_sandbox_in_thread(SandboxConfig(tokens=(token,)), rows, db_path=_sandbox_db(inbox))


def _sandbox_db(inbox: Path) -> str:
    """<inbox>/.dispute-evidence/sandbox.sqlite3, or memory when that folder is unusable (a
    link or a file: never written through; the run's report names the folder)."""
    from dispute_evidence.inbox import PRIVATE, InboxLayout

    layout = InboxLayout.at(inbox)
    if PRIVATE in layout.folder_problems():
        return ":memory:"
    folder = layout.root / PRIVATE
    folder.mkdir(mode=0o700, exist_ok=True)
    return str(folder / SANDBOX_DB)
