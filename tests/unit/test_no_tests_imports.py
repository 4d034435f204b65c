"""What ships, the benchmarks and the flows never import the tests (issue 47 item 4): a helper
they share lives in support/ (support/pod_corpus.py, support/docfixtures.py), so a bench or a
flow runs from a checkout without its test tree."""

from __future__ import annotations

import ast
from pathlib import Path

import dispute_evidence
from tests.support.source import nodes_of

ROOT = Path(dispute_evidence.__file__).parents[2]
FOLDERS = ("bench", "src", "flows", "support")


def _imports_of_tests(path: Path) -> list[str]:
    """`import tests...` and `from tests... import` anywhere in the file (nested ones too)."""
    found = []
    for node in nodes_of(path.read_text(encoding="utf-8")):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno} imports {n}"
            for n in names
            if n == "tests" or n.startswith("tests.")
        ]
    return found


def test_no_file_under_bench_src_flows_or_support_imports_the_tests() -> None:
    files = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100  # the tree was found
    assert [line for p in files for line in _imports_of_tests(p)] == []
