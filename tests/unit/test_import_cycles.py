"""No import cycles among the package's modules: the arrows go one way (docs/architecture.md).

Every `import`/`from ... import` of a dispute_evidence module counts, wherever it is written:
a function-level import, or one under `if TYPE_CHECKING:`, is a dependency too (it only hides
the cycle from the interpreter). A package's __init__ counts as its own module."""

from __future__ import annotations

import ast
from pathlib import Path

import dispute_evidence
from tests.support.source import nodes_of, tree_of

ROOT = Path(dispute_evidence.__file__).parent
PACKAGE = "dispute_evidence"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, modules: set[str]) -> set[str]:
    """The package's modules `path` imports (a name imported from a package that is a module
    of it counts as that module)."""
    here = module_name(path)
    is_package = path.name == "__init__.py"
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith(PACKAGE))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base.startswith(PACKAGE):
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree_of(path.read_text(encoding="utf-8")))
    return {m for m in out if m in modules and m != here}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imported(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycle_among_the_packages_modules() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_api_package_imports_no_pipeline_code() -> None:
    graph = import_graph()
    api = {m for m in graph if m.startswith(f"{PACKAGE}.api")}
    # cardnumbers: the wire's one door covers card numbers (it imports only re)
    allowed = api | {f"{PACKAGE}.filetypes", f"{PACKAGE}.names", f"{PACKAGE}.cardnumbers"}
    allowed.add(PACKAGE)
    assert {(m, d) for m in api for d in graph[m] if d not in allowed} == set()


# The layers, lowest first: a module may import its own layer and the ones below, never above.
# (cli/, flows/, fleet/ and the sandbox are entry points and sit above all of these.)
LOW = (
    "problems",
    "cardnumbers",
    "names",
    "filetypes",
    "exits",
    "errors",
    "policies",
    "states",
    "api",
)
PURE = ("evidence", "documents", "ingest")  # the domain: no state, no network, no reports
STORE = ("state", "state.schema", "state.migrations", "state.store", "state.lifecycle")
UPWARD = {
    LOW: (
        *("evidence", "documents", "ingest", "reports", "engine", "state"),
        *("settings", "cli", "fleet", "sandbox"),
    ),
    PURE: ("reports", "engine", "state", "settings", "cli", "fleet", "sandbox"),
    ("documents",): ("evidence", "reports", "engine", "state", "settings", "cli"),
    ("reports",): ("engine", "settings", "cli", "fleet", "sandbox"),
    STORE: ("evidence", "documents", "reports", "engine", "settings", "cli", "fleet", "sandbox"),
    # configuration: plain data; it reads ingest's mapping fields to check a config whole
    ("settings",): (
        "engine",
        "reports",
        "cli",
        "fleet",
        "sandbox",
        "state",
        "documents",
        "evidence",
    ),
}


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    name = module.removeprefix(f"{PACKAGE}.")
    return any(name == p or name.startswith(f"{p}.") for p in prefixes)


def test_no_module_imports_a_layer_above_its_own() -> None:
    graph = import_graph()
    upward = sorted(
        (m, d)
        for m, deps in graph.items()
        for d in deps
        for layer, above in UPWARD.items()
        if _in(m, layer) and _in(d, above) and not _in(d, layer)
    )
    assert upward == []


def function_level_imports(path: Path) -> set[str]:
    """The package's modules `path` imports inside a function (hidden from import time)."""
    out: set[str] = set()
    for fn in nodes_of(path.read_text(encoding="utf-8")):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                    out.add(str(node.module))
                elif isinstance(node, ast.Import):
                    out.update(a.name for a in node.names if a.name.startswith(PACKAGE))
    return out


def test_the_settings_are_plain_data_building_nothing_of_the_domain() -> None:
    """The settings hand plain values on; the engine builds the read limits and mappings from
    them. The one domain module they reach for is ingest's mapping check (load.py), kept out
    of import time because it loads pandas."""
    folder = ROOT / "settings"
    assert folder.is_dir()  # configuration is one package
    found = {
        (p.stem, m)
        for p in sorted(folder.glob("*.py"))
        for m in function_level_imports(p)
        if not m.startswith(f"{PACKAGE}.settings")
    }
    assert found == {("load", f"{PACKAGE}.ingest.mappings")}


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, wherever it is written (a function's body too)."""
    out: set[str] = set()
    for node in nodes_of(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            out.add(node.module or "")
    return out


def test_the_engine_imports_no_prefect() -> None:
    """Prefect's events and notification blocks are flows/'s (flows/alerting.py): the engine
    sends alerts through the sink it is handed."""
    engine = sorted((ROOT / "engine").rglob("*.py"))
    assert len(engine) > 20
    found = sorted(
        (p.name, m)
        for p in engine
        for m in imports_of(p)
        if m == "prefect" or m.startswith("prefect.")
    )
    assert found == []
