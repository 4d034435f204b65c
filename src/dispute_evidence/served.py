"""Which Prefect server an inbox's runs are recorded in, when `serve` runs for it.

`serve` leaves <inbox>/.dispute-evidence/prefect-server.json (its server's URL and its pid)
while it runs; a one-off `run` of the same inbox records there too, and in no other server
that happens to answer on this host. Light on purpose: read before Prefect is imported.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

from dispute_evidence.inbox import PRIVATE, InboxLayout


def healthy(url: str) -> bool:
    """True when the Prefect server at `url` (ending in /api) answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as r:  # noqa: S310 - loopback only
            return bool(r.status == 200)
    except OSError:
        return False


SERVER_MARKER = "prefect-server.json"  # in <inbox>/.dispute-evidence/ while `serve` runs


def write_server_marker(inbox: Path, api_url: str) -> Path | None:
    """Say where this inbox's `serve` records its runs, so a one-off `run` of the same inbox
    records there too (and in no other Prefect server that happens to answer)."""
    layout = InboxLayout.at(inbox)
    if PRIVATE in layout.folder_problems():
        return None
    folder = layout.root / PRIVATE
    folder.mkdir(mode=0o700, exist_ok=True)
    marker = folder / SERVER_MARKER
    marker.write_text(json.dumps({"api_url": api_url, "pid": os.getpid()}), encoding="utf-8")
    return marker


def served_prefect_api(inbox: Path) -> str | None:
    """The Prefect server this inbox's running `serve` uses, if one is running and answers."""
    marker = InboxLayout.at(inbox).root / PRIVATE / SERVER_MARKER
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        os.kill(int(data["pid"]), 0)  # the serve that wrote it still runs
        url = str(data["api_url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url if healthy(url) else None
