"""Runs of the pipeline, the inbox a state belongs to, what the watcher saw, open problems
and what the dry run copies."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import select

from dispute_evidence.state.base import (
    Part,
    new_run_id,
    now_iso,
)
from dispute_evidence.state.errors import StateOfAnotherInbox
from dispute_evidence.state.schema import (
    evidence_files,
    evidence_seen,
    meta,
    open_problems,
    runs,
)

SOURCES_AT_ONCE = 500  # sources named in one DELETE (SQLite's older limit is 999 parameters)


class Runs(Part):
    """Runs and their outcomes, the inbox binding, the watcher's memory, open problems."""

    def start_run(self, trigger: str = "manual", run_id: str | None = None) -> str:
        run_id = run_id or new_run_id()
        with self.engine.begin() as c:
            c.execute(
                runs.insert().values(
                    run_id=run_id, started_at=now_iso(), trigger=trigger, outcome="running"
                )
            )
        return run_id

    def finish_run(self, run_id: str, outcome: str, counts: dict[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(
                runs.update()
                .where(runs.c.run_id == run_id)
                .values(
                    finished_at=now_iso(),
                    outcome=outcome,
                    counts=json.dumps(counts, sort_keys=True),
                )
            )

    def mark_crashed_runs(self, except_run: str) -> int:
        """Runs still 'running' when a run takes the lock died without finishing (SIGKILL,
        power loss): only the lock holder ever has a running row."""
        with self.engine.begin() as c:
            result = c.execute(
                runs.update()
                .where(runs.c.outcome == "running", runs.c.run_id != except_run)
                .values(outcome="crashed", finished_at=now_iso())
            )
        return result.rowcount

    def last_runs(self, n: int = 5) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = (
                c.execute(select(runs).order_by(runs.c.started_at.desc()).limit(n)).mappings().all()
            )
        return [dict(r) for r in rows]

    def bind_inbox(self, inbox: Path, *, adopt: bool = False) -> None:
        """Record the inbox on first use; refuse another one unless `adopt` (the inbox moved),
        which rebinds and points stored evidence copies at the new place."""
        here = str(inbox)
        with self.engine.begin() as c:
            bound = c.execute(select(meta.c.value).where(meta.c.key == "inbox")).scalar()
            if bound == here:
                return
            if bound is not None and not adopt:
                raise self._another_inbox(bound, here)
            if bound is not None:
                for path, pid, sha in c.execute(
                    select(
                        evidence_files.c.path,
                        evidence_files.c.provider_dispute_id,
                        evidence_files.c.sha256,
                    )
                ).all():
                    if path.startswith(bound + os.sep):
                        c.execute(
                            evidence_files.update()
                            .where(
                                evidence_files.c.provider_dispute_id == pid,
                                evidence_files.c.sha256 == sha,
                            )
                            .values(path=here + path[len(bound) :])
                        )
            c.execute(meta.delete().where(meta.c.key == "inbox"))
            c.execute(meta.insert().values(key="inbox", value=here))

    def check_inbox(self, inbox: Path, *, adopt: bool = False) -> None:
        """Raise StateOfAnotherInbox if this state serves another inbox (and not `adopt`)."""
        with self.engine.connect() as c:
            bound = c.execute(select(meta.c.value).where(meta.c.key == "inbox")).scalar()
        if bound not in (None, str(inbox)) and not adopt:
            raise self._another_inbox(bound, str(inbox))

    def _another_inbox(self, bound: str, here: str) -> StateOfAnotherInbox:
        return StateOfAnotherInbox(
            f"the state store {self._where()} belongs to the inbox {bound}, not {here}. Give "
            "each inbox its own state (the default sits beside the inbox), or, if this inbox "
            "was moved there, run once with --adopt."
        )

    def seen_evidence(self) -> set[str]:
        with self.engine.connect() as c:
            return set(c.execute(select(evidence_seen.c.signature)).scalars())

    def mark_evidence_seen(self, signatures: Iterable[str]) -> None:
        """Remember the evidence files a run considered (matched or not): 'path|size|mtime'."""
        with self.engine.begin() as c:
            c.execute(evidence_seen.delete())
            rows = [{"signature": s} for s in sorted(set(signatures))]
            if rows:
                c.execute(evidence_seen.insert(), rows)

    def replace_problems(
        self, source: str, problems: Iterable[dict[str, Any]], run_id: str
    ) -> None:
        """The open problems of one source (an inbox file's name, or "(build)") become these."""
        rows = [
            {"source": source, "seq": i, "kind": p["kind"], "body": json.dumps(p), "run_id": run_id}
            for i, p in enumerate(problems)
        ]
        with self.engine.begin() as c:
            c.execute(open_problems.delete().where(open_problems.c.source == source))
            if rows:
                c.execute(open_problems.insert(), rows)

    def replace_problems_of(
        self, by_source: Mapping[str, Iterable[dict[str, Any]]], run_id: str
    ) -> None:
        """`replace_problems` for many sources (each matched evidence file's notes) in one
        transaction: one per file cost a commit each, 0.7 s of a 2,000-dispute prepare."""
        sources = list(by_source)
        rows = [
            {"source": src, "seq": i, "kind": p["kind"], "body": json.dumps(p), "run_id": run_id}
            for src in sources
            for i, p in enumerate(by_source[src])
        ]
        with self.engine.begin() as c:
            for at in range(0, len(sources), SOURCES_AT_ONCE):
                chunk = sources[at : at + SOURCES_AT_ONCE]
                c.execute(open_problems.delete().where(open_problems.c.source.in_(chunk)))
            if rows:
                c.execute(open_problems.insert(), rows)

    def open_problems(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(open_problems.c.body).order_by(open_problems.c.source, open_problems.c.seq)
            ).all()
        return [json.loads(r[0]) for r in rows]
