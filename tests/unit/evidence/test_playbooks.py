"""One playbook per reason family (issue 44, item 3): every reason the API can send has one, and
every name a playbook holds resolves to the code that makes it (no silent "general")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dispute_evidence.documents import policytext
from dispute_evidence.evidence.completeness import ITEMS
from dispute_evidence.evidence.letter_facts import Facts
from dispute_evidence.evidence.playbooks import (
    BY_REASON,
    GENERAL,
    PLAYBOOKS,
    claim_words,
    family_of,
    playbook_for,
)
from dispute_evidence.evidence.thesis import THESES
from dispute_evidence.sandbox.seed import REASONS as API_REASONS
from tests.support.source import nodes_of

SRC = Path(__file__).resolve().parents[3] / "src" / "dispute_evidence"


@pytest.mark.parametrize("reason", sorted(API_REASONS))
def test_every_reason_the_api_sends_has_a_playbook(reason: str) -> None:
    assert reason in BY_REASON, f"no playbook covers the API reason {reason!r}"
    assert claim_words(reason), f"the playbook of {reason!r} has no claim in words"


def test_each_family_is_one_playbook_and_each_reason_in_one() -> None:
    families = [p.family for p in PLAYBOOKS]
    reasons = [r for p in PLAYBOOKS for r in p.reasons]
    assert len(families) == len(set(families))
    assert len(reasons) == len(set(reasons))
    assert {"fraud", "not_received", "not_as_described", "credit_not_processed",
            "subscription_canceled", "duplicate", GENERAL} == set(families)  # fmt: skip


@pytest.mark.parametrize("playbook", PLAYBOOKS, ids=lambda p: p.family)
def test_every_name_a_playbook_holds_is_made_by_the_code(playbook) -> None:  # type: ignore[no-untyped-def]
    for name in playbook.decisive:
        assert callable(getattr(Facts, name, None)), f"{playbook.family}: no argument {name!r}"
    for name in playbook.thesis:
        assert name in THESES, f"{playbook.family}: no thesis maker {name!r}"
    for item in (*playbook.core, *playbook.helps):
        assert item in ITEMS, f"{playbook.family}: no completeness item {item!r}"
    topics = {*policytext.TOPICS, policytext.RETURN_WINDOW}  # a final-sale rule never
    assert set(playbook.policy_topics) <= topics, playbook.policy_topics
    assert 0 < playbook.prior < 1
    assert "{amount}" in playbook.request
    assert playbook.concedes and playbook.thesis


def test_a_reason_no_playbook_names_is_argued_as_general_only_by_choice() -> None:
    assert family_of("bank_cannot_process") == GENERAL
    assert playbook_for(" Product_Not_Received ").family == "not_received"
    assert claim_words("bank_cannot_process") is None


_REASON_KEYS = {r for p in PLAYBOOKS for r in p.reasons} - {GENERAL}
_FAMILY_KEYS = {p.family for p in PLAYBOOKS} - {GENERAL, "duplicate", "credit_not_processed"}


def test_no_module_keys_data_on_a_reason_outside_the_playbooks() -> None:
    """A dict or set literal keyed by reasons or families lives only in playbooks.py (the 7
    tables of 6 modules are gone: a new reason is one record)."""
    found = []
    for path in (SRC / "evidence").glob("*.py"):
        if path.name == "playbooks.py":
            continue
        for node in nodes_of(path.read_text()):
            if isinstance(node, ast.Dict | ast.Set):
                keys = node.keys if isinstance(node, ast.Dict) else node.elts
                words = {k.value for k in keys if isinstance(k, ast.Constant)}
                if len(words & (_REASON_KEYS | _FAMILY_KEYS)) >= 2:
                    found.append(f"{path.name}:{node.lineno}")
    assert not found, f"per-reason tables outside evidence/playbooks.py: {found}"
