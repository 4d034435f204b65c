"""What one run's report holds (`RunReport`): read by the page (reports/page.py) and the
files (reports/writer.py) alike, so neither imports the other's model."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dispute_evidence.problems import Problem, ProblemKind
from dispute_evidence.reports.wording import NEEDS_A_PERSON, RUN_LEVEL


@dataclass
class StandingSection:
    """The merchant's standing as the page shows it (reports/standing_files.py made it)."""

    titles: list[str]
    rows: list[list[str]]  # the last 12 months, newest first, in words
    notes: list[str]  # where the counts come from, what they cannot see
    chart: str = ""  # the chart, an <svg> we drew from numbers ('' none)
    attention: list[str] = field(default_factory=list)  # this or last month at watch or over
    coverage: list[str] = field(default_factory=list)  # CE 3.0 coverage, in words with counts
    classes: list[str] = field(default_factory=list)  # each column's cell class on the page
    costs: list[str] = field(default_factory=list)  # each network's latest tier and fine


@dataclass
class RunReport:
    run_id: str
    outcome: str  # the headline: "5 sent · 3 need you"
    dry_run: bool
    counts: dict[str, int]
    disputes: pd.DataFrame  # one row per dispute (engine.reporting.report.dispute_table)
    problems: list[Problem] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # since the last report
    outcomes: pd.DataFrame | None = None  # win rates (engine.reporting.outcomes.outcomes_table)
    wins: pd.DataFrame | None = None  # what wins, per reason and point (engine/reporting/wins.py)
    files: pd.DataFrame | None = None  # evidence files (StateStore.file_table): names, blobs
    config: str = ""  # the config file the run used ("none: defaults")
    notices: list[str] = field(default_factory=list)  # said first (the review policy differs)
    cleared: list[str] = field(default_factory=list)  # disputes [retention] cleared (or would)
    standing: StandingSection | None = None  # the ratios against the card programs

    @property
    def title(self) -> str:
        return f"Dry run (nothing sent): {self.outcome}" if self.dry_run else self.outcome

    def count_rows(self) -> list[tuple[str, str]]:
        c = self.counts
        rows = []
        if self.dry_run:
            rows += [
                ("Disputes that would be sent", str(c.get("would_send", 0))),
                ("Files that would be uploaded", str(c.get("would_upload", 0))),
            ]
        else:
            rows += [
                ("Disputes sent (evidence)", str(c.get("evidence_sent", 0))),
                ("Files uploaded", str(c.get("files_uploaded", 0))),
            ]
            if c.get("locked"):
                rows.append(("Skipped: another run holds them", str(c["locked"])))
        total = c.get("disputes", 0)
        # what is ready now (the verdict column), apart from what was sent before
        rows.append(("Evidence complete", f"{c.get('evidence_complete', 0)} of {total}"))
        return (
            rows
            + [
                ("Disputes sent in full so far", f"{c.get('complete', 0)} of {total}"),
                ("Problems that need you", str(c.get("need_you", 0))),
                (
                    "New files read (sheets and evidence)",
                    f"{c.get('new_files', 0)} (already seen: {c.get('repeated_files', 0)})",
                ),
                ("Rows rejected (new files)", str(c.get("rows_rejected", 0))),
                ("API requests", str(c.get("requests", 0))),
            ]
            + self._retention_rows()
            + ([("Config file", self.config)] if self.config else [])
        )

    def _retention_rows(self) -> list[tuple[str, str]]:
        """What [retention] removed, or in a dry run would (none when it is not set)."""
        c, verb = self.counts, "would be " if self.dry_run else ""
        if "retention_disputes" not in c:
            return []
        return [
            (
                f"Customer data {verb}cleared (disputes closed long enough)",
                _named(c["retention_disputes"], self.cleared),
            ),
            (f"Stored copies of their files {verb}deleted", str(c["retention_files"])),
            (f"Old report folders {verb}removed", str(c["retention_reports"])),
            (f"Old archive folders {verb}removed", str(c["retention_archive"])),
        ]

    def top_problems(self) -> list[Problem]:
        return [p for p in self.problems if p.kind in RUN_LEVEL]

    def grouped_problems(self) -> dict[ProblemKind, list[Problem]]:
        groups: dict[ProblemKind, list[Problem]] = {}
        for p in self.problems:
            if p.kind not in RUN_LEVEL:
                groups.setdefault(p.kind, []).append(p)
        return groups

    def needing_a_person(
        self, needed: bool
    ) -> tuple[list[Problem], dict[ProblemKind, list[Problem]]]:
        """The run-level problems and the grouped ones that need a person (`needed`), or those
        that are information only: summary.md and summary.txt split them the same way."""
        top = [p for p in self.top_problems() if (p.kind in NEEDS_A_PERSON) == needed]
        groups = self.grouped_problems().items()
        return top, {k: g for k, g in groups if (k in NEEDS_A_PERSON) == needed}


def _named(count: int, ids: list[str], most: int = 10) -> str:
    """The ids, "2: dp_1, dp_2", naming at most `most` of them ("…, and 5 more")."""
    if not ids:
        return str(count)
    more = f", and {len(ids) - most} more" if len(ids) > most else ""
    return f"{count}: {', '.join(ids[:most])}{more}"
