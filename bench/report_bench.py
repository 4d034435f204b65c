"""The nightly report as the history grows (issue 32): its cost follows the open work, not
every dispute that ever ended. A state with 4N disputes closed long ago should render in at
most ~1.5x the CPU time of one with N (it was ~3x: every closed dispute got its completeness,
letter and page section each night). Moved here from a pass/fail test: a timing is a figure."""

from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path

from bench.common import figure, heading
from dispute_evidence.state.store import StateStore
from support.report_history import OPEN, history_state, write_nightly_report


def _render(store: StateStore, folder: Path) -> float:
    """CPU seconds for one whole report (the collector held off: its pauses follow the whole
    process's heap, not this report)."""
    gc.collect()
    gc.disable()
    try:
        begin = time.process_time()
        write_nightly_report(store, folder)
        return time.process_time() - begin
    finally:
        gc.enable()


def _cost(root: Path, closed: int) -> float:
    store = history_state(root, closed)
    _render(store, root / "reports" / "first")  # writes the month's history workbook once
    # the least of five: a busy machine only ever adds time, to one measurement or the other
    cost = min(_render(store, root / "reports" / f"r{i}") for i in range(5))
    store.close()
    return cost


def run(quick: bool = False) -> None:
    n = 100 if quick else 300
    heading(
        f"nightly report: {OPEN} open disputes beside N = {n} and 4N closed long ago (issue 32)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        small, large = _cost(Path(tmp) / "n", n), _cost(Path(tmp) / "4n", 4 * n)
    figure("report CPU time with N closed (s)", f"{small:.3f}")
    figure("report CPU time with 4N closed (s)", f"{large:.3f}")
    figure("4N / N", f"{large / small:.2f}", "(<= 1.6; ~3 before issue 32)")
