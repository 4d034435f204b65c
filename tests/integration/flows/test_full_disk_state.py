"""A full disk is not a damaged state (issue 30): a SQLite state on a filesystem with no space
left exits 74 with one plain line; after space is freed the same state works, and every
dispute is sent exactly once."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox


@contextlib.contextmanager
def _small_filesystem(size: str = "4m"):
    """A tmpfs of `size` (root only; room for the state as it grows); unmounted and removed
    whatever happens."""
    where = Path(f"/tmp/dispute-evidence-full-{uuid.uuid4().hex[:8]}")
    where.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip("cannot mount a small tmpfs here (needs root); see the simulated test")
        try:
            yield where
        finally:
            subprocess.run(["umount", "-l", str(where)], check=False)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with filler.open("wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    return filler


def _run(*args: str):
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r


def _env(monkeypatch, sb) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_state_on_a_full_disk_exits_74_and_works_once_space_is_freed(
    tmp_path, monkeypatch, sandbox_factory
):
    sb = sandbox_factory(rows=seed_rows(5))
    _env(monkeypatch, sb)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    with _small_filesystem() as disk:
        state = str(disk / "state.sqlite3")
        assert _run("--inbox", str(inbox), "--state", state).exit_code == 0
        make_inbox(inbox, 5, seed=3)  # a new drop: three more disputes
        filler = _fill(disk)
        full = _run("--inbox", str(inbox), "--state", state)
        assert full.exit_code == 74, full.output
        said = [line for line in full.output.splitlines() if line.strip()][1:]
        assert len(said) == 1 and said[0].startswith("Disk full"), said
        assert "damaged" not in full.output and "restore" not in full.output
        assert "free some space" in said[0].lower()
        assert f"cannot write {state}." in said[0], said  # the state file, by its path
        filler.unlink()
        again = _run("--inbox", str(inbox), "--state", state)
        assert again.exit_code == 0, again.output
    snap = sb.snapshot()
    assert {pid: d["evidence_updates"] for pid, d in snap.items()} == {
        f"dp_test_{i}": 1 for i in range(5)
    }


def test_a_disk_io_error_with_no_space_left_is_said_as_a_full_disk(tmp_path, monkeypatch):
    """Simulated (runs without root): SQLite's 'disk I/O error' while the state's filesystem
    has no space left is a full disk, not damage; with space left it is still damage."""
    from sqlalchemy.exc import OperationalError

    from dispute_evidence.state import base
    from dispute_evidence.state.store import StateDamaged, StateFull, StateStore

    path = tmp_path / "state.sqlite3"
    StateStore(path).close()

    def io_error(_conn):
        raise OperationalError("PRAGMA", {}, Exception("disk I/O error"))

    monkeypatch.setattr(base, "migrate", io_error)
    monkeypatch.setattr(base, "_space_left", lambda _folder: 0)
    with pytest.raises(StateFull) as full:
        StateStore(path)
    assert full.value.where == str(path)
    monkeypatch.setattr(base, "_space_left", lambda _folder: 10**9)
    with pytest.raises(StateDamaged):
        StateStore(path)
