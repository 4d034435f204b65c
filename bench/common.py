"""Shared benchmark helpers: a sandbox in its own process, and figure printing beside the last
release's figures (a stored baseline: bench/baselines/<bench>.json, `--save-baseline`)."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from support.pg import free_port

TOKEN = "sk_bench_token"


@contextlib.contextmanager
def sandbox_process(*args: str) -> Iterator[str]:
    """Run `dispute-evidence sandbox` in a subprocess (own GIL); yield its base URL."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "dispute_evidence",
        "sandbox",
        "--port",
        str(port),
        "--token",
        TOKEN,
        "--log-level",
        "WARNING",
        *args,
    ]
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


BASELINES = Path(__file__).parent / "baselines"


@dataclass
class _Run:
    """The benchmark running: its figures, and the last release's to print beside them."""

    bench: str = ""
    section: str = ""
    figures: dict[str, str] = field(default_factory=dict)
    release: dict[str, str] = field(default_factory=dict)
    release_of: str = ""


_RUN = _Run()


def begin(bench: str) -> None:
    """A benchmark starts: its stored baseline (bench/baselines/<bench>.json, the last
    release's figures, `--save-baseline`) is read, to print beside each figure."""
    _RUN.bench, _RUN.section, _RUN.figures = bench, "", {}
    stored = BASELINES / f"{bench}.json"
    saved = json.loads(stored.read_text()) if stored.exists() else {}
    _RUN.release, _RUN.release_of = saved.get("figures", {}), saved.get("code", "")
    if _RUN.release:
        print(
            f"\n(release column: {stored.name}, measured from {_RUN.release_of} "
            f"on {saved.get('machine', '?')}, {saved.get('when', '?')})",
            flush=True,
        )


def save_baseline() -> Path:
    """The figures just printed as the bench's baseline, naming the code they measured."""
    BASELINES.mkdir(exist_ok=True)
    out = BASELINES / f"{_RUN.bench}.json"
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body = {
        "code": measured_code(),
        "machine": f"{platform.node()}, {os.cpu_count()} cores",
        "when": stamp,
        "figures": _RUN.figures,
    }
    out.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    print(f"baseline saved: {out}", flush=True)
    return out


def measured_code() -> str:
    """The commit of the dispute_evidence this interpreter imports (`python -m bench` run by
    another checkout's interpreter measures that checkout's code with this harness)."""
    import dispute_evidence

    where = Path(dispute_evidence.__file__).parent
    head = subprocess.run(
        ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return head.stdout.strip() or f"? ({where})"


def figure(name: str, value: str, target: str = "") -> None:
    """One figure, and the last release's beside it (the stored baseline), when there is one."""
    key = f"{_RUN.section} | {name}"
    _RUN.figures[key] = value
    release = f" {_RUN.release.get(key, '-'):>16}" if _RUN.release else ""
    print(f"  {name:<58} {value:>16}{release}  {target}".rstrip(), flush=True)


def heading(text: str, columns: bool = True) -> None:
    _RUN.section = text
    print(f"\n== {text}", flush=True)
    if _RUN.release and columns:
        print(f"  {'':<58} {'now':>16} {'release':>16}", flush=True)
