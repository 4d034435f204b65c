"""Exit codes: the code, `run --help` and the README's table say the same; a run that leaves
work for a person exits 5 (a cron job notices), a clean one 0; `--inbox` has no hidden default."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox

README = Path(__file__).resolve().parents[2] / "README.md"


def _exit_codes() -> set[int]:
    from dispute_evidence.exits import EXIT_CODES

    return set(EXIT_CODES)


def _readme_codes() -> set[int]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("Exit codes of `run`") :].split("\n\n")[1]
    codes: set[int] = set()
    for cell in re.findall(r"^\s*\| ([\d, ]+) \|", table, flags=re.M):
        codes |= {int(c) for c in cell.split(",")}
    return codes


def test_the_readme_table_and_run_help_list_every_exit_code():
    assert _readme_codes() == _exit_codes()
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    listed = {int(c) for c in re.findall(r"^\s*│?\s+(\d+)\s{2}\S", shown, flags=re.M)}
    assert listed == _exit_codes(), shown
    assert "74" in shown and "130" in shown and "143" in shown


def test_inbox_help_names_no_default_the_run_does_not_have(tmp_path, monkeypatch):
    (tmp_path / "inbox").mkdir()  # a folder holding inbox/, no config
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISPUTE_EVIDENCE_CONFIG", raising=False)
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    line = next(x for x in shown.splitlines() if "--inbox" in x)
    assert "default:  inbox" not in line and "there is no other default" in shown
    done = CliRunner().invoke(app, ["run", "--sandbox"])
    assert done.exit_code == 2 and "Give --inbox" in done.output


def test_a_run_leaving_work_for_a_person_exits_5_and_a_clean_one_0(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    held = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "3 wait for approval" in held.output and "3 need you" in held.output
    assert held.exit_code == 5  # exits.EXIT_NEEDS_YOU
    approve = ["approve", "--inbox", str(inbox), "--all-complete"]
    assert CliRunner().invoke(app, approve).exit_code == 0
    clean = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "nothing needs you" in clean.output, clean.output
    assert clean.exit_code == 0
