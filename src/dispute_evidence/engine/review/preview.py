"""What a dry run (or approving held disputes) would send: payloads/<dispute>.json and
file_matches.csv, read from a state store. Below engine/reporting/report.py and engine/review/approval.py, which
both write it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import orjson
import pandas as pd

from dispute_evidence.cardnumbers import covered
from dispute_evidence.reports.writer import escape_cell, private_folder
from dispute_evidence.state.holders import HasDisputes, HasReports
from dispute_evidence.state.lifecycle import DisputeStatus, FileStatus


class PreviewParts(HasDisputes, HasReports, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


def write_dry_run_preview(
    folder: Path,
    store: PreviewParts,
    pids: Sequence[str] | None = None,
    *,
    files: pd.DataFrame | None = None,
) -> None:
    """A dry run's payloads that would be sent (payloads/<dispute>.json) and the files that
    would be uploaded (file_matches.csv), read from its copy of the state. With `pids`: those
    disputes' (what approving held disputes would send); `files`: the file rows, if read."""
    payloads = private_folder(folder / "payloads")
    for pid in store.disputes.work_queue() if pids is None else pids:
        body = store.disputes.dispute(pid).get("payload")
        if body:
            (payloads / f"{_safe(pid)}.json").write_bytes(
                orjson.dumps(covered(orjson.loads(body)), option=orjson.OPT_INDENT_2)
            )
    files = store.reports.file_table() if files is None else files
    if pids is not None:
        files = files.loc[files["provider_dispute_id"].isin(pids)]
    else:  # held disputes' files wait with them (review.write_approval_preview lists them)
        disputes = store.reports.dispute_rows()
        held = disputes.loc[disputes["status"] == DisputeStatus.AWAITING_APPROVAL]
        files = files.loc[~files["provider_dispute_id"].isin(held["provider_dispute_id"])]
    # how each file was matched: "name", or "content: names order 5001" (our summaries: "")
    waiting = files.loc[
        files["status"] != FileStatus.UPLOADED, ["provider_dispute_id", "file_name", "matched"]
    ].fillna({"matched": ""})
    # names come from the inbox: a cell a spreadsheet would run as a formula is escaped
    waiting.rename(columns={"file_name": "file"}).map(escape_cell).to_csv(
        folder / "file_matches.csv", index=False
    )


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:120]
