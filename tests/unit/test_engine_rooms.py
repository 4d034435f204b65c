"""The engine in rooms by stage (docs/architecture.md): each room imports only the rooms
before it, never a later one and never the sequence above them all.

    engine/options.py, session.py, full_disk.py   what every room may read: what the run is asked,
                                              what its steps share, a helper
    prepare/ -> review/ -> delivery/ -> reporting/
    engine/run_steps.py, approve.py                  the sequence: may import every room
"""

from __future__ import annotations

from tests.unit.test_import_cycles import PACKAGE, import_graph

ENGINE = f"{PACKAGE}.engine"
ROOMS = ("prepare", "review", "delivery", "reporting")  # in the order a run goes through them
BASE = ("options", "session", "full_disk")


def room_of(module: str) -> str | None:
    """The room (or "base", or "top") of an engine module; None outside the engine."""
    if not module.startswith(f"{ENGINE}."):
        return None
    first = module.removeprefix(f"{ENGINE}.").split(".")[0]
    if first in ROOMS:
        return first
    return "base" if first in BASE else "top"


def rank(room: str) -> int:
    return {"base": 0, **{r: i + 1 for i, r in enumerate(ROOMS)}, "top": len(ROOMS) + 1}[room]


def backward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs where an engine module imports a later room or the top."""
    out = []
    for m, deps in graph.items():
        here = room_of(m)
        if here is None or here == "top":
            continue
        for d in deps:
            there = room_of(d)
            if there is not None and there != here and rank(there) > rank(here):
                out.append((m, d))
    return sorted(out)


def test_each_room_of_the_engine_imports_only_the_rooms_before_it() -> None:
    assert backward(import_graph()) == []


def test_the_engine_has_its_rooms_and_nothing_else_but_the_sequence() -> None:
    graph = import_graph()
    top = sorted(m for m in graph if room_of(m) == "top" and m.count(".") == 2)
    assert top == [f"{ENGINE}.approve", f"{ENGINE}.run_steps"]


def test_the_room_check_finds_a_backward_import() -> None:
    graph = {
        f"{ENGINE}.prepare.build": {f"{ENGINE}.review.approval", f"{ENGINE}.options"},
        f"{ENGINE}.reporting.report": {f"{ENGINE}.prepare.case"},
        f"{ENGINE}.review.approval": {f"{ENGINE}.run_steps"},
    }
    assert backward(graph) == [
        (f"{ENGINE}.prepare.build", f"{ENGINE}.review.approval"),
        (f"{ENGINE}.review.approval", f"{ENGINE}.run_steps"),
    ]
