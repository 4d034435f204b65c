"""docs/architecture.md is checked against engine/status.py: it names every status."""

from __future__ import annotations

import re
from pathlib import Path

from dispute_evidence.engine.status import DisputeStatus, FileStatus

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _section(text: str, heading: str) -> str:
    start = text.index(f"### {heading}\n")
    end = text.find("\n#", start + 1)
    return text[start : end if end != -1 else None]


def test_the_architecture_doc_names_every_status_the_code_defines():
    text = DOC.read_text()
    for heading, statuses in (("Dispute", DisputeStatus), ("Evidence file", FileStatus)):
        table = _section(text, heading)
        named = set(re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE))
        assert named == {s.value for s in statuses}, heading  # every status, and no other
