"""The merchants file's inbox check (issue 48): every overlap of two merchants' inboxes is
named, and a platform's file of 10,000 merchants is checked in one look per folder level, not
by comparing every inbox with every other (which made `deploy --sweep` time out at 10,000)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispute_evidence.fleet.merchants import (
    FleetSection,
    KeySpec,
    MerchantsFile,
    MerchantSpec,
    check_merchants,
)


def _spec(inboxes: list[str]) -> MerchantsFile:
    return MerchantsFile(
        fleet=FleetSection(state_url="postgresql+psycopg://db/fleet"),
        keys={"k": KeySpec(token_env="TOKEN_K")},
        merchant=[MerchantSpec(id=f"m{i}", inbox=Path(p), key="k") for i, p in enumerate(inboxes)],
    )


def _clashes(tmp_path: Path, inboxes: list[str]) -> list[str]:
    return [p for p in check_merchants(_spec(inboxes), tmp_path) if "shares its inbox" in p]


@pytest.mark.parametrize(
    ("inboxes", "said"),
    [
        (["a", "a"], "merchant 'm1': shares its inbox with merchant 'm0' (both are {a}"),
        (
            ["a", "a/b/c"],
            "merchant 'm1': shares its inbox with merchant 'm0' ({a}/b/c is inside its {a}",
        ),
        (
            ["a/b/c", "a"],
            "merchant 'm1': shares its inbox with merchant 'm0' (its {a}/b/c is inside {a}",
        ),
    ],
    ids=["one folder", "inside an earlier one", "an earlier one inside it"],
)
def test_each_overlap_is_named_with_both_merchants(tmp_path, inboxes, said):
    (problem,) = _clashes(tmp_path, inboxes)
    assert problem.startswith(said.format(a=tmp_path.resolve() / "a")), problem


def test_folders_side_by_side_do_not_clash_even_when_one_name_starts_the_other(tmp_path):
    assert _clashes(tmp_path, ["inbox-1", "inbox-10", "inbox-1x/deep", "in"]) == []


def test_many_inboxes_are_checked_without_comparing_each_pair(tmp_path, monkeypatch):
    compared = 0
    real = Path.relative_to

    def counting(self: Path, *other: Path) -> Path:
        nonlocal compared
        compared += 1
        return real(self, *other)

    monkeypatch.setattr(Path, "relative_to", counting)  # what is_relative_to calls
    inboxes = [f"inboxes/m{i}" for i in range(2_000)] + ["inboxes/m42/late"]
    problems = _clashes(tmp_path, inboxes)
    assert compared < 2_000, compared  # each pair compared: ~4 million (36 s of a deploy)
    assert len(problems) == 1 and "merchant 'm42'" in problems[0], problems
