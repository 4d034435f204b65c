"""The store is handed out as parts (issue 47.1): `StateStore` has no public method of its own
beyond opening (its constructor, `open_read_only`) and closing, and outside `state/` only the
run's composition roots (engine/run_steps.py and its session, engine/approve.py, the fleet) take
it whole; every other function names the parts it uses (a Protocol built from state/holders.py).
Read from the source, so a new function that takes the whole store, or a method added to the store
itself, fails here with its file and line."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from dispute_evidence.state.base import Part
from dispute_evidence.state.store import PARTS, StateStore
from tests.support.source import nodes_of

ROOT = Path(__file__).resolve().parents[2]
# the composition roots: the run (and the session it opens the store into), approve, the fleet
ROOTS = (
    "src/dispute_evidence/engine/run_steps.py",
    "src/dispute_evidence/engine/session.py",
    "src/dispute_evidence/engine/approve.py",
)
ROOT_FOLDERS = ("src/dispute_evidence/fleet/",)
OWN = {"close"}  # beside the constructor and the parts


def whole_store_params(source: str, path: str) -> list[str]:
    """Each parameter of a function in `source` annotated with the whole store."""
    found = []
    for node in nodes_of(source):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.annotation is not None and "StateStore" in ast.unparse(arg.annotation):
                    found.append(f"{path}:{node.lineno} {node.name}({arg.arg})")
    return found


def _outside_state() -> list[Path]:
    files = [*(ROOT / "src/dispute_evidence").rglob("*.py"), *(ROOT / "flows").rglob("*.py")]
    return [f for f in files if "state" not in f.relative_to(ROOT).parts[:3]]


def test_no_function_outside_state_takes_the_whole_store() -> None:
    offenders = []
    for path in _outside_state():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ROOTS or rel.startswith(ROOT_FOLDERS):
            continue
        offenders += whole_store_params(path.read_text(encoding="utf-8"), rel)
    assert not offenders, "hand these the parts they use, not the whole store:\n" + "\n".join(
        offenders
    )


def test_the_check_finds_a_function_that_takes_the_whole_store() -> None:
    source = (
        "def ok(store: CaseParts) -> None: ...\n"
        "def whole(x: int, store: StateStore | None = None) -> None: ...\n"
        "async def also(*, st: 'StateStore') -> None: ...\n"
    )
    assert whole_store_params(source, "m.py") == ["m.py:2 whole(store)", "m.py:3 also(st)"]


def test_the_store_has_no_public_method_of_its_own_beyond_closing() -> None:
    own = {
        name
        for klass in StateStore.__mro__
        if klass is not object
        for name, value in vars(klass).items()
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))
    }
    assert own <= OWN, f"a part's method on the store itself: {sorted(own - OWN)}"
    assert set(StateStore.__annotations__) >= set(PARTS)


def test_every_part_is_held_and_no_part_reaches_the_store() -> None:
    """A part works over the shared connection only; the store holds one of each."""
    for attr, part in PARTS.items():
        assert issubclass(part, Part), attr
        source = inspect.getsource(part)
        assert "StateStore" not in source, f"{part.__name__} reaches the whole store"
