"""Python source parsed once a test process. The structure tests (one door, the engine's rooms,
the networks, the status writes, ...) each parsed and walked every module of `src/` again: ~2 s
apiece, a fifth of the unit tier's CPU. The trees are shared, so a test must not change one."""

from __future__ import annotations

import ast
import functools


@functools.cache
def tree_of(source: str) -> ast.Module:
    """`source`'s syntax tree (one per distinct text, kept for the process)."""
    return ast.parse(source)


@functools.cache
def walked(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of `tree`, in `ast.walk`'s order."""
    return tuple(ast.walk(tree))


def nodes_of(source: str) -> tuple[ast.AST, ...]:
    """Every node of `source`'s tree, in `ast.walk`'s order."""
    return walked(tree_of(source))
