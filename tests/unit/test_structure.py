"""The code's shape, checked: entry points hand a run's inputs on in a RunRequest (never
through environment variables), modules stay under 600 lines and functions under 80, and no
module name is used twice in src/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import dispute_evidence
from tests.support.source import nodes_of

SRC = Path(dispute_evidence.__file__).parent
ROOT = SRC.parents[1]
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
ENV_WRITERS = {"setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__"}


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def environ_writes(path: Path) -> list[int]:
    """Lines of `path` that change the process environment (os.environ[...] = / del, its
    mutating methods, os.putenv / os.unsetenv)."""
    out = []
    for node in nodes_of(path.read_text(encoding="utf-8")):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        if any(isinstance(t, ast.Subscript) and _is_environ(t.value) for t in targets):
            out.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if (f.attr in ENV_WRITERS and _is_environ(f.value)) or f.attr in ("putenv", "unsetenv"):
                out.append(node.lineno)
    return sorted(out)


def test_the_environment_finder_finds_writes(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        "import os\nos.environ['A'] = '1'\nos.environ.setdefault('B', '2')\n"
        "x = os.environ.get('C')\ndel os.environ['A']\nos.putenv('D', '3')\n"
    )
    assert environ_writes(sample) == [2, 3, 5, 6]


def test_no_environment_write_in_the_cli_or_the_flows() -> None:
    paths = [*sorted((SRC / "cli").glob("*.py")), *sorted((ROOT / "flows").glob("*.py"))]
    writes = {str(p.relative_to(ROOT)): w for p in paths if (w := environ_writes(p))}
    assert writes == {}


def _python_files() -> list[Path]:
    return [*sorted(SRC.rglob("*.py")), *sorted((ROOT / "flows").glob("*.py"))]


def test_no_module_over_600_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _python_files()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


MAX_FORMAT_SKIPS = 0  # issue 47: the gates are met by splitting by idea, never by packing lines


def test_the_formatter_is_never_told_to_skip_a_line() -> None:
    """`# fmt: skip` packs lines under the module and function gates: none in src/."""
    skips = {
        str(p): n
        for p in _python_files()
        if (n := p.read_text(encoding="utf-8").count("# fmt: " + "skip")) > MAX_FORMAT_SKIPS
    }
    assert skips == {}


def test_no_function_over_80_lines() -> None:
    long = {}
    for path in _python_files():
        for node in nodes_of(path.read_text(encoding="utf-8")):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = lines
    assert long == {}


# Each module's name is its own in src/ (issue 47 item 3), so a name in a traceback, an import or
# a log line says which module it is. Only these repeat: each package's marker and its errors.
REPEATING_NAMES = {"__init__.py", "errors.py"}


def repeated_module_names(root: Path) -> dict[str, list[str]]:
    """Each module file name used more than once under `root`, with its paths (relative)."""
    where: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        where.setdefault(path.name, []).append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_the_name_finder_finds_a_repeated_name(tmp_path: Path) -> None:
    for rel in ("a/__init__.py", "a/run.py", "a/b/run.py", "c/__init__.py", "c/case.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert repeated_module_names(tmp_path) == {
        "__init__.py": ["a/__init__.py", "c/__init__.py"],
        "run.py": ["a/b/run.py", "a/run.py"],
    }


def test_no_module_name_used_twice_in_src() -> None:
    repeated = repeated_module_names(SRC)
    assert {name: paths for name, paths in repeated.items() if name not in REPEATING_NAMES} == {}


SQL = re.compile(
    r"\b(SELECT|UPDATE|INSERT INTO|DELETE FROM|ALTER TABLE|CREATE (TABLE|SCHEMA|INDEX))\b"
)


def sql_fstrings(path: Path) -> list[int]:
    """Lines of `path` where an f-string holds SQL (or text() is given one)."""
    out = []
    for node in nodes_of(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.JoinedStr):
            fixed = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if SQL.search(str(fixed)):
                out.append(node.lineno)
    return sorted(set(out))


def test_the_sql_finder_finds_sql_in_fstrings(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text('t = "x"\nq = f"UPDATE {t} SET a = 1"\nok = f"{t} was updated"\n')
    assert sql_fstrings(sample) == [2]


def test_no_sql_built_with_fstrings() -> None:
    found = {str(p.relative_to(ROOT)): n for p in _python_files() if (n := sql_fstrings(p))}
    assert found == {}


# A dispute's states are typed values (states.py): its parsers alone read the kept words.
STATE_WORDS = ("held", "missing", "weak", "complete", "qualifies", "advice", "fight", "accept")
STATE_PREFIXES = {"ADVICE_ACCEPT", "API_VIEW_HELD", "HELD", "HELD_UNKNOWN", "HELD_PREFIX",
                  "LIMIT_HELD"}  # fmt: skip
STATE_PARSERS = SRC / "states.py"


def _state_prefix(arg: ast.AST) -> bool:
    if isinstance(arg, ast.Tuple):
        return any(_state_prefix(a) for a in arg.elts)
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value.lower().startswith(STATE_WORDS)
    name = arg.id if isinstance(arg, ast.Name) else getattr(arg, "attr", "")
    return name in STATE_PREFIXES


def state_prefix_checks(path: Path) -> list[int]:
    """Lines of `path` that test a state's words by their start (`x.startswith("held:")`,
    pandas' `.str.startswith(HELD)`) instead of reading them into states.py's types."""
    return sorted(
        node.lineno
        for node in nodes_of(path.read_text(encoding="utf-8"))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "startswith"
        and any(_state_prefix(a) for a in node.args)
    )


def test_the_state_prefix_finder_finds_prefix_checks(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        'held = str(r.detail or "").startswith("held:")\n'
        'bad = verdict.startswith(("missing", "weak"))\n'
        "accept = detail.startswith(ADVICE_ACCEPT)\n"
        "some = table['advice'].str.startswith((advice.HELD, advice.HELD_UNKNOWN))\n"
        'ok = name.startswith("~$") or path.startswith(prefix)\n'
    )
    assert state_prefix_checks(sample) == [1, 2, 3, 4]


def test_no_state_read_by_its_prefix_outside_the_parsers() -> None:
    found = {
        str(p.relative_to(ROOT)): n
        for p in _python_files()
        if p != STATE_PARSERS and (n := state_prefix_checks(p))
    }
    assert found == {}
