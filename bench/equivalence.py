"""`python -m bench.equivalence BEFORE AFTER [...]`: the same inbox run by two commits gives
identical state rows, payloads and uploaded bytes (a structure change must change nothing a
merchant or the API sees).

Each commit is checked out in a temporary worktree and run in its own process: a seeded
inbox (`sandbox.workload.make_inbox`, fixed dates), the sandbox API on loopback with a file
database, then `dispute-evidence run` through the CLI twice (a first run and a rerun). What
is compared: the state's disputes and evidence_files rows (all columns but times, leases,
run ids and the API's own ids), each payload, and what the API holds (each dispute's
evidence object, each file's name and bytes). Pairs after the first are compared with it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VOLATILE = {
    "updated_at",
    "created_at",
    "lease_owner",
    "lease_expires",
    "dispute_id",
    "remote_file_id",
    "run_id",
    "api_read_at",
    "read_at",
    "last_read_at",
    "id",
    "seq",
    "path",
    "sent_to",
    "first_seen",
    "last_seen",
}

RUN = r"""
import json, os, sys
from datetime import UTC, datetime
from pathlib import Path
from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from dispute_evidence.sandbox.workload import TOKEN, make_inbox, seed_rows
work = Path(sys.argv[1])
inbox = work / "inbox"
make_inbox(inbox, 12, files=(1, 2), seed=3)
rows = seed_rows(12)
for i, row in enumerate(rows):
    row["initiated_at"] = "2026-11-01T00:00:00Z"
    row["response_due_by"] = f"2027-01-{10 + i:02d}T23:59:59Z"
sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,), seed=1), rows,
                           db_path=str(work / "api.sqlite3"))
os.environ.update(DISPUTE_API_BASE_URL=sb.base_url, DISPUTE_API_TOKEN=TOKEN,
                  DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS="0")
from typer.testing import CliRunner
from dispute_evidence.cli import app
codes = [CliRunner().invoke(app, ["run", "--inbox", str(inbox)]).exit_code for _ in range(2)]
sb.stop()
print(json.dumps(codes))
"""


def _rows(db: Path, table: str, order: str) -> list[dict[str, object]]:
    with sqlite3.connect(db) as c:
        c.row_factory = sqlite3.Row
        rows = [dict(r) for r in c.execute(f"SELECT * FROM {table} ORDER BY {order}")]  # noqa: S608
    return [
        {k: v for k, v in r.items() if k not in VOLATILE and not k.endswith(("_at", "time"))}
        for r in rows
    ]


def picture(commit: str, work: Path) -> dict[str, object]:
    """Run the inbox at `commit`; what the state and the API hold afterwards."""
    tree = work / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree), commit], check=True
    )
    try:
        env = {
            "PYTHONPATH": f"{tree / 'src'}:{tree}",
            "PATH": "/usr/bin:/bin",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "HOME": str(work),
        }
        out = subprocess.run(
            [sys.executable, "-c", RUN, str(work)],
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True
        )
    state = work / "inbox.state.sqlite3"
    disputes = _rows(state, "disputes", "provider_dispute_id")
    files = _rows(state, "evidence_files", "provider_dispute_id, sha256")
    with sqlite3.connect(work / "api.sqlite3") as c:
        evidence = dict(c.execute("SELECT provider_dispute_id, evidence FROM disputes"))
        uploaded = sorted(
            (pid, name, hashlib.sha256(content).hexdigest())
            for pid, name, content in c.execute(
                "SELECT d.provider_dispute_id, f.file_name, f.content FROM files f "
                "JOIN disputes d ON d.id = f.dispute_id"
            )
        )
    return {
        "exit codes": json.loads(out.stdout.strip().splitlines()[-1]),
        "state disputes": disputes,
        "state files": files,
        "API evidence": {k: json.loads(v) for k, v in sorted(evidence.items())},
        "API files (name, sha256)": uploaded,
    }


def main(commits: list[str]) -> int:
    pictures = {}
    for commit in commits:
        with tempfile.TemporaryDirectory(prefix="equivalence-") as tmp:
            pictures[commit] = picture(commit, Path(tmp))
    first, *rest = commits
    worst = 0
    for other in rest:
        a, b = pictures[first], pictures[other]
        for part in a:
            same = a[part] == b[part]
            worst |= not same
            print(f"{first} vs {other}: {part:<28} {'identical' if same else 'DIFFERENT'}")
            if not same and isinstance(a[part], list):
                diff = [(x, y) for x, y in zip(a[part], b[part], strict=False) if x != y]
                print(f"    first difference: {diff[:1]}")
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
