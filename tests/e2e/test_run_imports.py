"""A run loads the PDF renderers (reportlab, pypdf: ~0.4 s to import) only when it makes a PDF:
a no-op run, and a night where nothing changed, do without them. Each run is a fresh process
(`-X importtime` lists every module it loaded), against the local API over loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TOKEN
from tests.support.engine_helpers import make_inbox

RENDERERS = ("reportlab", "pypdf")
LAYOUTS = ("dispute_evidence.evidence.summary_pdf", "dispute_evidence.evidence.packet")


def loaded(args: list[str], env: dict[str, str], cwd: Path) -> tuple[set[str], str]:
    """The modules a `dispute-evidence` process loaded (and their top-level packages), and its
    stderr's end."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dispute_evidence", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in r.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert r.returncode in (0, 5), r.stderr[-2000:]  # 5: some dispute needs the analyst
    return names | {n.split(".")[0] for n in names}, r.stderr[-2000:]


@pytest.mark.e2e
def test_a_run_that_makes_no_pdf_loads_no_pdf_renderer(sandbox, tmp_path):
    env = {
        **os.environ,
        "DISPUTE_API_BASE_URL": sandbox.base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
    }
    env.pop("PREFECT_API_URL", None)
    empty = tmp_path / "empty"
    empty.mkdir()
    names, _ = loaded(["run", "--inbox", str(empty)], env, tmp_path)
    assert "dispute_evidence" in names and "pandas" in names  # the list is read right
    assert not names & set(RENDERERS), "an empty run loaded a PDF renderer"

    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    names, _ = loaded(["run", "--inbox", str(inbox)], env, tmp_path)
    assert {*RENDERERS, *LAYOUTS} <= names  # its letters and packets: made, so loaded
    again, tail = loaded(["run", "--inbox", str(inbox)], env, tmp_path)
    assert not again & {"pypdf", *LAYOUTS}, f"nothing changed, yet a PDF layout loaded\n{tail}"
