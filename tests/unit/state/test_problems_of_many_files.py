"""The open problems of many evidence files replaced in one transaction (prepare's notes on each
matched file: one commit each cost 0.7 s of a 2,000-dispute prepare): each file's notes replace
only its own, a file with none clears its own, and the other sources stay."""

from __future__ import annotations

from dispute_evidence.state.runs import SOURCES_AT_ONCE
from dispute_evidence.state.store import StateStore


def _note(what: str) -> dict[str, str]:
    return {"kind": "evidence_matched_by_content", "what": what}


def test_each_files_notes_replace_only_its_own(tmp_path):
    with StateStore(tmp_path / "s.sqlite3") as store:
        store.runs.replace_problems("a.pdf", [_note("old a")], "r1")
        store.runs.replace_problems("b.pdf", [_note("old b")], "r1")
        store.runs.replace_problems("orders.csv", [_note("a sheet's")], "r1")
        many = {f"f{i}.pdf": [_note(f"f{i}")] for i in range(SOURCES_AT_ONCE + 3)}
        store.runs.replace_problems_of({**many, "a.pdf": [_note("new a")], "b.pdf": []}, "r2")
        said = [p["what"] for p in store.runs.open_problems()]
    assert "new a" in said and "old a" not in said
    assert "old b" not in said  # a file with no notes now: its old one is gone
    assert "a sheet's" in said  # another source stays
    assert sorted(w for w in said if w.startswith("f")) == sorted(
        f"f{i}" for i in range(SOURCES_AT_ONCE + 3)
    )
