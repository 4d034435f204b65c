"""What a report showed, kept in the state (tables picture_disputes, picture_problems), so the
next one can say what changed since."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dispute_evidence.engine.reporting.history import is_history
from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports import NEEDS_A_PERSON
from dispute_evidence.state.kept import KeptPicture


@dataclass(frozen=True)
class Picture:
    disputes: dict[str, str] = field(default_factory=dict)  # dispute -> "status, files a/b"
    problems: frozenset[str] = frozenset()  # "kind: where: what"

    @classmethod
    def of(cls, table: pd.DataFrame, problems: list[Problem]) -> Picture:
        """The disputes the page lists and the problems; a dispute that ended over two weeks
        ago (engine/reporting/history.py) no longer changes and is left out, so the picture kept each
        night is the open work, not the year."""
        table = table.loc[~is_history(table)]
        disputes = {
            str(
                r.provider_dispute_id
            ): f"{r.status_words}, files {r.files_uploaded}/{r.files_total}"
            for r in table.itertuples(index=False)
        }
        return cls(disputes, frozenset(f"{p.kind}: {p.where}: {p.what}" for p in problems))

    def kept(self) -> KeptPicture:
        """As the state keeps it (state/kept.py)."""
        return KeptPicture(dict(self.disputes), self.problems)

    @classmethod
    def from_kept(cls, kept: KeptPicture | None) -> Picture | None:
        return None if kept is None else cls(dict(kept.disputes), kept.problems)

    def changes_since(self, before: Picture | None) -> list[str]:
        """Plain lines: disputes new or changed, problems that need a person new or resolved
        (information-only notes coming or going are no change to act on)."""
        if before is None:
            return ["First report for this inbox: everything below is new."]
        aged = before.disputes.keys() - self.disputes.keys()  # ended two weeks ago: history
        if aged:  # their problems went with them: not "resolved" by anyone
            kept = frozenset(p for p in before.problems if _dispute_of(p) not in aged)
            before = Picture(before.disputes, kept)
        lines = []
        for pid, now in sorted(self.disputes.items()):
            was = before.disputes.get(pid)
            if was is None:
                lines.append(f"{pid}: new: {now}")
            elif was != now:
                lines.append(f"{pid}: {was} → {now}")
        now_open, was_open = _needing_a_person(self.problems), _needing_a_person(before.problems)
        new, resolved = len(now_open - was_open), len(was_open - now_open)
        if new or resolved:
            lines.append(f"Problems: {new} new, {resolved} resolved")
        return lines or ["Nothing changed."]


# Kinds that are information only ("Nothing: …" to do): a note is no problem that came or went
INFORMATION = frozenset(ProblemKind) - NEEDS_A_PERSON


def _needing_a_person(problems: frozenset[str]) -> frozenset[str]:
    """The kept problem lines ("kind: where: what") a person has to act on."""
    return frozenset(p for p in problems if p.split(": ", 1)[0] not in INFORMATION)


def _dispute_of(problem: str) -> str:
    """The dispute a kept problem line ("kind: where: what") is about: `where` is the dispute
    id, or the dispute id and a file name (an id has no space)."""
    parts = problem.split(": ", 2)
    return parts[1].split(" ", 1)[0] if len(parts) > 1 else ""
