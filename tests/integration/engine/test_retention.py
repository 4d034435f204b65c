"""[retention] (issue 32): customer data is cleared, and stored copies deleted, only for
disputes closed longer than the setting; a dry run removes nothing and says what it would.

Real runs against the local API, on the pipeline's clock moved forward (dispute_evidence.clock).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pandas as pd
import pytest
from pypdf import PdfReader
from pypdf.errors import PdfReadError
from sqlalchemy import MetaData, create_engine, select, text

from dispute_evidence import clock
from dispute_evidence.engine.prepare.pdf_versions import SENT, material_facts, stated_hash
from dispute_evidence.engine.prepare.retention_clearing import PERSONAL_FIELDS, scrub
from dispute_evidence.engine.run_steps import run_inbox
from dispute_evidence.inbox import PRIVATE, default_state
from dispute_evidence.settings import RunRequest, load_settings
from dispute_evidence.state.generated import GENERATED_KINDS
from dispute_evidence.state.schema import disputes, evidence_files
from dispute_evidence.state.store import StateStore
from support.docfixtures import text_pdf
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import write_rows

PERSONAL = {
    "customer_name": "Ann Smith",
    "customer_email": "ann@example.com",
    "billing_address": "1 Main St, Springfield",
    "shipping_address": "2 Side St, Springfield",
    "customer_ip": "203.0.113.7",
    "device_id": "dev-42",
}
CLEARED = {  # dp_test_0's customer: the one whose dispute is cleared on day 35
    "customer_name": "Bea Quist",
    "customer_email": "bea.quist@example.org",
    "billing_address": "77 Elm Row, Shelbyville",
    "shipping_address": "78 Elm Row, Shelbyville",
    "customer_ip": "198.51.100.23",
    "device_id": "dev-bq-9",
}


def _inbox(inbox: Path) -> None:
    (inbox / "proofs").mkdir(parents=True)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[f"dp_test_{i}", f"#{5000 + i}", "general"] for i in range(3)])  # fmt: skip
    write_rows(inbox / "orders.csv",
               ["order_number", "product_title", "price", "quantity", "currency_code",
                "order_date", *PERSONAL],
               [[5000 + i, "Lamp", 40 + i, 1, "USD", "2026-01-05",
                 *(CLEARED if i == 0 else PERSONAL).values()] for i in range(3)])  # fmt: skip
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier"],
               [[5000 + i, f"1Z{i:06d}", "UPS"] for i in range(3)])  # fmt: skip
    for i in range(3):
        (inbox / "proofs" / f"dp_test_{i}_receipt.pdf").write_bytes(b"%PDF-1.4\n" + b"x" * i)
    # read, and its reading kept: who signed for dp_test_0's parcel, and where
    text_pdf(inbox / "proofs" / "dp_test_0_delivery.pdf", [[
        "Proof of Delivery", "Tracking number: 1Z000000", "Delivered on 2026-01-08",
        f"Signed by: {CLEARED['customer_name']}", f"Delivered to: {CLEARED['shipping_address']}",
        f"Contact: {CLEARED['customer_email']}"]])  # fmt: skip
    # the same document (one content hash) for a cleared dispute and an open one
    terms = text_pdf(
        inbox / "proofs" / "dp_test_0_terms.pdf",
        [["Refund policy", "Returns are accepted within 30 days of delivery."]],
    )
    (inbox / "proofs" / "dp_test_2_terms.pdf").write_bytes(terms.read_bytes())


@pytest.fixture
def season(sandbox_factory, tmp_path, monkeypatch):
    """Three disputes sent on day 0; dp_test_0 closes (won) on day 1, dp_test_1 (lost) on
    day 20, dp_test_2 stays open. Returns (inbox, run on day N with sections)."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    _inbox(inbox)
    start = datetime.now(UTC)

    def run(day: int, dry: bool = False, **sections):
        settings = load_settings(None, **sections)
        api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
        with clock.use(lambda: start + timedelta(days=day)):
            return run_inbox(settings, RunRequest(inbox=inbox, dry_run=dry), api=api)

    run(0)
    sb.move("dp_test_0", "won")
    run(1)
    sb.move("dp_test_1", "lost")
    run(20)
    return inbox, run


def _state(inbox: Path) -> tuple[dict[str, dict], dict[str, list[dict]], list[dict]]:
    with StateStore(default_state(inbox)) as store, store.engine.connect() as c:
        rows = {r.provider_dispute_id: dict(r._mapping) for r in c.execute(select(disputes))}
        files: dict[str, list[dict]] = {}
        for f in c.execute(select(evidence_files)):
            files.setdefault(f.provider_dispute_id, []).append(dict(f._mapping))
        orders = [dict(r._mapping) for r in c.execute(text("SELECT * FROM rec_orders"))]
    return rows, files, orders


def _personal_in(payload: bytes) -> set[str]:
    found: set[str] = set()

    def walk(v):
        if isinstance(v, dict):
            found.update(k for k in v if k in PERSONAL_FIELDS)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(orjson.loads(payload))
    return found


def test_customer_data_goes_only_for_disputes_closed_longer_than_the_setting(season):
    inbox, run = season
    before, before_files, _ = _state(inbox)
    assert _personal_in(before["dp_test_0"]["payload"])  # the names were there
    blobs = {pid: [Path(f["path"]) for f in fs] for pid, fs in before_files.items()}
    assert all(p.is_file() for ps in blobs.values() for p in ps)
    copies = _copies_of_dp_test_0(inbox, before_files)

    result = run(35, retention={"customer_data_days": 30})

    after, files, orders = _state(inbox)
    # dp_test_0 closed on day 1 (34 days ago): cleared
    assert _personal_in(after["dp_test_0"]["payload"]) == set()
    # its typed facts held the same names: dropped (the case reads the scrubbed payload)
    assert before["dp_test_0"]["facts"] and after["dp_test_0"]["facts"] is None
    assert after["dp_test_1"]["facts"] == before["dp_test_1"]["facts"] is not None  # not due
    kept = orjson.loads(after["dp_test_0"]["payload"])
    assert kept == scrub(orjson.loads(before["dp_test_0"]["payload"]))  # everything else kept
    assert kept["products"] and kept["shipping_tracking_numbers"] == ["1Z000000"]
    assert after["dp_test_0"]["api_status"] == "won"
    assert [f["kind"] for f in files["dp_test_0"]] == [f["kind"] for f in before_files["dp_test_0"]]
    assert all(f["path"] == "" for f in files["dp_test_0"])
    assert not any(p.exists() for p in copies)  # the stored copies are gone
    assert set(blobs["dp_test_0"]) - copies == {  # but for the one dp_test_2 uses too
        Path(f["path"]) for f in before_files["dp_test_0"] if f["file_name"].endswith("terms.pdf")
    }
    order = next(o for o in orders if o["order_number"] == "5000")
    assert all(order[f] is None for f in PERSONAL)
    assert (order["product_title"], float(order["price"]), order["order_date"]) == (
        "Lamp", 40.0, before_order_date(orders))  # fmt: skip
    # dp_test_1 closed 15 days ago and dp_test_2 is open: untouched
    for pid in ("dp_test_1", "dp_test_2"):
        assert after[pid]["payload"] == before[pid]["payload"]
        assert all(p.is_file() for p in blobs[pid])
    for o in orders:
        if o["order_number"] != "5000":
            assert {f: o[f] for f in PERSONAL} == PERSONAL
    assert result.counts["retention_disputes"] == 1
    assert result.counts["retention_files"] == len(copies)
    page = (result.report.parent / "summary.txt").read_text()
    assert "Customer data cleared (disputes closed long enough)" in page


def _copies_of_dp_test_0(inbox: Path, files: dict[str, list[dict]]) -> set[Path]:
    """What clearing dp_test_0 deletes: the copies of its files no other dispute uses, its
    packet, and what was read from its own documents."""
    others = {f["sha256"] for pid, fs in files.items() if pid != "dp_test_0" for f in fs}
    own = [f for f in files["dp_test_0"] if f["sha256"] not in others]
    with StateStore(default_state(inbox)) as store:
        packets = {
            Path(v["packet_path"]) for v in store.generated.generated_versions()["dp_test_0"]
        }
    readings = {inbox / PRIVATE / "documents" / f"{f['sha256']}.json" for f in own}
    assert packets and any(p.is_file() for p in readings)
    return {Path(f["path"]) for f in own} | packets | {p for p in readings if p.is_file()}


def _private_files(inbox: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in (inbox / PRIVATE).rglob("*") if p.is_file()}


def before_order_date(orders: list[dict]) -> str:
    return next(o["order_date"] for o in orders if o["order_number"] == "5001")


def test_a_dry_run_removes_nothing_and_says_what_it_would(season):
    inbox, run = season
    before, stored = _state(inbox), _private_files(inbox)
    copies = _copies_of_dp_test_0(inbox, before[1])

    result = run(35, retention={"customer_data_days": 30}, dry=True)

    assert _state(inbox) == before
    assert _private_files(inbox) == stored  # packets and readings included
    assert result.counts["retention_disputes"] == 1
    assert result.counts["retention_files"] == len(copies)  # what a real run would delete
    text_ = _whitespace((result.report.parent / "summary.txt").read_text())
    assert "Customer data would be cleared (disputes closed long enough) 1: dp_test_0" in text_


def test_off_by_default_nothing_is_removed(season):
    inbox, run = season
    before = _state(inbox)
    result = run(400)
    after = _state(inbox)
    assert [r["payload"] for r in after[0].values()] == [r["payload"] for r in before[0].values()]
    assert after[2] == before[2]
    assert "retention_disputes" not in result.counts


def test_old_report_and_archive_folders_go_only_when_set(tmp_path):
    from dispute_evidence.engine.prepare.retention_clearing import RetentionPolicy, apply_retention

    now = datetime(2027, 6, 30, 2, tzinfo=UTC)
    reports, inbox = tmp_path / "reports", tmp_path / "inbox"
    old_run, new_run = reports / "20270501T020000Z-abc123", reports / "20270625T020000Z-def456"
    old_day, new_day = inbox / "archive" / "2027-05-01", inbox / "archive" / "2027-06-25"
    for folder in (old_run, new_run, reports / "latest", old_day, new_day):
        folder.mkdir(parents=True)
    with StateStore(tmp_path / "state.sqlite3") as store:
        kw = {"inbox": inbox, "reports": reports, "now": now}
        reports_only = RetentionPolicy(reports_days=30)
        dry = apply_retention(store.retention, store.scoped, reports_only, dry_run=True, **kw)
        assert dry.reports == [str(old_run)] and old_run.is_dir()  # said, not done
        done = apply_retention(store.retention, store.scoped, reports_only, dry_run=False, **kw)
        assert done.reports == [str(old_run)] and done.archive == []
        assert not old_run.exists() and new_run.is_dir() and (reports / "latest").is_dir()
        assert old_day.is_dir()  # the analysts' files stay unless archive_days is set
        apply_retention(
            store.retention, store.scoped, RetentionPolicy(archive_days=30), dry_run=False, **kw
        )
        assert not old_day.exists() and new_day.is_dir()


def test_an_old_order_dropped_again_does_not_bring_the_names_back(season):
    """Issue 32's retention gap: a re-export of a cleared dispute's order (its names in it) is
    read, rebuilt into the closed dispute's payload, and cleared again in the same run."""
    inbox, run = season
    run(35, retention={"customer_data_days": 30})
    write_rows(inbox / "orders-again.csv",
               ["order_number", "product_title", "price", "quantity", "currency_code",
                "order_date", *PERSONAL],
               [[5000, "Lamp", 40, 1, "USD", "2026-01-05", *CLEARED.values()]])  # fmt: skip

    result = run(36, retention={"customer_data_days": 30})

    after, _files, orders = _state(inbox)
    assert _personal_in(after["dp_test_0"]["payload"]) == set()
    assert orjson.loads(after["dp_test_0"]["payload"])["products"]  # the order is still there
    assert all(o[f] is None for o in orders if o["order_number"] == "5000" for f in PERSONAL)
    assert result.counts["retention_disputes"] == 1  # cleared again, and said
    assert _personal_in(after["dp_test_2"]["payload"])  # the open one keeps its data


def test_a_problem_quoting_a_cleared_customers_value_no_longer_does(season):
    """Issue 32's retention gap: a row problem about a cleared order quoted the cell (an
    email, an address) and stayed in every report; it keeps file, row and column only."""
    inbox, run = season
    bad = "ann@@example.com"
    with StateStore(default_state(inbox)) as store:
        store.runs.replace_problems("orders-bad.csv", [{
            "kind": "row_not_used", "where": f"orders-bad.csv row 2, column 'Email' = {bad!r}",
            "what": f"not an email address: {bad}", "file": "orders-bad.csv", "sheet": "",
            "row": 2, "column": "Email", "value": bad, "dispute": "", "order": "5000"}], "r")  # fmt: skip
        store.runs.replace_problems("orders-other.csv", [{
            "kind": "row_not_used", "where": "orders-other.csv row 2, column 'Email' = 'x@'",
            "what": "not an email address: x@", "file": "orders-other.csv", "sheet": "",
            "row": 2, "column": "Email", "value": "x@", "dispute": "", "order": "5002"}], "r")  # fmt: skip

    run(35, retention={"customer_data_days": 30})

    with StateStore(default_state(inbox)) as store:
        problems = {p["file"]: p for p in store.runs.open_problems()}
    cleared = problems["orders-bad.csv"]
    assert bad not in json_text(cleared) and cleared["value"] == ""
    assert (cleared["row"], cleared["column"]) == (2, "Email")
    assert problems["orders-other.csv"]["value"] == "x@"  # dp_test_2's order is open: kept


def json_text(problem: dict) -> str:
    return orjson.dumps(problem).decode()


def _whitespace(text_: str) -> str:
    return " ".join(text_.split())


def _found_in_state(inbox: Path, values: dict[str, str]) -> set[str]:
    """ "table.column: field" for each value found in any text or blob cell of any table."""
    found: set[str] = set()
    engine = create_engine(f"sqlite:///{default_state(inbox)}")
    try:
        tables = MetaData()
        tables.reflect(engine)  # every table sqlite_master lists
        with engine.connect() as c:
            for table in tables.sorted_tables:
                for row in c.execute(select(table)).mappings():
                    for column, cell in row.items():
                        if isinstance(cell, bytes):
                            cell = cell.decode("utf-8", "replace")
                        if isinstance(cell, str):
                            found |= {f"{table.name}.{column}: {k}"
                                      for k, v in values.items() if v in cell}  # fmt: skip
    finally:
        engine.dispose()
    return found


def _found_in_files(inbox: Path, values: dict[str, str]) -> set[str]:
    """ "file: field" for each value found in a file under .dispute-evidence/ (a PDF's text as
    pypdf extracts it, whitespace collapsed, and its raw bytes; any other file raw)."""
    found: set[str] = set()
    for path in sorted((inbox / PRIVATE).rglob("*")):
        if not path.is_file():
            continue
        body = path.read_bytes()
        texts = [body.decode("utf-8", "replace")]
        if body.startswith(b"%PDF"):
            try:
                pages = PdfReader(io.BytesIO(body)).pages
                texts.append(_whitespace(" ".join(p.extract_text() or "" for p in pages)))
            except PdfReadError:  # the test's junk receipts: raw bytes only
                pass
        rel = path.relative_to(inbox)
        found |= {f"{rel}: {k}" for k, v in values.items() if any(v in t for t in texts)}
    return found


def test_nothing_of_a_cleared_customer_is_left_in_the_state_or_the_stored_copies(season):
    """Issue 32's retention audit: after clearing, the generated PDFs' `material`, the packet
    PDFs and the kept readings of the dispute's documents still held the customer's name,
    email and addresses. Now no table and no file under .dispute-evidence/ holds any of them;
    the open dispute keeps its own, and a document it shares with the cleared one stays."""
    inbox, run = season
    assert set(CLEARED) <= {f.split(": ")[1] for f in _found_in_state(inbox, CLEARED)}
    pdfs = {f for f in _found_in_files(inbox, CLEARED) if f.endswith("customer_name")}
    assert len(pdfs) >= 3  # the search sees them: summary, packet, the delivery proof's copy
    with StateStore(default_state(inbox)) as store:
        shared = {f["sha256"] for f in store.generated.files_by_dispute()["dp_test_2"]
                  if f["file_name"].endswith("terms.pdf")}  # fmt: skip
    readings = inbox / PRIVATE / "documents"
    assert {f"{sha}.json" for sha in shared} <= {p.name for p in readings.iterdir()}

    result = run(35, retention={"customer_data_days": 30})

    assert _found_in_state(inbox, CLEARED) == set()
    assert _found_in_files(inbox, CLEARED) == set()
    kept = {f.split(": ")[1] for f in _found_in_state(inbox, PERSONAL)}
    assert kept == set(PERSONAL)  # the open dispute (and the one closed 15 days ago) keep theirs
    assert any(f.endswith("customer_name") for f in _found_in_files(inbox, PERSONAL))
    assert {f"{sha}.json" for sha in shared} <= {p.name for p in readings.iterdir()}
    with StateStore(default_state(inbox)) as store:
        shared_blobs = [Path(f["path"]) for f in store.generated.files_by_dispute()["dp_test_2"]
                        if f["sha256"] in shared]  # fmt: skip
    assert shared_blobs and all(p.is_file() for p in shared_blobs)
    line = next(x for x in (result.report.parent / "summary.txt").read_text().splitlines()
                if "Customer data cleared" in x)  # fmt: skip
    assert line.split()[-2:] == ["1:", "dp_test_0"]  # says which dispute

    # its generated PDF's cleared `material` states the cleared facts: no material change
    with StateStore(default_state(inbox)) as store:
        payload = orjson.loads(store.disputes.payloads()["dp_test_0"])
        docs = [f for f in store.generated.files_by_dispute()["dp_test_0"]
                if f["kind"] not in GENERATED_KINDS and f["status"] != "rejected"]  # fmt: skip
        versions = store.generated.generated_versions()["dp_test_0"]
    sent = [v for v in versions if v["status"] in SENT]
    now = orjson.dumps(material_facts(payload, docs)).decode()
    assert sent and stated_hash(sent[-1]["material"]) == stated_hash(now)
    # and a later run, its order exported again, makes no new version and uploads nothing
    write_rows(inbox / "orders-again.csv",
               ["order_number", "product_title", "price", "quantity", "currency_code",
                "order_date", *CLEARED],
               [[5000, "Lamp", 40, 1, "USD", "2026-01-05", *CLEARED.values()]])  # fmt: skip
    again = run(36, retention={"customer_data_days": 30})
    with StateStore(default_state(inbox)) as store:
        assert store.generated.generated_versions()["dp_test_0"] == versions
    assert again.counts.get("files_uploaded", 0) == 0
    assert _found_in_state(inbox, CLEARED) == _found_in_files(inbox, CLEARED) == set()


def test_the_report_names_at_most_ten_cleared_disputes():
    from dispute_evidence.reports.run_report import RunReport

    counts = {"retention_disputes": 12, "retention_files": 3, "retention_reports": 0,
              "retention_archive": 0}  # fmt: skip
    cleared = [f"dp_{i:02d}" for i in range(12)]
    rows = dict(RunReport("r", "", False, counts, pd.DataFrame(), cleared=cleared).count_rows())
    named = rows["Customer data cleared (disputes closed long enough)"]
    assert named == "12: " + ", ".join(cleared[:10]) + ", and 2 more"
