"""docs/architecture.md is checked against state/lifecycle.py: it names every status, for each
the moves the tables allow, no more and no fewer, and every table of moves. (The writes are
checked against the tables by tests/unit/test_status_writes.py and tests/unit/engine/test_status_gate.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from dispute_evidence.state import lifecycle as status_module
from dispute_evidence.state.lifecycle import (
    DisputeStatus,
    FileStatus,
    next_file_statuses,
    next_statuses,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "architecture.md"


def _section(text: str, heading: str) -> str:
    start = text.index(f"### {heading}\n")
    end = text.find("\n#", start + 1)
    return text[start : end if end != -1 else None]


def _rows(table: str) -> dict[str, set[str]]:
    """status -> the statuses its "next" column names (words in brackets are comments)."""
    out = {}
    for status, nxt in re.findall(r"^\| `(\w+)` \| .*? \| (.*) \|$", table, flags=re.MULTILINE):
        out[status] = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", nxt)))
    return out


def test_the_architecture_doc_names_every_status_the_code_defines():
    text = DOC.read_text()
    for heading, statuses in (("Dispute", DisputeStatus), ("Evidence file", FileStatus)):
        named = set(_rows(_section(text, heading)))
        assert named == {s.value for s in statuses}, heading  # every status, and no other


def test_the_architecture_doc_gives_each_dispute_status_exactly_its_allowed_moves():
    rows = _rows(_section(DOC.read_text(), "Dispute"))
    for status in DisputeStatus:
        allowed = {s.value for s in next_statuses(status)}
        assert rows[status.value] == allowed, status


def test_the_architecture_doc_gives_each_file_status_exactly_its_allowed_moves():
    rows = _rows(_section(DOC.read_text(), "Evidence file"))
    for status in FileStatus:
        allowed = {to.value for to in next_file_statuses(status)}
        assert rows[status.value] == allowed, status


def test_the_architecture_doc_names_every_table_of_moves_and_only_those():
    doc = DOC.read_text()
    text = doc[doc.index("## The state machine\n") : doc.index("### Dispute\n")]  # its intro
    named = {n for n in re.findall(r"`([A-Z_]+)`", text) if n.endswith(("_MOVES", "_STARTS"))}
    tables = {n for n in vars(status_module) if n.endswith(("_MOVES", "_STARTS"))}
    assert named == tables
    assert "`state/transitions.py` is the only code that writes a status" in text
