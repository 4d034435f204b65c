"""PostgreSQL killed mid-run (issue 30): one line naming the state database, exit 1, no
traceback; once it is back, the next run finishes and nothing is sent twice."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from support.pg import PG_BIN, free_port, postgres_missing
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox

AS_PG = ["runuser", "-u", "postgres", "--"]


def _pg(data: Path, port: int, action: str) -> None:
    args = [*AS_PG, str(PG_BIN / "pg_ctl"), "-D", str(data / "db"), "-w", "-l", str(data / "log")]
    if action == "start":
        args += ["-o", f"-c listen_addresses=127.0.0.1 -k {data} -p {port}", "start"]
    else:  # killed, as by the OOM killer or a crash: no clean shutdown
        args += ["-m", "immediate", "stop"]
    subprocess.run(args, check=True, capture_output=True)


@pytest.mark.slow
def test_postgres_killed_mid_run_is_one_line_and_the_next_run_sends_nothing_twice(
    tmp_path, sandbox_factory
):
    if why := postgres_missing():
        pytest.skip(why)
    from dispute_evidence.sandbox import SandboxConfig

    data, port = Path(tempfile.mkdtemp(prefix="pg-")), free_port()
    shutil.chown(data, "postgres", "postgres")
    subprocess.run([*AS_PG, str(PG_BIN / "initdb"), "-D", str(data / "db"), "-A", "trust",
                    "-U", "postgres"], check=True, capture_output=True)  # fmt: skip
    _pg(data, port, "start")
    sb = sandbox_factory(  # slow answers: the database dies while the run sends
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(300, 300)), seed_rows(12)
    )
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 12)
    state = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    env = {**os.environ, "DISPUTE_API_BASE_URL": sb.base_url, "DISPUTE_API_TOKEN": TOKEN,
           "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0"}  # fmt: skip
    env.pop("PREFECT_API_URL", None)
    command = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox),
               "--state", state]  # fmt: skip
    try:
        proc = subprocess.Popen(command, env=env, cwd=tmp_path, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if sum(d["evidence_updates"] for d in sb.snapshot().values()) >= 2:
                break
            time.sleep(0.1)
        _pg(data, port, "kill")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, out + err
        for noise in ("Traceback", "unhandled exception", "Exception ignored", "ERROR"):
            assert noise not in out + err, out + err
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines[0].startswith("Config: "), err  # what it read, then the one problem line
        assert len(lines) == 2, err
        assert lines[1].startswith("State store problem: the state database stopped answering")
        assert "run again" in lines[1], err
        _pg(data, port, "start")
        again = subprocess.run(command, env=env, cwd=tmp_path, text=True, capture_output=True,
                               timeout=180)  # fmt: skip
        assert again.returncode in (0, 5), again.stdout + again.stderr  # 5: a profile to set
        snap = sb.snapshot()
        # evidence in flight when the database died is sent again (a full-state upsert of the
        # same payload: harmless, docs/architecture.md); a file never lands twice
        assert all(1 <= d["evidence_updates"] <= 2 for d in snap.values()), snap
        for d in snap.values():
            names = [f["file_name"] for f in d["files"]]
            assert len(names) == len(set(names)), names
    finally:
        subprocess.run([*AS_PG, str(PG_BIN / "pg_ctl"), "-D", str(data / "db"), "-m",
                        "immediate", "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(data, ignore_errors=True)
