"""A run loads the PDF renderers only when it makes a PDF: a run on an empty state loads neither
reportlab nor pypdf (~0.4 s to import), and a night where nothing changed loads no PDF layout
and no pypdf (reportlab's graphics still draw the standing's chart). A renderer that cannot be
imported stops the run before anything is sent: a broken install is not one dispute's bad PDF.
Each run is a fresh process (`-X importtime` lists every module it loaded), against the local
API over loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TOKEN
from tests.support.engine_helpers import make_inbox

RENDERERS = ("reportlab", "pypdf")
LAYOUTS = (
    "dispute_evidence.engine.prepare.pdf_build",
    "dispute_evidence.evidence.summary_pdf",
    "dispute_evidence.evidence.packet",
)


def cli_env(base_url: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DISPUTE_API_BASE_URL": base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
    }
    env.pop("PREFECT_API_URL", None)
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dispute_evidence", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def loaded(args: list[str], env: dict[str, str], cwd: Path) -> tuple[set[str], str]:
    """The modules a `dispute-evidence` process loaded (and their top-level packages), and its
    stderr's end."""
    r = run(args, env, cwd)
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in r.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert r.returncode in (0, 5), r.stderr[-2000:]  # 5: some dispute needs the analyst
    return names | {n.split(".")[0] for n in names}, r.stderr[-2000:]


@pytest.mark.e2e
def test_a_run_that_makes_no_pdf_loads_no_pdf_layout(sandbox, tmp_path):
    env = cli_env(sandbox.base_url)
    empty = tmp_path / "empty"
    empty.mkdir()
    names, _ = loaded(["run", "--inbox", str(empty)], env, tmp_path)
    assert "dispute_evidence" in names and "pandas" in names  # the list is read right
    assert not names & {*RENDERERS, *LAYOUTS}, "an empty run loaded a PDF renderer"

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    names, _ = loaded(["run", "--inbox", str(inbox)], env, tmp_path)
    assert {*RENDERERS, *LAYOUTS} <= names  # its letters and packets: made, so loaded
    again, tail = loaded(["run", "--inbox", str(inbox)], env, tmp_path)
    assert not again & {"pypdf", *LAYOUTS}, f"nothing changed, yet a PDF layout loaded\n{tail}"


@pytest.mark.e2e
def test_a_renderer_that_cannot_be_imported_stops_the_run_before_anything_is_sent(
    sandbox, tmp_path
):
    broken = tmp_path / "site" / "pypdf"  # first on the path: pypdf as a broken install has it
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('pypdf is broken here')\n")
    env = cli_env(sandbox.base_url)
    env["PYTHONPATH"] = os.pathsep.join([str(broken.parent), env.get("PYTHONPATH", "")])
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    r = run(["run", "--inbox", str(inbox)], env, tmp_path)
    assert r.returncode not in (0, 5), r.stderr[-2000:]
    assert "pypdf is broken here" in r.stderr, r.stderr[-2000:]
    assert all(d["evidence_updates"] == 0 for d in sandbox.snapshot().values())
