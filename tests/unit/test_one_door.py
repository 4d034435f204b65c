"""One door per way text leaves (issue 45, item 5: "nothing we keep, send or print holds a
card number"). Each way out has one function that covers card numbers, and this file proves
no other path writes:
- the API: only api/transport.py opens an HTTP session, and its `request` covers every
  string of a JSON body (checked over a fake transport); a file's name goes through
  names.upload_name;
- the state: only state/base.py's `state_engine` opens a state for writing, and its hook
  covers every text bound to a statement (checked on a real SQLite state);
- the PDFs: every Paragraph's text is a literal or goes through the letter's `_text` /
  `_marked`, the summary's `_p` or fonts.markup (which covers), and every string drawn on a
  canvas is a literal or goes through cover_text;
- the reports and every other file we write: the modules that write files are the ones
  listed below, each with the door its text goes through; a new writer fails this test until
  its door is named here.
The runs themselves are searched whole in tests/integration/flows/test_card_numbers_hidden.py.
"""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

from dispute_evidence.api import DisputeEvidenceClient, Evidence
from dispute_evidence.api.testing import MockTransport, respond
from dispute_evidence.state.store import StateStore
from tests.support.source import tree_of, walked

SRC = Path(__file__).resolve().parents[2] / "src" / "dispute_evidence"
PAN, SPACED = "4539148803436467", "4539\u00a01488\u00a00343\u00a06467"

# module -> the door the text it writes went through
FILE_WRITERS = {
    "documents/reading.py": "the documents cache: facts read from texts covered in to_facts, "
    "names from names.upload_name",
    "engine/review/preview.py": "payloads through cardnumbers.covered, file_matches.csv cells "
    "through escape_cell (names.visible)",
    "inbox.py": ".reason.txt lines (labels through names.readable, values through cover); "
    "copies of the analyst's own files",
    "ingest/statements.py": "none: it reads",
    "reports/standing_files.py": "cells through escape_cell (names.visible); the chart's own labels",
    "reports/wins_files.py": "cells through escape_cell (names.visible)",
    "reports/writer.py": "escape_cell / md_text / one_line (names.visible), _write_text, the "
    "page's Jinja finalize",
    "sandbox/workload.py": "a test workload's inbox (the sandbox's, never a run's)",
    "served.py": "a served run's pid and log files",
    "state/base.py": "the state file created empty and private",
}
ENGINES = {  # where SQLAlchemy engines are made, and why each is safe
    "state/base.py": "state_engine: the hook that covers every bound text",
    "state/database.py": "SELECT 1 and CREATE SCHEMA: no data",
    "fleet/budget.py": "the fleet's request budget: counts and merchant ids, no inbox text",
    "fleet/nights.py": "the fleet's nights: merchant ids, times, a run's headline and one-line "
    "failure (no inbox text)",
}
PARAGRAPH_TEXT = {"_text", "_marked", "markup", "_p"}
LITERAL_ONLY = {"_cited_by"}  # functions that return only literals of ours


def _modules() -> dict[str, ast.Module]:
    return {
        str(p.relative_to(SRC)): tree_of(p.read_text(encoding="utf-8")) for p in SRC.rglob("*.py")
    }


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in walked(tree) if isinstance(n, ast.Call)]


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _writes_a_file(call: ast.Call) -> bool:
    name = _name(call.func)
    if name in ("write_text", "write_bytes", "to_csv", "to_excel", "Workbook"):
        return True
    if name in ("open", "fdopen") and len(call.args) > 1:
        mode = call.args[1]
        return not (isinstance(mode, ast.Constant) and "r" in str(mode.value))
    return (
        name == "open"
        and isinstance(call.func, ast.Attribute)
        and any(k.arg == "mode" for k in call.keywords)
    )


def test_every_module_that_writes_a_file_has_its_door_named():
    writers = {m for m, tree in _modules().items() if any(map(_writes_a_file, _calls(tree)))}
    assert writers == set(FILE_WRITERS), (
        f"new: {sorted(writers - set(FILE_WRITERS))}; gone: {sorted(set(FILE_WRITERS) - writers)}"
    )


def test_only_the_transport_talks_http_and_only_the_state_engine_writes_the_state():
    modules = _modules()
    sessions = {
        m for m, t in modules.items() if any(_name(c.func) == "ClientSession" for c in _calls(t))
    }
    assert sessions - {"sandbox/runner.py"} == {"api/transport.py"}
    engines = {
        m for m, t in modules.items() if any(_name(c.func) == "create_engine" for c in _calls(t))
    }
    assert engines == set(ENGINES)
    base = modules["state/base.py"]
    makers = [
        f
        for f in ast.walk(base)
        if isinstance(f, ast.FunctionDef)
        and any(_name(c.func) == "create_engine" for c in _calls(f))
    ]
    assert [f.name for f in makers] == ["state_engine"]


def _door_or_literal(text: ast.expr) -> bool:
    if isinstance(text, ast.Constant):
        return True
    if isinstance(text, ast.BinOp):
        return _door_or_literal(text.left) and _door_or_literal(text.right)
    if isinstance(text, ast.IfExp):
        return _door_or_literal(text.body) and _door_or_literal(text.orelse)
    if isinstance(text, ast.Call):
        return _name(text.func) in PARAGRAPH_TEXT | LITERAL_ONLY or (
            _name(text.func) == "join" and all(map(_door_or_literal, text.args))
        )
    if isinstance(text, ast.GeneratorExp | ast.ListComp):
        return _door_or_literal(text.elt)
    if isinstance(text, ast.JoinedStr):
        return all(
            isinstance(v, ast.Constant)
            or (isinstance(v, ast.FormattedValue) and _door_or_literal(v.value))
            for v in text.values
        )
    return False


def test_every_pdf_text_goes_through_a_door():
    bad = []
    for module, tree in _modules().items():
        for call in _calls(tree):
            name = _name(call.func)
            if name == "Paragraph" and call.args:
                text = call.args[0]
                if not _door_or_literal(text):
                    bad.append(f"{module}:{call.lineno} Paragraph({ast.unparse(text)})")
            if name in ("drawString", "drawRightString", "drawCentredString"):
                text = call.args[2] if len(call.args) > 2 else None
                ok = isinstance(text, ast.Constant) or (
                    isinstance(text, ast.Call) and _name(text.func) == "cover_text"
                )
                if not ok:
                    bad.append(f"{module}:{call.lineno} {name}(…, {ast.unparse(text or call)})")
    assert bad == []


async def test_the_api_receives_every_json_text_covered():
    fake = MockTransport(
        lambda r: respond(
            r, 200, {"message": "ok", "dispute_id": "dp_1", "provider_dispute_id": "pd_1"}
        )
    )
    client = DisputeEvidenceClient(
        "https://api.example.com/v1", "sk_test_door", transport=fake, rate_limit_per_hour=1_000_000
    )
    evidence = Evidence.model_validate(
        {
            "additional_evidence": {
                "order_number": "1041",
                "note": f"card {SPACED}",
                "lines": [f"paid with {PAN}"],
            }
        }
    )
    async with client:
        await client.update_evidence("pd_1", evidence)
    (sent,) = fake.requests
    assert PAN not in str(sent.json).replace("\u00a0", "").replace(" ", "")
    assert "[card number ending 6467]" in str(sent.json)
    assert sent.json["evidence"]["additional_evidence"]["order_number"] == "1041"


def test_the_state_keeps_every_text_covered(tmp_path):
    path = tmp_path / "state.db"
    store = StateStore(path)
    store.runs.set_meta("a note", f"the customer wrote {SPACED} in a message")
    store.runs.set_meta("an order", "4929123456789015")  # a bare number: an identifier
    assert "[card number ending 6467]" in (store.runs.get_meta("a note") or "")
    assert store.runs.get_meta("an order") == "4929123456789015"
    store.close()
    with sqlite3.connect(path) as db:
        rows = [
            repr(r)
            for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            for r in db.execute(f'SELECT * FROM "{t}"')
        ]
    assert not [r for r in rows if PAN in r.replace("\\xa0", "")]
