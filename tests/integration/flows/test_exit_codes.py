"""Exit codes: the code, `run --help` and the README's table say the same; a run that leaves
work for a person exits 5 (a cron job notices), a clean one 0; `--inbox` has no hidden default."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox

README = Path(__file__).resolve().parents[3] / "README.md"


def _exit_codes() -> set[int]:
    from dispute_evidence.exits import EXIT_CODES

    return set(EXIT_CODES)


def _readme_rows(command: str) -> dict[int, str]:
    """The README's table of `command`'s exit codes: code -> its row's meaning."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index(f"Exit codes of `{command}`") :].split("\n\n")[1]
    rows: dict[int, str] = {}
    for cell, meaning in re.findall(r"^\s*\| ([\d, ]+) \| (.*) \|$", table, flags=re.M):
        rows |= {int(c): meaning for c in cell.split(",")}
    return rows


def _readme_codes() -> set[int]:
    return set(_readme_rows("run"))


def _help_codes(command: str) -> set[int]:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
    return {int(c) for c in re.findall(r"^\s*│?\s+(\d+)\s{2}\S", shown, flags=re.M)}


def test_the_readme_table_and_run_help_list_every_exit_code():
    assert _readme_codes() == _exit_codes()
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert _help_codes("run") == _exit_codes(), shown
    assert "74" in shown and "130" in shown and "143" in shown


# What each code means, in words both `run --help` and the README's row must hold.
MEANS = {
    0: ["skipped by a rule", "nothing needs"],
    1: ["failed", "state store"],
    2: ["usage", "configuration"],
    3: ["refused the key", "nothing was sent"],
    4: ["could not be reached", "nothing was sent", "Retry-After", "what was sent is kept"],
    5: ["a person"],
    74: ["disk is full", "nothing was lost"],
    130: ["Ctrl-C"],
    143: ["SIGTERM"],
}


def test_each_exit_codes_help_words_say_what_its_readme_row_says():
    from dispute_evidence.exits import EXIT_CODES

    rows = _readme_rows("run")
    assert set(MEANS) == set(EXIT_CODES)
    for code, words in MEANS.items():
        missing = [w for w in words if w not in EXIT_CODES[code] or w not in rows[code]]
        assert not missing, (code, missing, EXIT_CODES[code], rows[code])


def test_approve_help_and_readme_list_every_code_approve_returns():
    """`approve` returns 0-4 and 74 (a policy refusing the approval is 2, a long Retry-After
    4, a full disk 74), never 5; its --help and the README's table say so, in the same words."""
    from dispute_evidence.exits import APPROVE_EXIT_CODES

    assert set(APPROVE_EXIT_CODES) == {0, 1, 2, 3, 4, 74}
    assert _help_codes("approve") == set(APPROVE_EXIT_CODES)
    rows = _readme_rows("approve")
    assert set(rows) == set(APPROVE_EXIT_CODES)
    means = {
        0: ["--no-send", "lock"],
        1: ["not all sent", "state database stopped answering"],
        2: ["unknown dispute", "approvers", "second_approver_over"],
        3: ["refused the key", "the approval is kept"],
        4: ["could not be reached", "Retry-After", "the approval is kept"],
        74: ["disk is full", "nothing was lost"],
    }
    for code, words in means.items():
        missing = [w for w in words if w not in APPROVE_EXIT_CODES[code] or w not in rows[code]]
        assert not missing, (code, missing)


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
