"""Which Prefect server an inbox's runs are recorded in, when `serve` runs for it.

`serve` leaves <inbox>/.dispute-evidence/prefect-server.json (its server's URL, its pid and a
token it also keeps on its server) while it runs; a one-off `run` of the same inbox records there too, and in no other server
that happens to answer on this host. Light on purpose: read before Prefect is imported.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
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


def serve_token_name(inbox: Path) -> str:
    """The Prefect Variable in which this inbox's `serve` keeps its token, on its server."""
    where = str(inbox.resolve()).encode()
    return "dispute-evidence-serve-" + hashlib.sha256(where).hexdigest()[:16]


def write_server_marker(inbox: Path, api_url: str, token: str) -> Path | None:
    """Say where this inbox's `serve` records its runs, so a one-off `run` of the same inbox
    records there too (and in no other Prefect server that happens to answer). `token` is
    known only to that serve and its server (a Prefect Variable): the marker is written
    readable by its owner only (0600)."""
    layout = InboxLayout.at(inbox)
    if PRIVATE in layout.folder_problems():
        return None
    folder = layout.root / PRIVATE
    folder.mkdir(mode=0o700, exist_ok=True)
    marker = folder / SERVER_MARKER
    marker.unlink(missing_ok=True)  # never written through whatever was there
    body = json.dumps({"api_url": api_url, "pid": os.getpid(), "token": token})
    fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(body)
    return marker


def served_prefect_api(inbox: Path) -> str | None:
    """The Prefect server this inbox's running `serve` uses: only when the marker is ours
    (our user's, 0600, not a link), the serve that wrote it still runs, and the server at its
    URL holds its token. A planted marker pointing elsewhere is never followed."""
    marker = InboxLayout.at(inbox).root / PRIVATE / SERVER_MARKER
    try:
        st = os.lstat(marker)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
        data = json.loads(marker.read_text(encoding="utf-8"))
        os.kill(int(data["pid"]), 0)  # the serve that wrote it still runs
        url, token = str(data["api_url"]), str(data["token"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return url if healthy(url) and _holds(url, serve_token_name(inbox), token) else None


def _holds(url: str, name: str, token: str) -> bool:
    """True when the Prefect server at `url` keeps `token` in the Variable `name`."""
    try:
        with urllib.request.urlopen(f"{url}/variables/name/{name}", timeout=2) as r:  # noqa: S310
            value = json.loads(r.read()).get("value")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(value, str) and hmac.compare_digest(value, token)
