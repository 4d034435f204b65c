"""The card networks live in one place (networks.py, issue 47): every spelling of a brand an
export may write finds its network, the limits and the standing agree on it (Maestro is
Mastercard, Visa Electron is Visa), and no other module of src/ spells a brand."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

import dispute_evidence
from dispute_evidence.evidence.limits import PROFILES, profile_for
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from dispute_evidence.networks import BY_KEY, NETWORKS, PROGRAM_NETWORKS, network_of
from dispute_evidence.settings.model import EvidenceSection
from dispute_evidence.standing.inputs import card_network
from tests.support.source import tree_of, walked
from tests.unit.evidence.test_pdf_building import payload

SRC = Path(dispute_evidence.__file__).parent
# the card-number detector keeps its own prefix table until it reads networks.PREFIXES
# (another branch's work): the one module allowed to spell brands beside networks.py
OWN_TABLES = {"networks.py", "cardnumbers.py"}
SPELLINGS = {alias for n in NETWORKS for alias in (*n.aliases, n.key)}


@pytest.mark.parametrize(
    ("brand", "network"),
    [
        ("Visa", "visa"),
        ("Visa Electron", "visa"),
        ("Visa Debit", "visa"),
        ("visa_credit", "visa"),
        ("MasterCard", "mastercard"),
        ("MC", "mastercard"),
        ("Maestro", "mastercard"),
        ("Mastercard Debit", "mastercard"),
        ("Debit Mastercard", "mastercard"),
        ("World Elite Mastercard", "mastercard"),
        ("american_express", "amex"),
        ("American Express", "amex"),
        ("AMEX", "amex"),
        ("Discover", "discover"),
        ("JCB", "jcb"),
        ("Diners Club", "diners"),
        ("UnionPay", "unionpay"),
        ("", ""),
        ("Carte Blanche X", ""),
    ],
)
def test_each_spelling_finds_its_network(brand: str, network: str) -> None:
    assert network_of(brand) == network


@pytest.mark.parametrize(
    ("brand", "profile"),
    [
        ("Maestro", "mastercard"),
        ("Mastercard Debit", "mastercard"),
        ("MC", "mastercard"),
        ("Visa Electron", "visa"),
        ("Visa Debit", "visa"),
        ("american_express", "amex"),
        ("JCB", "default"),
    ],
)
def test_the_limits_follow_the_network_record(brand: str, profile: str) -> None:
    """'Mastercard Debit' and 'american_express' got the default limits (25-page documents
    went out on Mastercard's 19-page limit): they take their network's."""
    p = payload(payments=[{"payment_id": "ch_1", "card_brand": brand}])
    assert profile_for(wire_facts(p), "auto", PROFILES).name == profile


def test_the_limits_and_the_standing_agree_on_every_alias() -> None:
    for network in NETWORKS:
        for alias in network.aliases:
            counted = card_network(pd.Series([alias])).iloc[0]
            assert counted == network.key, alias
            assert PROFILES[network.limits.name] == network.limits


def test_the_settings_choices_come_from_the_records() -> None:
    schema = EvidenceSection.model_json_schema()["properties"]["limits"]
    assert schema["enum"] == ["auto", *dict.fromkeys(n.limits.name for n in NETWORKS)]
    assert set(PROGRAM_NETWORKS) == {n.key for n in NETWORKS if n.program is not None}
    assert BY_KEY["visa"].program is not None and BY_KEY["visa"].program.fraud_reports


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in walked(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def brand_spellings(path: Path) -> list[str]:
    """The string constants of `path` (docstrings aside) that are a brand as code spells one."""
    tree = tree_of(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    out = []
    for node in walked(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            bare = "".join(ch for ch in node.value.lower() if ch.isalpha())
            if bare in SPELLINGS and len(node.value) < 40:
                out.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}")
    return out


def test_the_spelling_finder_finds_a_brand(tmp_path: Path) -> None:
    sample = SRC / "_sample_for_test.py"
    try:
        sample.write_text('"""Visa docs."""\nx = {"mastercard": 1, "Visa Electron": 2, "vis": 3}\n')
        assert [s.split(": ", 1)[1] for s in brand_spellings(sample)] == [
            "'mastercard'",
            "'Visa Electron'",
        ]
    finally:
        sample.unlink()


def test_no_module_but_the_network_record_spells_a_brand() -> None:
    found = [
        spelled
        for path in sorted(SRC.rglob("*.py"))
        if path.name not in OWN_TABLES
        for spelled in brand_spellings(path)
    ]
    assert found == []


def test_no_spelling_belongs_to_two_networks_and_every_record_is_whole() -> None:
    """A spelling in two records would silently go to whichever comes last."""
    seen: dict[str, str] = {}
    for network in NETWORKS:
        for alias in (*network.aliases, network.key):
            assert seen.setdefault(alias, network.key) == network.key, alias
            assert alias == "".join(ch for ch in alias if ch.isalpha() and ch.islower()), alias
        assert network.label and network.prefixes and network.lengths and network.colour
        if network.program is not None:
            assert network.program.counts and network.program.name
