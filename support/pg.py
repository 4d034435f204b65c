"""A throwaway PostgreSQL cluster (the server binaries Debian installs), for tests and benches."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PG_BIN = (
    next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"))), None)
    if Path("/usr/lib/postgresql").exists()
    else None
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_missing() -> str | None:
    """Why a throwaway cluster cannot start here, or None."""
    if PG_BIN is None:
        return "PostgreSQL server binaries are not installed (/usr/lib/postgresql/*/bin)"
    if shutil.which("runuser") is None:
        return "runuser is missing (needed to run PostgreSQL as the postgres user)"
    return None


@contextmanager
def throwaway_postgres(port: int, databases: tuple[str, ...] = ()) -> Iterator[str]:
    """A cluster on 127.0.0.1:`port` with trust auth; yields its base URL (no database)."""
    assert PG_BIN is not None, postgres_missing()
    data = Path(tempfile.mkdtemp(prefix="pg-"))
    shutil.chown(data, "postgres", "postgres")
    as_pg = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*as_pg, str(PG_BIN / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres"],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([*as_pg, str(PG_BIN / "pg_ctl"), "-D", str(data / "db"), "-w", "-l", str(data / "log"),
                    "-o", f"-c listen_addresses=127.0.0.1 -k {data} -p {port} -c max_connections=300",
                    "start"], check=True, capture_output=True)  # fmt: skip
    try:
        for name in databases:
            subprocess.run([*as_pg, str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(port), name],
                           check=True, capture_output=True)  # fmt: skip
        yield f"postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_pg, str(PG_BIN / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(data, ignore_errors=True)
