"""The state machine is a gate (issue 38): state/transitions.py is the only code that writes
the `status` of a dispute or an evidence file, so every write takes its allowed from-set from
state/lifecycle.py's moves table. This reads every module of src/ and finds any other write:
`.values(status=...)` or `{table.c.status: ...}` on an update or insert, a row dict with a
"status" key (an insert's rows, `**` into values), `row["status"] = ...`, `dict(status=...)`,
and SQL text that sets or inserts a status."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sqlalchemy import Table

import dispute_evidence
from dispute_evidence.state import schema
from tests.support.source import tree_of, walked

SRC = Path(dispute_evidence.__file__).parent
GATE = SRC / "state" / "transitions.py"
# the local API's own database: its statuses are the provider's (what read-back reads), not
# our state machine's
NOT_THE_STATE = SRC / "sandbox"
# schema tables whose `status` column is not the state machine's (status_history: the API
# statuses seen); a write rooted at one of these names is not a move
OTHER_TABLES = frozenset(
    name
    for name, value in vars(schema).items()
    if isinstance(value, Table) and value.name not in ("disputes", "evidence_files")
)
# a "status" key that is not a row of the state: (module, function) -> why
NOT_ROWS = {
    (
        "engine/reporting/standing_alerts.py",
        "_emit",
    ): "an alert event's payload: a network's standing",
    (
        "engine/delivery/submit.py",
        "_upload",
    ): "the submitter's copy of the row, after the store wrote it",
}
STATE = "dispute_evidence.state"
SQL_WRITE = re.compile(
    r"(?is)\bupdate\b.*\bset\b.*\bstatus\s*=|\binsert\s+into\s+\w+\s*\([^)]*\bstatus\b"
)


def _root(node: ast.AST) -> str | None:
    """The name a statement chain starts from: `disputes` of `disputes.update().where(..)`
    and of `update(disputes).where(..)`, `status_history` of `status_history.c.status`."""
    while True:
        if isinstance(node, ast.Call):
            named = isinstance(node.func, ast.Name) and node.func.id in ("update", "insert")
            node = node.args[0] if named and node.args else node.func
        elif isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        else:
            return node.id if isinstance(node, ast.Name) else None


def _is_status_key(key: ast.AST | None) -> bool:
    return isinstance(key, ast.Constant) and key.value == "status"


def reaches_the_state(tree: ast.Module) -> bool:
    """Whether a module imports sqlalchemy or the state store: only such a module can turn a
    row dict into a write (api/, evidence/ and the other pure layers build "status" keys of
    their own: HTTP statuses, a network's standing)."""
    for node in walked(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        if any(n.split(".")[0] == "sqlalchemy" or n.startswith(STATE) for n in names):
            return True
    return False


def _is_status_column(key: ast.AST | None) -> bool:
    """`<table>.c.status` of a state table (not of one in OTHER_TABLES)."""
    if not (isinstance(key, ast.Attribute) and key.attr == "status"):
        return False
    return _root(key) not in OTHER_TABLES


class _Finder(ast.NodeVisitor):
    def __init__(self, module: str, rows: bool) -> None:
        self.module, self.rows, self.function, self.found = module, rows, "", []

    def _add(self, node: ast.AST, what: str) -> None:
        """A row-shaped write: counts in a module that reaches the state, outside NOT_ROWS."""
        if self.rows and (self.module, self.function) not in NOT_ROWS:
            self.found.append((getattr(node, "lineno", 0), what))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "values":
            other = _root(f.value) in OTHER_TABLES
            if any(k.arg == "status" for k in node.keywords) and not other:
                self.found.append((node.lineno, ".values(status=...)"))
            keys = [k for a in node.args if isinstance(a, ast.Dict) for k in a.keys]
            if any(_is_status_column(k) for k in keys):
                self.found.append((node.lineno, ".values({<table>.c.status: ...})"))
        named_dict = isinstance(f, ast.Name) and f.id == "dict"
        if named_dict and any(k.arg == "status" for k in node.keywords):
            self._add(node, "dict(status=...)")
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        if any(_is_status_key(k) for k in node.keys):
            self._add(node, 'a row with a "status" key')
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            if isinstance(t, ast.Subscript) and _is_status_key(t.slice):
                self._add(node, 'row["status"] = ...')
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and SQL_WRITE.search(node.value):
            self.found.append((node.lineno, "SQL that writes a status"))


def status_writes(source: str, module: str = "") -> list[tuple[int, str]]:
    """(line, what) of each write of a `status` in `source` (`module`: its path under src/
    dispute_evidence, for the NOT_ROWS exceptions)."""
    tree = tree_of(source)
    finder = _Finder(module, reaches_the_state(tree))
    finder.visit(tree)
    return sorted(finder.found)


def test_the_finder_finds_every_kind_of_status_write() -> None:
    src = """
def f(c, d, rows, row, s):
    c.execute(disputes.update().where(x).values(status=s, detail=None))
    c.execute(update(evidence_files).values({evidence_files.c.status: s}))
    rows.append({**row, "status": s})
    row["status"] = s
    c.execute(disputes.insert(), [dict(status=s)])
    c.execute(text("UPDATE disputes SET detail = NULL, status = 'pending' WHERE 1"))
    c.execute(text("insert into evidence_files (sha256, status) values (?, ?)"))
"""
    assert [line for line, _ in status_writes("import sqlalchemy" + src)] == [3, 4, 5, 6, 7, 8, 9]
    assert [line for line, _ in status_writes(src)] == [3, 4, 8, 9]  # rows: no database here


def test_the_finder_leaves_reads_and_other_tables_alone() -> None:
    src = """
def f(c, pid, s):
    c.execute(select(disputes.c.status).where(disputes.c.status == "pending"))
    c.execute(text("SELECT count(*) FROM evidence_files WHERE status = 'sending'"))
    c.execute(status_history.insert().values(provider_dispute_id=pid, status=s))
    c.execute(disputes.update().values(api_status=None, detail=s))
    return row["status"] == s
"""
    assert status_writes(src) == []


def test_no_status_is_written_outside_the_transitions() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        if path == GATE or path.is_relative_to(NOT_THE_STATE):
            continue
        module = path.relative_to(SRC).as_posix()
        if writes := status_writes(path.read_text(encoding="utf-8"), module):
            found[module] = writes
    assert found == {}, "write a status through state/transitions.py: " + repr(found)


def test_the_exceptions_still_name_code_that_exists() -> None:
    for module, function in NOT_ROWS:  # a stale exception would hide a new write there
        tree = tree_of((SRC / module).read_text(encoding="utf-8"))
        assert any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
            for n in walked(tree)
        ), (module, function)
