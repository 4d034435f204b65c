"""Facts are typed from where they are made (issue 36): no module reads the wire payload's
`additional_evidence` (or a key only the wire payload has) but evidence/wire.py, which derives
the payload from the facts and holds the one legacy path back; the sandbox is the API's side.
An AST scan of src/, so a comment or a docstring naming the key does not count."""

from __future__ import annotations

import ast
from pathlib import Path

import dispute_evidence
from tests.support.source import tree_of, walked

ROOT = Path(dispute_evidence.__file__).parent
ALLOWED = {Path("evidence/wire.py")}
API_SIDE = ("sandbox", "api")  # the API's own model and the local API read what they receive
# ("visa_ce3" is also the report's column name: a read of it under additional_evidence is
# caught by that key)
WIRE_ONLY = frozenset({"additional_evidence", "merchant_statement", "products_as_sold",
                       "prior_transactions", "shipping_tracking_numbers", "merchant_profile"})  # fmt: skip


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _reads(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module reads the wire payload: the string "additional_evidence" anywhere, the
    attribute `.additional_evidence`, or a wire-only key looked up (`x[k]`, `x.get(k)`,
    `k in x`)."""
    found = []
    for node in walked(tree):
        if _key(node) == "additional_evidence":
            found.append((node.lineno, "the string 'additional_evidence'"))  # type: ignore[attr-defined]
        elif isinstance(node, ast.Attribute) and node.attr == "additional_evidence":
            found.append((node.lineno, ".additional_evidence"))
        elif isinstance(node, ast.Subscript) and _key(node.slice) in WIRE_ONLY:
            found.append((node.lineno, f"[{_key(node.slice)!r}]"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get", "pop", "setdefault") and node.args
              and _key(node.args[0]) in WIRE_ONLY):  # fmt: skip
            found.append((node.lineno, f".{node.func.attr}({_key(node.args[0])!r})"))
        elif isinstance(node, ast.Compare) and _key(node.left) in WIRE_ONLY:
            found.append((node.lineno, f"{_key(node.left)!r} in"))
    return found


def test_no_module_but_the_wire_adapter_reads_the_payloads_facts():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel in ALLOWED or rel.parts[0] in API_SIDE:
            continue
        tree = tree_of(path.read_text(encoding="utf-8"))
        offenders += [f"{rel}:{line}: {what}" for line, what in _reads(tree)]
    assert offenders == []


def test_the_scan_finds_a_read_of_the_payload():
    """The scan is not vacuous: each way of reading the payload is found."""
    src = (
        "extra = payload.get('additional_evidence') or {}\n"
        "said = extra['merchant_statement']\n"
        "ev.additional_evidence\n"
        "p.get('prior_transactions')\n"
        "'products_as_sold' in extra\n"
    )
    assert sorted({line for line, _ in _reads(tree_of(src))}) == [1, 2, 3, 4, 5]
