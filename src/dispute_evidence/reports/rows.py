"""One dispute as the report reasons about it: the dispute table's record, its kept words read
once into typed values (states.py). engine/reporting/report.py builds one per dispute; the decisions
(its next step, its plain state, whether it needs a person) and the column formatters read
its attributes, never prefixes of its words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.states import AdviceLine, Hold, HoldKind, VerdictLine


def _int(value: Any) -> int | None:
    """A whole number, or None for no value (a table column holds NaN for None)."""
    return None if value is None or value != value else int(value)


def _str(value: Any) -> str:
    return "" if value is None or value != value else str(value)


@dataclass(frozen=True)
class DisputeRow:
    provider_dispute_id: str
    status: str  # state/lifecycle.py's DisputeStatus value
    status_words: str
    days_left: int | None  # whole days to the deadline; None without one
    files_total: int
    files_uploaded: int
    detail: str  # the state's words for it ("" when none)
    what_to_add: str
    verdict: VerdictLine
    hold: Hold | None
    advice: AdviceLine

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> DisputeRow:
        """From one record of the dispute table (a column it does not have yet reads empty)."""
        return cls(
            provider_dispute_id=str(record["provider_dispute_id"]),
            status=str(record["status"]),
            status_words=_str(record.get("status_words")),
            days_left=_int(record.get("days_left")),
            files_total=_int(record.get("files_total")) or 0,
            files_uploaded=_int(record.get("files_uploaded")) or 0,
            detail=_str(record.get("detail")),
            what_to_add=_str(record.get("what_to_add")),
            verdict=VerdictLine.parse(record.get("completeness")),
            hold=Hold.parse(record.get("detail")),
            advice=AdviceLine.parse(record.get("advice")),
        )

    @property
    def held(self) -> bool:
        """Held by the run itself ("held: ..."): its data, a limit, or the API's view."""
        return self.hold is not None and self.hold.held

    def holds(self, kind: HoldKind) -> bool:
        return self.hold is not None and self.hold.kind is kind

    @property
    def files_waiting(self) -> int:
        return self.files_total - self.files_uploaded


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """table.to_dict("records"): the same values (Python's own numbers, NaN for a missing
    text), read a column at a time. to_dict boxed every cell of a text column one by one,
    seven times slower on a season's dispute table, and it runs for every open dispute."""
    keys = [str(c) for c in table.columns]
    columns = [table.iloc[:, i].tolist() for i in range(len(keys))]
    return [dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)]


def dispute_rows(table: pd.DataFrame) -> list[DisputeRow]:
    """A DisputeRow per row of the dispute table, in its order."""
    return [DisputeRow.of(r) for r in records(table)]
