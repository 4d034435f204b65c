"""File-system bad inputs beside a good drop (names that are not UTF-8, unreadable files,
paths too long, names too long for a reason file), each one line naming it; and what the
pipeline keeps is readable by its owner only. Real CLI runs against the sandbox."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox

GOOD = 4
PDF = b"%PDF-1.4\nextra evidence\n"
# root reads any file whatever its mode: drop the capabilities that let it (a real EACCES)
NO_READ_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all"]  # fmt: skip


def bytes_path(folder: Path, name: bytes) -> Path:
    """A path whose last part is `name` as the file system holds it (not UTF-8, maybe)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + name))


def cli_env(base_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DISPUTE_API_BASE_URL": base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
        "DISPUTE_EVIDENCE_EVIDENCE__SUMMARY_PDF": "false",
    }


def expected_files(inbox: Path, n: int) -> dict[str, set[str]]:
    return {
        f"dp_test_{i}": {hashlib.sha256((inbox / "proofs" / f"dp_test_{i}_proof0.pdf").read_bytes()).hexdigest()}
        for i in range(n)
    }  # fmt: skip


def assert_sent_once(sb, expected: dict[str, set[str]]) -> None:
    snap = sb.snapshot()
    for pid, hashes in expected.items():
        assert snap[pid]["evidence_updates"] == 1, pid
        assert [p["product_title"] for p in snap[pid]["evidence"]["products"]] == [
            "Item 0",
            "Item 1",
        ]
        got = [f["sha256"] for f in snap[pid]["files"]]
        assert sorted(got) == sorted(hashes), pid


def _deep_folder(inbox: Path) -> bytes:
    """Folders nested until the path passes 4,096 bytes, a PDF at the bottom (made relative
    to each level: the whole path is too long for one call)."""
    fd = os.open(inbox, os.O_RDONLY)
    for _ in range(18):
        os.mkdir("d" * 250, dir_fd=fd)
        deeper = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    out = os.open("dp_test_3_deep.pdf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(out, PDF)
    os.close(out)
    os.close(fd)
    return b"d" * 250


def test_fs_bad_inputs_beside_a_good_drop(sandbox_factory, tmp_path):
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("needs setpriv to read as root without its read override")
    sb = sandbox_factory(rows=seed_rows(GOOD))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, GOOD)
    expected = expected_files(inbox, GOOD)
    # the orders themselves arrive under a latin-1 name from a Windows share
    os.rename(inbox / "orders.csv", bytes_path(inbox, b"commandes_\xe9t\xe9.csv"))
    bytes_path(inbox, b"dp_test_1 re\xe7u.pdf").write_bytes(PDF)  # sent, its name made readable
    expected["dp_test_1"].add(hashlib.sha256(PDF).hexdigest())
    bytes_path(inbox, b"d\xe9chet.csv").write_bytes(b"\x00\xff garbage")  # rejected, reason beside
    for locked in (inbox / "locked.csv", inbox / "dp_test_2_locked.pdf"):
        locked.write_bytes(PDF)
        locked.chmod(0)
    deep = _deep_folder(inbox)
    long_name = "x" * 251 + ".csv"  # 255 bytes: no room to add .reason.txt
    (inbox / long_name).write_bytes(b"\x00\xff garbage")

    prefix = NO_READ_OVERRIDE if os.geteuid() == 0 else []
    cmd = [*prefix, sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    r = subprocess.run(cmd, env=cli_env(sb.base_url), capture_output=True, text=True, timeout=300)

    out = r.stdout + r.stderr
    assert r.returncode in (0, 1, 5), out
    assert "Traceback" not in out and "Configuration error" not in out, out
    assert_sent_once(sb, expected)
    names = {f["file_name"] for f in sb.snapshot()["dp_test_1"]["files"]}
    assert "dp_test_1 re<0xE7>u.pdf" in names
    report = next(p for p in (tmp_path / "inbox.reports").iterdir() if p.name != "latest")
    problems = pd.read_csv(report / "problems.csv", dtype=str).fillna("")
    lines = problems["file"] + ": " + problems["problem"]

    def reported(file: str, why: str) -> bool:
        return bool(lines.map(lambda x: file in x and why in x).any())

    assert reported("d<0xE9>chet.csv", "binary file")
    assert reported("locked.csv", "permission denied")
    assert reported("dp_test_2_locked.pdf", "permission denied")
    assert reported("dddd", "longer than the system allows")
    assert reported(long_name, "binary file")
    # unreadable ones stay in the inbox; the others moved, their names as they were
    assert (inbox / "locked.csv").exists() and (inbox / "dp_test_2_locked.pdf").exists()
    assert deep in os.listdir(os.fsencode(inbox))
    archived = {n for _, _, files in os.walk(os.fsencode(inbox / "archive")) for n in files}
    assert {b"commandes_\xe9t\xe9.csv", b"dp_test_1 re\xe7u.pdf"} <= archived
    rejected = set(os.listdir(os.fsencode(inbox / "rejected")))
    assert {b"d\xe9chet.csv", b"d\xe9chet.csv.reason.txt", long_name.encode()} <= rejected
    short = [n for n in rejected if n.startswith(b"x") and n.endswith(b".reason.txt")]
    assert len(short) == 1 and len(short[0]) <= 255
    text = (inbox / "rejected" / os.fsdecode(short[0])).read_text()
    assert text.startswith(f"Reason for {long_name} (its name is too long") and "binary" in text


def test_what_the_pipeline_keeps_is_private(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(2))
    for key, value in cli_env(sb.base_url).items():
        monkeypatch.setenv(key, value)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    old = os.umask(0o022)
    try:
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    kept = [
        *tmp_path.glob("inbox.state.sqlite3*"),
        tmp_path / "inbox.reports",
        inbox / ".dispute-evidence",
    ]
    for top in kept:
        for path in [top, *(top.rglob("*") if top.is_dir() else [])]:
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode & 0o077 == 0, f"{path} is {oct(mode)}"
    assert any((inbox / ".dispute-evidence" / "blobs").rglob("*.pdf"))
    assert (tmp_path / "inbox.reports" / "latest" / "summary.html").is_file()


def test_a_zero_byte_state_gets_the_recovery_line(sandbox, tmp_path, monkeypatch):
    for key, value in cli_env(sandbox.base_url).items():
        monkeypatch.setenv(key, value)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    state = tmp_path / "inbox.state.sqlite3"
    state.write_bytes(b"")
    for extra in ([], ["--dry-run"]):
        r = CliRunner().invoke(app, ["run", "--inbox", str(inbox), *extra])
        assert r.exit_code == 1 and "Traceback" not in r.output, r.output
        (line,) = [x for x in r.output.strip().splitlines() if not x.startswith("Config: ")]
        assert f"the state store {state} is damaged (an empty file: 0 bytes)" in line
        assert "--reconcile" in line
    assert state.stat().st_size == 0 and (inbox / "disputes.csv").exists()


@pytest.fixture
def small_disk(tmp_path):
    """A real file system of its own size (tmpfs; needs root and mount rights, else skip)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)],
                          capture_output=True)  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode().strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """A file taking all the free space on `disk` but `leave` bytes."""
    free = shutil.disk_usage(disk).free - leave
    filler = disk / "filler.bin"
    with filler.open("wb") as fh:
        for _ in range(max(free, 0) // 4096):
            try:
                fh.write(b"\0" * 4096)
                fh.flush()
            except OSError:
                break
    return filler


@pytest.mark.parametrize("leave", [0, 2_000_000])  # no room at all; room for the state only
def test_a_full_disk_is_one_line_and_nothing_is_lost(sandbox_factory, small_disk, leave):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = small_disk / "inbox"
    make_inbox(inbox, 3)
    for i in range(3):  # stored copies need ~3.6 MB: more than the second case leaves
        with (inbox / "proofs" / f"dp_test_{i}_proof0.pdf").open("ab") as fh:
            fh.write(os.urandom(1_200_000))
    expected = expected_files(inbox, 3)
    filler = _fill(small_disk, leave)
    cmd = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    env = cli_env(sb.base_url)

    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)

    assert r.returncode == 74, r.stdout + r.stderr
    (line,) = [
        x for x in (r.stdout + r.stderr).strip().splitlines() if not x.startswith("Config: ")
    ]
    assert line.startswith("Disk full: ") and "Nothing was lost" in line
    assert "Free some space on that disk and run again" in line
    assert f"cannot write {small_disk}/" in line, line  # where: a path on the full disk
    if leave:  # the state fits: the stored copies do not
        assert ".partial. Nothing was lost" in line, line
    filler.unlink()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert_sent_once(sb, expected)


def _full_run(sb, inbox: Path, env_extra: dict[str, str], *args: str):
    """The real CLI on a full disk: exit 74 and its one line."""
    env = {**cli_env(sb.base_url), **env_extra}
    cmd = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox), *args]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 74 and "Traceback" not in r.stderr, r.stdout + r.stderr
    (line,) = [x for x in r.stderr.strip().splitlines() if not x.startswith("Config: ")]
    return line, cmd, env


@pytest.mark.parametrize("leave", [0, 48_000, 96_000])  # SQLite: 'database or disk is full'
def test_a_full_disk_where_the_state_is_names_the_state_file(
    sandbox_factory, small_disk, tmp_path, leave
):
    """SQLite's own "database or disk is full" names no file: the one line names the state
    file and what to do; once space is freed the same state goes on, nothing sent twice."""
    sb = sandbox_factory(rows=seed_rows(6))
    inbox, state = tmp_path / "inbox", small_disk / "state.sqlite3"
    make_inbox(inbox, 2)
    first = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox), "--state", str(state)],
        env=cli_env(sb.base_url), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    make_inbox(inbox, 6, seed=3)  # a new drop: four more disputes
    filler = _fill(small_disk, leave)
    line, cmd, env = _full_run(sb, inbox, {}, "--state", str(state))
    assert line.startswith(f"Disk full: cannot write {state}. Nothing was lost"), line
    assert "Free some space on that disk and run again" in line
    filler.unlink()
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert all(d["evidence_updates"] == 1 for d in sb.snapshot().values())


def test_a_full_disk_where_the_reports_go_names_the_report_folder(
    sandbox_factory, small_disk, tmp_path
):
    """A report file that fails part way (pandas, openpyxl) names no file: the line names the
    run's report folder; the state and the inbox, elsewhere, are untouched."""
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    reports = {"DISPUTE_EVIDENCE_PATHS__REPORTS": str(small_disk / "reports")}
    filler = _fill(small_disk, 0)
    line, cmd, env = _full_run(sb, inbox, reports)
    folder = line.removeprefix("Disk full: cannot write ").split(". Nothing was lost")[0]
    assert Path(folder).parent == small_disk / "reports", line
    assert Path(folder).name.startswith("2"), line  # the run's own folder, by its run id
    filler.unlink()
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (small_disk / "reports" / "latest" / "summary.html").exists()


@pytest.mark.parametrize("leave", [0, 48_000])
def test_approve_on_a_full_disk_is_one_line_naming_the_state_file(
    sandbox_factory, small_disk, tmp_path, leave
):
    """Deadline day on a full disk: `approve` (which records, then sends at once) ends in the
    one line naming the state file, exit 74, not a traceback; freed, it approves and sends."""
    sb = sandbox_factory(rows=seed_rows(2))
    inbox, state = tmp_path / "inbox", small_disk / "state.sqlite3"
    make_inbox(inbox, 2)
    env = {**cli_env(sb.base_url), "DISPUTE_EVIDENCE_REVIEW__HOLD": "all"}
    cli = [sys.executable, "-m", "dispute_evidence"]
    where = ["--inbox", str(inbox), "--state", str(state)]
    held = subprocess.run([*cli, "run", *where], env=env, capture_output=True, text=True)
    assert held.returncode == 5, held.stdout + held.stderr  # both wait for approval
    filler = _fill(small_disk, leave)
    approve = [*cli, "approve", *where, "dp_test_0"]
    full = subprocess.run(approve, env=env, capture_output=True, text=True, timeout=300)
    assert full.returncode == 74 and "Traceback" not in full.stderr, full.stdout + full.stderr
    said = [x for x in full.stderr.strip().splitlines() if not x.startswith("Config: ")]
    assert said == [said[0]] and said[0].startswith(f"Disk full: cannot write {small_disk}/")
    filler.unlink()
    done = subprocess.run(approve, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    snap = sb.snapshot()
    assert snap["dp_test_0"]["evidence_updates"] == 1 and snap["dp_test_1"]["evidence_updates"] == 0


def test_an_inbox_whose_own_path_is_not_utf8_is_one_line(sandbox, tmp_path, monkeypatch):
    for key, value in cli_env(sandbox.base_url).items():
        monkeypatch.setenv(key, value)
    inbox = bytes_path(tmp_path, b"bo\xeete")
    make_inbox(inbox, 1)
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert r.exit_code == 2, r.output
    (line,) = [x for x in r.output.strip().splitlines() if not x.startswith("Config: ")]
    assert "bo<0xEE>te is not UTF-8" in line and "rename" in line
    assert not any(tmp_path.glob("*.state.sqlite3"))
