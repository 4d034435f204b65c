"""Making many records at once (the build's 100,000 disputes from a million order lines,
evidence/builder.py): text columns whose repeated values share one object, and the cycle
collector paused while a build makes objects that hold no cycles (issue 47 item 6). Pure."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import numpy as np
import pandas as pd

_P = ParamSpec("_P")
_R = TypeVar("_R")


def shared_texts(column: pd.Series) -> list[str]:
    """The column's values as text, one object per distinct value: an export repeats its
    currency, titles, SKUs, carriers and dates on most rows, and 500,000 copies of each were
    a tenth of the build's memory (issue 47 item 6)."""
    values = column.astype(str)
    codes, distinct = pd.factorize(values)
    if len(distinct) * 2 > len(values) or (codes < 0).any():  # mostly distinct: as they are
        return values.tolist()  # type: ignore[no-any-return]
    return np.asarray(distinct, dtype=object)[codes].tolist()  # type: ignore[no-any-return]


def gc_paused(build: Callable[_P, _R]) -> Callable[_P, _R]:
    """`build` with Python's cycle collector paused: the build makes a million small objects
    that hold no cycles (facts, lines, shipments) beside the records' millions, and the
    collector walked them all again and again: 0.5 to 1 s of a 5.6 s build (issue 47 item 6).
    What is garbage is freed as before (reference counts); cycles wait for the next pass."""

    @functools.wraps(build)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return build(*args, **kwargs)
        gc.disable()
        try:
            return build(*args, **kwargs)
        finally:
            gc.enable()

    return paused
