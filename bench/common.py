"""Shared benchmark helpers: a sandbox in its own process, and figure printing."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from support.pg import free_port

TOKEN = "sk_bench_token"


@contextlib.contextmanager
def sandbox_process(*args: str) -> Iterator[str]:
    """Run `dispute-evidence sandbox` in a subprocess (own GIL); yield its base URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "dispute_evidence", "sandbox", "--port", str(port), "--token", TOKEN,
           "--log-level", "WARNING", *args]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", port), timeout=0.2),
            ):
                break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def figure(name: str, value: str, target: str = "") -> None:
    print(f"  {name:<58} {value:>16}  {target}", flush=True)


def heading(text: str) -> None:
    print(f"\n== {text}", flush=True)
