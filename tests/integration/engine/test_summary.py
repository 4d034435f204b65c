"""The evidence summary PDF through the engine, against the sandbox over loopback: one per
dispute, uploaded once, what it says (text read back), the same bytes for the same payload,
and a new version only when something a reviewer reads changed."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from pypdf import PdfReader
from sqlalchemy import text

from dispute_evidence.evidence.summary_pdf import summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import engine_pass, make_inbox, write_rows


def _run(store: StateStore, base_url: str, inbox: Path):
    prepared, _, requests = engine_pass(store, base_url, inbox, summary_pdf=True)
    return prepared, requests


def _summaries(snap, pid):
    return [f for f in snap[pid]["files"] if "-evidence-summary" in f["file_name"]]


def test_one_summary_per_dispute_uploaded_once_then_a_new_version_only_on_change(
    sandbox_factory, tmp_path
):
    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    with StateStore(tmp_path / "state.sqlite3") as store:
        prepared, _ = _run(store, sb.base_url, inbox)
        assert prepared.summaries_added == 3
        snap = sb.snapshot()
        for pid in ("dp_test_0", "dp_test_1", "dp_test_2"):
            (summary,) = _summaries(snap, pid)
            assert summary["file_name"] == f"{pid}-evidence-summary.pdf"
        # what a reviewer reads: the order, products, customer and the attached files
        files = store.reports.file_table()
        path = files.loc[files["file_name"] == "dp_test_1-evidence-summary.pdf", "path"].iloc[0]
        body = Path(path).read_bytes()
        assert hashlib.sha256(body).hexdigest() == _summaries(snap, "dp_test_1")[0]["sha256"]
        reader = PdfReader(io.BytesIO(body))
        text = " ".join(page.extract_text() for page in reader.pages)
        # the letter and at most 2 pages of data; the letter's sources (file and row) are the
        # merchant's, never on the reviewer's pages: at the end of the review packet (issue 36)
        assert len(reader.pages) <= 3
        assert "Response to dispute dp_test_1" in reader.pages[0].extract_text()
        assert ".csv" not in text and "row 3" not in text
        (version,) = store.generated.generated_versions()["dp_test_1"]
        packet = PdfReader(version["packet_path"])
        sources = packet.pages[-1].extract_text()
        assert "disputes.csv, row 3" in sources and "orders.csv, row 4" in sources, sources
        for expected in ("Evidence summary: dispute dp_test_1", "Acme", "Order 5001",
                         "Item 0", "Item 1", "Customer 1", "c1@example.com",
                         "dp_test_1_proof0.pdf"):  # fmt: skip
            assert expected in text, expected

        # a rerun with nothing new makes no PDF and uploads nothing (the run's first request,
        # a one-dispute page, is all it spends)
        prepared, requests = _run(store, sb.base_url, inbox)
        assert prepared.summaries_added == 0 and requests == 1
        assert all(len(_summaries(sb.snapshot(), p)) == 1 for p in ("dp_test_0", "dp_test_2"))

        # a tracking number arrives for dispute 1 only: its evidence and its summary change
        write_rows(inbox / "late_shipments.csv", ["order_number", "tracking_number", "carrier"],
                   [[5001, "1ZNEW0001", "UPS"]])  # fmt: skip
        prepared, _ = _run(store, sb.base_url, inbox)
        assert prepared.summaries_added == 1
        snap = sb.snapshot()
        names = [f["file_name"] for f in _summaries(snap, "dp_test_1")]
        assert names == ["dp_test_1-evidence-summary.pdf", "dp_test_1-evidence-summary-v2.pdf"]
        assert [len(_summaries(snap, p)) for p in ("dp_test_0", "dp_test_2")] == [1, 1]


def test_the_same_payload_gives_the_same_bytes():
    payload = {
        "products": [{"product_title": "Mug", "price": 2.5, "quantity": 2, "currency_code": "EUR"}],
        "additional_evidence": {"order_number": "77", "customer_name": "Zoë Ångström",
                                "shipments": [{"carrier": "DHL", "tracking_number": "JJD1"}]},
    }  # fmt: skip
    first = summary_pdf("dp_x", wire_facts(payload), ["77 receipt.pdf"])
    assert first == summary_pdf("dp_x", wire_facts(payload), ["77 receipt.pdf"])
    assert first != summary_pdf("dp_x", wire_facts(payload), ["77 receipt.pdf", "77 label.pdf"])
    assert "Zoë Ångström" in PdfReader(io.BytesIO(first)).pages[0].extract_text()


def test_uploading_files_does_not_make_a_new_summary_version(sandbox_factory, tmp_path):
    """The summary lists a dispute's files as a set: their upload order (which moves their
    rows' timestamps) must not make a second version when another dispute changes."""
    sb = sandbox_factory(rows=seed_rows(4))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 4, files=(3, 3), seed=9)
    with StateStore(tmp_path / "state.sqlite3") as store:
        _run(store, sb.base_url, inbox)
        # dispute 0's files come back in another order (as uploads, or PostgreSQL's order of
        # equal timestamps, can make them)
        with store.engine.begin() as c:
            for name, stamp in (("proof0", "2999-01-01"), ("proof2", "0001-01-01")):
                c.execute(text(f"UPDATE evidence_files SET updated_at = '{stamp}T00:00:00Z'"
                               f" WHERE file_name = 'dp_test_0_{name}.pdf'"))  # fmt: skip
        write_rows(inbox / "late_shipments.csv", ["order_number", "tracking_number", "carrier"],
                   [[5001, "1ZNEW0001", "UPS"]])  # fmt: skip
        prepared, _ = _run(store, sb.base_url, inbox)
        assert prepared.summaries_added == 1  # dispute 1's, nothing else
        snap = sb.snapshot()
        assert [len(_summaries(snap, f"dp_test_{i}")) for i in range(4)] == [1, 2, 1, 1]
