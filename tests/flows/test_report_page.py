"""The report page as a person sees it: rendered by headless Chromium (Debian's package) to a
PNG. Skipped, saying why, where Chromium is not installed (apt-get install chromium)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def screenshot(page: Path, png: Path, tmp: Path, size: str = "1300,1600") -> None:
    subprocess.run(
        [CHROMIUM or "chromium", *FLAGS, f"--user-data-dir={tmp / 'chromium'}",
         f"--window-size={size}", f"--screenshot={png}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def test_the_report_page_holds_the_dispute_table_and_renders(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), "--sandbox"])
    assert r.exit_code == 0, r.output
    page = tmp_path / "inbox.reports" / "latest" / "summary.html"
    html = page.read_text()
    assert "<h2>Disputes (7), nearest deadline first</h2>" in html
    for header in ("Deadline (UTC)", "Days left", "Status", "Next step", "File problems"):
        assert f"<th>{header}</th>" in html
    rows = html.split("<h2>Disputes (7)")[1].split("</table>")[0].count("<tr>") - 1
    assert rows == 7  # one row per dispute
    assert "<h2>Outcomes (statuses read back from the API)</h2>" in html
    assert (
        "http://" not in html.replace("http://evil", "") and "<script" not in html
    )  # self-contained
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium): page not rendered")
    png = tmp_path / "report.png"
    screenshot(page, png, tmp_path)
    width, height = struct.unpack(">II", png.read_bytes()[16:24])
    assert (width, height) == (1300, 1600) and png.stat().st_size > 20_000  # a real picture
