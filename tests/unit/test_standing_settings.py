"""`[standing]`: the card programs' thresholds by the day they took effect, read from TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispute_evidence.settings import ConfigError, load_settings


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(("DISPUTE_API_", "DISPUTE_EVIDENCE_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_the_defaults_are_the_programs_as_published() -> None:
    policy = load_settings().standing.policy()
    assert policy.warn_percent == 0.9
    assert (policy.threshold("visa", "2026-03"), policy.threshold("visa", "2026-04")) == (2.2, 1.5)
    assert policy.threshold("mastercard", "2026-04") == 1.5
    assert (policy.floor("visa"), policy.floor("mastercard"), policy.floor("amex")) == (
        1501,
        100,
        0,
    )


def test_a_merchant_sets_its_own_thresholds(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        '[standing]\nwarn_percent = 0.65\nvisa_percent = {"2025-06-01" = 2.2, "2026-01-01" = 0.9}\n'
        'amex_percent = {"2025-01-01" = 1.0}\nvisa_floor = 101\n'
    )
    policy = load_settings(config).standing.policy()
    assert policy.warn_percent == 0.65
    assert policy.threshold("visa", "2026-02") == 0.9
    assert policy.threshold("amex", "2026-02") == 1.0 and policy.floor("visa") == 101


def test_a_wrong_threshold_is_named(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[standing]\nvisa_percent = {"April 2026" = 1.5}\n')
    with pytest.raises(ConfigError, match="standing.visa_percent") as caught:
        load_settings(config)
    assert "YYYY-MM-DD" in str(caught.value)


@pytest.mark.parametrize("day", ["2026-02-30", "2026-13-01", "2025-04-31"])
def test_an_impossible_day_in_the_threshold_schedule_is_named(tmp_path: Path, day: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[standing]\nvisa_percent = {{"{day}" = 1.5}}\n')
    with pytest.raises(ConfigError, match="standing.visa_percent") as caught:
        load_settings(config)
    assert day in str(caught.value) and "real day" in str(caught.value)


def test_the_counting_choice_fines_and_tiers_are_settings_with_their_defaults(
    tmp_path: Path,
) -> None:
    policy = load_settings().standing.policy()
    assert policy.fraud_dispute_counts == "twice"
    assert (policy.merchant_fine_usd, policy.merchant_fine_from) == (8.0, "2025-10-01")
    assert [(t.name, t.percent, t.fine_usd, t.since) for t in policy.acquirer_tiers] == [
        ("early warning", 0.40, 0.0, "2025-04-01"),
        ("above standard", 0.50, 4.0, "2026-01-01"),
        ("excessive", 0.70, 8.0, "2025-10-01"),
    ]
    config = tmp_path / "c.toml"
    config.write_text(
        '[standing]\nfraud_dispute_counts = "once"\n'
        '[standing.acquirer_tiers."above standard"]\npercent = 0.5\nfine_usd = 5\nfrom = "2026-02-01"\n'
    )
    mine = load_settings(config).standing.policy()
    assert mine.fraud_dispute_counts == "once"
    assert [t.name for t in mine.acquirer_tiers] == ["above standard"]
    assert mine.tier(0.6, "2026-02") is not None and mine.tier(0.6, "2026-01") is None
    config.write_text('[standing.acquirer_tiers.x]\npercent = 0.5\nfrom = "2026-02-31"\n')
    with pytest.raises(ConfigError, match="real day"):
        load_settings(config)
