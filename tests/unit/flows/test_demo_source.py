"""`demo` copies the checkout's sample_data/ wherever it is started from (left alone last stop:
it looked in the working directory)."""

from __future__ import annotations

import pytest
import typer

from dispute_evidence.cli import run_commands as cli_run


def test_the_demo_finds_the_checkouts_sample_data_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no sample_data/ here
    source = cli_run.sample_data()
    assert source.is_absolute() and source.is_dir()
    assert (source / "disputes.xlsx").is_file()
    assert source == cli_run.CHECKOUT / "sample_data"


def test_without_a_checkout_the_working_folders_sample_data_is_used(tmp_path, monkeypatch):
    monkeypatch.setattr(cli_run, "CHECKOUT", tmp_path / "installed")
    (tmp_path / "sample_data").mkdir()
    monkeypatch.chdir(tmp_path)
    assert cli_run.sample_data().resolve() == (tmp_path / "sample_data").resolve()


def test_no_sample_data_anywhere_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli_run, "CHECKOUT", tmp_path / "installed")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(typer.Exit) as stopped:
        cli_run.sample_data()
    assert stopped.value.exit_code == 2
    err = capsys.readouterr().err
    assert "no sample_data/ folder" in err and "make demo" in err
