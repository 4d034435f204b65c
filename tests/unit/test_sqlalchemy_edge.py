"""The state store is the only door to the database (issue 38): no module of the package
outside state/ imports sqlalchemy, wherever the import is written (a function-level import
or one under `if TYPE_CHECKING:` counts too). The fleet's shared key budget keeps its own
small store (fleet/budget.py): a table of its own in the fleet's database, not a state."""

from __future__ import annotations

import ast
from pathlib import Path

import dispute_evidence
from tests.support.source import nodes_of

ROOT = Path(dispute_evidence.__file__).parent
OWN_STORES = {"fleet/budget.py", "fleet/nights.py"}


def driver_imports(source: str) -> list[str]:
    """The sqlalchemy modules `source` imports, at any depth."""
    found = []
    for node in nodes_of(source):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "sqlalchemy"]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [node.module] if node.module.split(".")[0] == "sqlalchemy" else []
    return found


def test_no_module_outside_state_imports_sqlalchemy() -> None:
    leaks = {
        str(rel): names
        for path in sorted(ROOT.rglob("*.py"))
        if (rel := path.relative_to(ROOT)).parts[0] != "state" and rel.as_posix() not in OWN_STORES
        if (names := driver_imports(path.read_text(encoding="utf-8")))
    }
    assert leaks == {}


def test_the_finder_sees_imports_inside_functions() -> None:
    source = (
        "import os\n"
        "def f():\n"
        "    from sqlalchemy.exc import DBAPIError\n"
        "    import sqlalchemy as sa\n"
        "    from .sqlalchemy import x\n"
    )
    assert driver_imports(source) == ["sqlalchemy.exc", "sqlalchemy"]
