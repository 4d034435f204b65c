"""Evidence quality work per dispute (issue 12): the summary PDF and the completeness verdict,
on the payloads the engine builds from a generated inbox; and what the summary step costs a
whole prepare pass (with it and without it, same inbox, same run)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import orjson

from bench.common import figure, heading
from dispute_evidence.engine.state import StateStore
from dispute_evidence.engine.steps import RunOptions, ingest_inbox_step, prepare_step
from dispute_evidence.evidence.completeness import assess
from dispute_evidence.evidence.summary_pdf import summary_pdf
from dispute_evidence.sandbox.workload import MERCHANT, make_inbox


def _prepare(inbox: Path, state: Path, summaries: bool) -> float:
    with StateStore(state) as store:
        opts = RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0, archive=False,
                          summary_pdf=summaries, blob_dir=state.parent / "blobs")  # fmt: skip
        opts.blob_dir.mkdir(exist_ok=True)  # type: ignore[union-attr]
        t0 = time.perf_counter()
        ingest = ingest_inbox_step(store, opts, "bench")
        prepare_step(store, opts, ingest, "bench", rebuild=True)
        return time.perf_counter() - t0


def run(quick: bool = False) -> None:
    n = 200 if quick else 2000
    heading(f"evidence: summary PDF and completeness, {n} disputes (issue 12)")
    with tempfile.TemporaryDirectory() as tmp:
        inbox = Path(tmp) / "inbox"
        make_inbox(inbox, n, files=(1, 3))
        plain = _prepare(inbox, Path(tmp) / "a" / "s.sqlite3", False) if _mk(tmp, "a") else 0.0
        with_pdf = _prepare(inbox, Path(tmp) / "b" / "s.sqlite3", True) if _mk(tmp, "b") else 0.0
        with StateStore(Path(tmp) / "b" / "s.sqlite3") as store:
            payloads = store.payloads()
            names = store.file_names()
            again = time.perf_counter()
            opts = RunOptions(inbox=inbox, merchant=MERCHANT, settle_seconds=0, archive=False,
                              summary_pdf=True, blob_dir=Path(tmp) / "b" / "blobs")  # fmt: skip
            prepare_step(store, opts, ingest_inbox_step(store, opts, "again"), "again",
                         rebuild=False)  # fmt: skip
            rerun = time.perf_counter() - again
        pdf_times, sizes = [], []
        for pid, body in list(payloads.items())[:n]:
            payload = orjson.loads(body)
            attached = [x for x in names.get(pid, []) if "-evidence-summary" not in x]
            t0 = time.perf_counter()
            pdf = summary_pdf(pid, payload, attached)
            pdf_times.append(time.perf_counter() - t0)
            sizes.append(len(pdf))
        t0 = time.perf_counter()
        for pid, body in payloads.items():
            assess(orjson.loads(body), len(names.get(pid, [])), "fraudulent")
        verdict = (time.perf_counter() - t0) / len(payloads)
    figure("summary PDF: ms per dispute (median)", f"{statistics.median(pdf_times) * 1e3:.1f}")
    figure("summary PDF: ms per dispute (p95)",
           f"{sorted(pdf_times)[int(len(pdf_times) * 0.95)] * 1e3:.1f}")  # fmt: skip
    figure("summary PDF: bytes per PDF (median / max)",
           f"{int(statistics.median(sizes)):,} / {max(sizes):,}")  # fmt: skip
    figure("completeness verdict: µs per dispute", f"{verdict * 1e6:.0f}")
    figure(f"prepare of {n} disputes without summaries (s)", f"{plain:.2f}")
    figure(f"prepare of {n} disputes with summaries (s)", f"{with_pdf:.2f}")
    figure("prepare again, nothing changed: summaries made", f"{rerun:.2f} s", "(no PDF made)")


def _mk(tmp: str, name: str) -> bool:
    (Path(tmp) / name).mkdir()
    return True
