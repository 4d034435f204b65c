"""Text from the config, a merchants file or the inbox reaches the terminal shown, never
obeyed: an escape sequence in a key or a file name is printed as <U+001B>[2J, not run by the
terminal (issue 39, item 12)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dispute_evidence
from dispute_evidence.names import terminal

SRC = Path(dispute_evidence.__file__).parent
ROOT = SRC.parents[1]
ESC = "\x1b[2J\x1b]0;pwned\x07"  # clear the screen, retitle the window, ring the bell
OBEYED = ("\x1b", "\x07", "\r", "\x9b", "\u202e")


def _cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dispute_evidence", *args], capture_output=True, text=True,
        timeout=120, cwd=cwd, env={**os.environ, **env},
    )  # fmt: skip


def test_control_characters_are_shown_line_breaks_and_tabs_kept() -> None:
    assert terminal(f"a{ESC}b") == "a<U+001B>[2J<U+001B>]0;pwned<U+0007>b"
    assert terminal("over\rwrite\x9b2J rtl\u202egnp.pdf") == (
        "over<U+000D>write<U+009B>2J rtl<U+202E>gnp.pdf"
    )
    assert terminal("one\n\ttwo\u2028three\x85") == "one\n\ttwo<U+2028>three<U+0085>"
    assert terminal("Disputes (2) · 5 000 € — ok") == "Disputes (2) · 5 000 € — ok"


@pytest.mark.e2e
def test_a_config_key_holding_escape_sequences_is_shown_never_obeyed(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    config = tmp_path / "c.toml"
    config.write_text(
        '[evidence]\n"\\u001b[2J\\u001b]0;pwned\\u0007" = 1\n'
        '[[ingest.mapping]]\nname = "x"\ntable = "orders"\n'
        '[ingest.mapping.columns]\norder_number = "Order\\r\\u001b[31m#"\n'
    )
    out = _cli("run", "--config", str(config), "--inbox", "inbox", "--dry-run", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert not any(c in out.stdout + out.stderr for c in OBEYED), repr(out.stderr)
    assert f"{config}: evidence.<U+001B>[2J<U+001B>]0;pwned<U+0007>: unknown key" in out.stderr


@pytest.mark.e2e
def test_a_merchants_file_key_name_and_inbox_are_shown_never_obeyed(tmp_path: Path) -> None:
    inbox = tmp_path / f"inbox{ESC}"
    inbox.mkdir()
    merchants = tmp_path / "m.toml"
    merchants.write_text(
        '[keys."acme\\u001b[31m"]\ntoken_env = "K"\n'
        '[[merchant]]\nid = "a"\ninbox = "inbox\\u001b[2J\\u001b]0;pwned\\u0007"\n'
        'key = "acme\\u001b[31m"\nstate = "a.sqlite3"\n'
    )
    out = _cli("deploy", "--merchants", str(merchants), "--check", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert not any(c in out.stdout + out.stderr for c in OBEYED), repr(out.stdout)
    assert "key acme<U+001B>[31m (5,000/h)" in out.stdout
    assert "inbox<U+001B>[2J<U+001B>]0;pwned<U+0007>" in out.stdout


@pytest.mark.e2e
def test_an_inbox_file_name_is_shown_never_obeyed_while_the_run_waits_for_it(
    tmp_path: Path,
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (tmp_path / "c.toml").write_text('[merchant]\nmerchant_name = "Shop"\n')
    written = inbox / f"disputes{ESC}\rall good.csv"
    written.write_text("provider_dispute_id,order_number,reason\n")
    later = time.time() + 3600  # still being written, as far as the run can tell
    os.utime(written, (later, later))
    out = _cli(
        "run", "--config", "c.toml", "--inbox", "inbox", "--dry-run", cwd=tmp_path,
        DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS="1", DISPUTE_API_BASE_URL="http://127.0.0.1:9/v1",
        DISPUTE_API_TOKEN="sk_test_terminal",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "(disputes<U+001B>[2J<U+001B>]0;pwned<U+0007><U+000D>all good.csv)..." in out.stderr, (
        out.stderr
    )
    assert not any(c in out.stdout + out.stderr for c in OBEYED), repr(out.stderr)


def test_the_cli_writes_to_the_terminal_only_through_its_echo() -> None:
    """One door to the terminal (cli/_app.py's echo): a new command cannot forget it."""
    doors = []
    for path in sorted((SRC / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name in ("typer.echo", "typer.secho", "click.echo", "print"):
                    doors.append(f"{path.name}:{node.lineno} {name}")
    assert len(doors) == 1 and doors[0].startswith("_app.py:"), doors
