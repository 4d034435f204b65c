"""The merchants file: valid plans, and one line per problem naming merchant and key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dispute_evidence.fleet.merchants import load_merchants, plan_runs
from dispute_evidence.settings import ConfigError

ROOT = Path(__file__).resolve().parents[3]


def test_the_example_file_is_valid_and_two_merchants_share_one_key():
    example = ROOT / "config" / "merchants.example.toml"
    runs = {r.id: r for r in plan_runs(load_merchants(example), example.parent)}
    assert set(runs) == {"acme-eu", "acme-us", "globex"}
    assert runs["acme-eu"].key == runs["acme-us"].key == "acme"
    # the shared database gives each merchant its own schema; no token anywhere in the plan
    assert "search_path%3Dmerchant_acme_eu" in runs["acme-eu"].state
    assert runs["acme-eu"].schema_name == "merchant_acme_eu"
    assert runs["globex"].schema_name is None and runs["globex"].token_env == "GLOBEX_API_KEY"
    assert (
        runs["acme-us"].timezone == "America/New_York"
        and runs["acme-eu"].timezone == "Europe/Berlin"
    )
    assert runs["acme-eu"].budget_url == runs["globex"].budget_url  # one table of buckets


def _problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "merchants.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_merchants(path)
    lines = str(err.value).splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines)
    return [line.removeprefix(f"{path}: ") for line in lines]


def test_every_problem_is_one_line_naming_the_merchant_and_the_key(tmp_path):
    problems = _problems(
        tmp_path,
        """
[fleet]
state_url = "postgresql+psycopg://u:secret@db/x"
[keys.acme]
token_env = "ACME_KEY"
[keys.both]
token_env = "B"
token_secret_block = "b"
[keys.copy]
token_env = "ACME_KEY"
[[merchant]]
id = "acme-eu"
inbox = "a"
key = "acmee"
[[merchant]]
id = "Acme US"
inbox = "a"
key = "acme"
schedule = "0 2 * *"
timezone = "Europe/Berln"
[[merchant]]
id = "c"
inbox = "c"
key = "both"
[[merchant]]
id = "d"
inbox = "d"
key = "copy"
""",
    )
    expected = [
        "key 'both': set exactly one of token_env or token_secret_block",
        "key 'copy': reads the same token as key 'acme' (env ACME_KEY)",
        "fleet.state_url: has a password",
        "merchant 'acme-eu': key 'acmee' is not defined under [keys] (did you mean 'acme'?)",
        "merchant 'Acme US': id must be",
        "merchant 'Acme US': schedule: '0 2 * *' is not a cron expression",
        "merchant 'Acme US': timezone: 'Europe/Berln' is not an IANA time zone (did you mean 'Europe/Berlin'?)",
        "merchant 'Acme US': shares its inbox with merchant 'acme-eu'",
    ]
    for start in expected:
        assert any(p.startswith(start) for p in problems), (start, problems)
    assert not any("secret@" in p for p in problems)  # the password is never repeated


def test_unknown_settings_are_named_with_their_merchant(tmp_path):
    problems = _problems(
        tmp_path,
        """
[keys.k]
token_env = "K"
rate_limit_per_hour = 0
[[merchant]]
id = "m1"
inbox = "m1"
key = "k"
state = "m1.sqlite3"
[merchant.profile]
merchant_nam = "x"
""",
    )
    assert "merchant 'm1'.profile.merchant_nam: unknown setting" in problems
    assert any(p.startswith("key 'k'.rate_limit_per_hour:") for p in problems)


def test_deploy_check_prints_the_plan_and_checks_inboxes_databases_and_secrets(tmp_path):
    example = ROOT / "config" / "merchants.example.toml"
    out = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "deploy", "--merchants", str(example),
         "--check"], capture_output=True, text=True, timeout=120, env={**os.environ,
         "PREFECT_API_URL": ""},
    )  # fmt: skip
    assert "acme-us" in out.stdout and "shared with acme-eu" in out.stdout  # the plan, no --pool
    assert out.returncode == 2 and "OK" not in out.stdout  # /srv/inboxes/… and db.internal
    problems = out.stderr.splitlines()
    assert (
        f"{example}: merchant 'globex': inbox /srv/inboxes/globex is not a folder "
        "(create it, or fix `inbox`)"
    ) in problems
    assert any("database postgresql+psycopg://disputes@db.internal/disputes (used by acme-eu, "
               "acme-us, globex) does not answer" in p for p in problems)  # fmt: skip
    assert "Secret block 'acme-api-key': not checked (set PREFECT_API_URL" in out.stdout
    good = tmp_path / "m.toml"
    good.write_text(
        '[keys.k]\ntoken_env = "K"\n'
        + "".join(
            f'[[merchant]]\nid = "{m}"\ninbox = "{tmp_path / m}"\nkey = "k"\n'
            f'state = "{tmp_path / m}.sqlite3"\n'
            for m in ("a", "b")
        )
    )
    for m in ("a", "b"):
        (tmp_path / m).mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "deploy", "--merchants", str(good), "--check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"{good}: 2 merchant(s), 1 key(s): OK" in out.stdout
    bad = tmp_path / "m.toml"
    bad.write_text('[[merchant]]\nid = "x"\ninbox = "x"\nkey = "nope"\nstate = "s.db"\n')
    out = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "deploy", "--merchants", str(bad), "--pool", "p"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 2
    assert "merchant 'x': key 'nope' is not defined under [keys]" in out.stderr


def _two_merchants(tmp_path: Path, inbox_a: str, inbox_b: str) -> Path:
    path = tmp_path / "merchants.toml"
    path.write_text(
        '[keys.k]\ntoken_env = "K"\n'
        + "".join(
            f'[[merchant]]\nid = "{m}"\ninbox = "{inbox}"\nkey = "k"\nstate = "{m}.sqlite3"\n'
            for m, inbox in (("a", inbox_a), ("b", inbox_b))
        )
    )
    return path


@pytest.mark.parametrize("how", ["symlink", "dotdot", "relative-dotdot", "nested", "outer"])
def test_two_merchants_never_share_one_inbox_however_it_is_spelled(tmp_path, how):
    (tmp_path / "a" / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)
    a, b = {
        "symlink": (f"{tmp_path}/a", f"{tmp_path}/link"),
        "dotdot": (f"{tmp_path}/a", f"{tmp_path}/other/../a"),
        "relative-dotdot": ("a", "other/../a/"),
        "nested": (f"{tmp_path}/a", f"{tmp_path}/link/sub"),
        "outer": (f"{tmp_path}/a/sub", f"{tmp_path}/a"),
    }[how]
    path = _two_merchants(tmp_path, a, b)
    with pytest.raises(ConfigError) as err:
        load_merchants(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}: merchant 'b': ")
    assert "merchant 'a'" in lines[0] and "inbox" in lines[0]


def test_deploy_check_refuses_two_merchants_whose_inboxes_are_one_folder(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)
    path = _two_merchants(tmp_path, f"{tmp_path}/a", f"{tmp_path}/link")
    out = subprocess.run(
        [sys.executable, "-m", "dispute_evidence", "deploy", "--merchants", str(path), "--check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "OK" not in out.stdout
    folder = (tmp_path / "a").resolve()
    assert out.stderr.splitlines() == [
        f"{path}: merchant 'b': shares its inbox with merchant 'a' (both are {folder}, "
        "symbolic links and '..' followed); give each merchant its own folder, side by side"
    ], out.stderr
    # different folders side by side are still fine
    (tmp_path / "b").mkdir()
    ok = _two_merchants(tmp_path, f"{tmp_path}/a", f"{tmp_path}/b")
    assert load_merchants(ok).merchant[1].id == "b"


def test_a_number_out_of_bounds_in_the_merchants_file_is_named_with_its_range(tmp_path):
    problems = _problems(
        tmp_path,
        """
[fleet]
wait_for_lock = 1e20
[keys.k]
token_env = "K"
window_seconds = inf
[[merchant]]
id = "m1"
inbox = "m1"
key = "k"
state = "m1.sqlite3"
""",
    )
    assert problems == [
        "fleet.wait_for_lock: must be a finite number, at least 0 and at most 86,400 (got 1e+20)",
        "key 'k'.window_seconds: must be a finite number, at least 5 and at most 3,600 (got inf)",
    ]
