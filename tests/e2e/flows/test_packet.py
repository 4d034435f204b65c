"""The packet and generated PDFs sent once (issue 28), and one dispute's PDF never stopping the
run (issue 30): the real CLI against the sandbox over loopback."""

from __future__ import annotations

import hashlib
import io
import re
import sqlite3

import pandas as pd
import pytest
from PIL import Image
from pypdf import PdfReader
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.evidence.limits import PacketPolicy
from dispute_evidence.sandbox.app import STATS_KEY
from dispute_evidence.state.store import StateStore
from support.docfixtures import heavy_pdf, pdf_of, text_pdf
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, options, write_rows

SHIPMENTS = ["order_number", "tracking_number", "carrier", "delivered_at", "delivery_status"]


def _run(*args: str, code: int = 0) -> str:
    """The CLI's output; `code`: its exit code (5: done, and something needs a person)."""
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    assert r.exit_code == code, r.output
    return r.output


@pytest.fixture
def api(sandbox_factory, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(3))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")
    return sb


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (640, 480), (200, 220, 255)).save(out, "PNG")
    return out.getvalue()


def inbox_with_documents(tmp_path, n: int = 3):
    """n disputes, each with a 2-page receipt, a 1-page delivery proof and a photo."""
    inbox = tmp_path / "inbox"
    make_inbox(inbox, n, files=(0, 0))
    for i in range(n):
        (inbox / "proofs" / f"dp_test_{i}_receipt.pdf").write_bytes(pdf_of(2, f"RECEIPT {i}"))
        (inbox / "proofs" / f"dp_test_{i}_delivery.pdf").write_bytes(pdf_of(1, f"DELIVERY {i}"))
        (inbox / "proofs" / f"dp_test_{i}_parcel.png").write_bytes(png())
    return inbox


def _files(sb, pid: str) -> list[dict]:
    return sb.snapshot()[pid]["files"]


def _blob(tmp_path, pid: str, name: str) -> bytes:
    with StateStore(tmp_path / "inbox.state.sqlite3") as store:
        files = store.reports.file_table()
    row = files.loc[(files["provider_dispute_id"] == pid) & (files["file_name"] == name)]
    return open(row["path"].iloc[0], "rb").read()


def _latest(tmp_path) -> pd.DataFrame:
    folder = tmp_path / "inbox.reports" / "latest"
    return pd.read_csv(folder / "disputes.csv", dtype=str).fillna("").set_index("Dispute")


def test_packet_mode_sends_one_file_per_dispute_with_the_letter_and_every_document(
    api, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox_with_documents(tmp_path)
    _run("--inbox", str(tmp_path / "inbox"))
    for i in range(3):
        pid = f"dp_test_{i}"
        (sent,) = _files(api, pid)  # one file: the packet
        assert sent["file_name"] == f"{pid}-evidence-packet.pdf"
        body = _blob(tmp_path, pid, sent["file_name"])
        assert (hashlib.sha256(body).hexdigest(), len(body)) == (sent["sha256"], sent["size"])
        reader = PdfReader(io.BytesIO(body))
        pages = [p.extract_text() for p in reader.pages]
        # the letter and data sheet, then the documents in the order listed (by name)
        front = next(k for k, t in enumerate(pages) if t.startswith(f"DELIVERY {i} page 1"))
        assert "Response to dispute " + pid in pages[0] and front >= 2
        assert pages[front + 1].startswith(f"{pid}_parcel.png")  # the photo, on its page
        assert pages[front + 2].startswith(f"RECEIPT {i} page 1")
        assert len(reader.pages) == front + 1 + 1 + 2  # no sources page: it names our files
        text = "\n".join(pages)
        for label in (f"DELIVERY {i} page 1", f"RECEIPT {i} page 1", f"RECEIPT {i} page 2"):
            assert label in text
        # the exhibits' list gives each first page, and each page says what it is
        assert f"Exhibit B: photo (page {front + 2})" in text
        assert f"Exhibit B — photo — page {front + 2} of {front + 4}" in text
        # no export file name, no CSV row and no account id on any uploaded page: the sources
        # are the merchant's, never the reviewer's (issue 36; issue 44, item 11)
        assert not any(".csv" in t or ", row " in t or "m_1" in t for t in pages), pages
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Generated PDF at the API"] == "v1 at the API (current)"
    # a rerun sends nothing: no new packet
    before = api.snapshot()
    _run("--inbox", str(tmp_path / "inbox"))
    assert api.snapshot() == before


POD = ["UPS Proof of Delivery", "Tracking number: 1Z000000", "Delivered on 2026-10-06 at 16:40",
       "Signed by: A. Smith"]  # fmt: skip


def test_the_letter_cites_each_document_by_its_exhibit_label_stamped_on_its_pages(
    api, tmp_path, monkeypatch
):
    """The letter cites each document by its exhibit label, "(Exhibit A)", never its file name
    or "packet page 4" (issue 36: a portal shows page images, not a viewer's page index); the
    exhibits are labelled in the order the letter first names them, and every page of each is
    stamped "Exhibit A — proof of delivery — page 3 of 8"; the list of attachments is not a
    bullet under 'Why the payment stands' (it argues nothing)."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = inbox_with_documents(tmp_path, n=1)
    text_pdf(inbox / "proofs" / "dp_test_0_pod.pdf", [POD])  # read, and quoted by the letter
    _run("--inbox", str(inbox))
    (sent,) = _files(api, "dp_test_0")
    reader = PdfReader(io.BytesIO(_blob(tmp_path, "dp_test_0", sent["file_name"])))
    pages = [" ".join((p.extract_text() or "").split()) for p in reader.pages]
    letter = pages[0]
    opens = {"proof of delivery": "UPS Proof of Delivery", "other document": "DELIVERY 0 page 1",
             "photo": "dp_test_0_parcel.png", "receipt or invoice": "RECEIPT 0 page 1"}  # fmt: skip
    at = {}
    for label, (words, first_words) in zip("ABCD", opens.items(), strict=True):
        said = "document, quoted above" if words == "other document" else words
        cited = re.search(rf"Exhibit {label}: {said}[^()]*\(page (\d+)\)", letter)
        assert cited, (label, words, letter)
        at[label] = int(cited[1])
        assert pages[at[label] - 1].startswith(first_words), (label, cited[1])
        stamp = f"Exhibit {label} — {words} — page {at[label]} of {len(pages)}"
        assert stamp in pages[at[label] - 1], (stamp, pages[at[label] - 1])
    assert sorted(at.values()) == list(at.values())  # A, B, C, D: the packet's order
    # the quoted proof first: the letter's order, not the names'
    assert "The proof of delivery (Exhibit A) records the delivery" in letter
    assert "• Attached as supporting documents" not in letter
    assert (  # a document of no known kind is quoted, not listed as "(other document)"
        "Attached as supporting documents: Exhibit C (photo) and Exhibit D (receipt or "
        "invoice). Exhibit B reads: “DELIVERY 0 page 1”."
    ) in letter
    assert "(other document)" not in letter
    assert "dp_test_0_" not in letter and "packet page" not in letter  # no file names, no index


def test_in_files_mode_the_letter_cites_labels_and_maps_each_to_the_file_sent(api, tmp_path):
    """`files` mode (no packet): the documents go to the API as they were dropped, so the
    letter's page maps each exhibit label to the file it is, and cites by label all the same;
    the files are not stamped (they go as they are)."""
    inbox = inbox_with_documents(tmp_path, n=1)
    dropped = text_pdf(inbox / "proofs" / "dp_test_0_pod.pdf", [POD]).read_bytes()
    _run("--inbox", str(inbox))
    sent = {f["file_name"] for f in _files(api, "dp_test_0")}
    assert {"dp_test_0_pod.pdf", "dp_test_0-evidence-summary.pdf"} <= sent
    summary = _blob(tmp_path, "dp_test_0", "dp_test_0-evidence-summary.pdf")
    letter = " ".join((PdfReader(io.BytesIO(summary)).pages[0].extract_text() or "").split())
    assert "The proof of delivery (Exhibit A) records the delivery" in letter
    assert (  # a document of no known kind is quoted, not listed as "(other document)"
        "Attached as supporting documents: Exhibit C (photo) and Exhibit D (receipt or "
        "invoice). Exhibit B reads: “DELIVERY 0 page 1”."
    ) in letter
    assert "(other document)" not in letter
    listed = letter.split("Exhibits (each sent as a file of its own)", 1)[1]
    for line in ("Exhibit A: dp_test_0_pod.pdf (proof of delivery: ",
                 "Exhibit B: dp_test_0_delivery.pdf (document, quoted above)",
                 "Exhibit C: dp_test_0_parcel.png (photo)",
                 "Exhibit D: dp_test_0_receipt.pdf (receipt or invoice)"):  # fmt: skip
        assert line.removesuffix(")") in listed, (line, listed)
        assert line.split(": ")[1].split(" (")[0] in sent  # the file it names went
    assert "packet page" not in letter
    assert _blob(tmp_path, "dp_test_0", "dp_test_0_pod.pdf") == dropped  # as dropped


def test_a_document_after_the_superseding_packet_goes_once_as_its_own_file(
    api, tmp_path, monkeypatch
):
    """Packet mode: a document dropped after the dispute's one superseding packet (v2) went was
    marked in_packet, but no packet may follow v2, so it never left; now it goes to the API as
    a file of its own, once, with a line saying so (nothing for a person to do)."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = inbox_with_documents(tmp_path, n=1)
    _run("--inbox", str(inbox))
    (inbox / "proofs" / "dp_test_0_invoice.pdf").write_bytes(pdf_of(1, "INVOICE"))
    _run("--inbox", str(inbox))  # a new document: the one superseding packet, v2
    late = pdf_of(1, "LATE LETTER")
    (inbox / "proofs" / "dp_test_0_late.pdf").write_bytes(late)
    out = _run("--inbox", str(inbox))
    held = _files(api, "dp_test_0")
    assert [f["file_name"] for f in held] == [
        "dp_test_0-evidence-packet.pdf",
        "dp_test_0-evidence-packet-v2.pdf",
        "dp_test_0_late.pdf",
    ]
    assert held[2]["sha256"] == hashlib.sha256(late).hexdigest()  # as dropped, byte for byte
    assert "dp_test_0_late.pdf arrived after this dispute's packet was superseded once" in out
    assert "Documents sent on their own" in out
    with StateStore(tmp_path / "inbox.state.sqlite3") as store:
        files = store.reports.file_table().set_index("file_name")
    assert files.loc["dp_test_0_late.pdf", "status"] == "uploaded"
    assert files.loc["dp_test_0_invoice.pdf", "status"] == "in_packet"  # v2 carries it
    # a run killed right after its request left: reconciled by name, not sent again
    with sqlite3.connect(tmp_path / "inbox.state.sqlite3") as c:
        c.execute("UPDATE evidence_files SET status = 'sending', remote_file_id = NULL "
                  "WHERE file_name = 'dp_test_0_late.pdf'")  # fmt: skip
    _run("--inbox", str(inbox))
    _run("--inbox", str(inbox))
    assert api.snapshot()["dp_test_0"]["files"] == held
    with StateStore(tmp_path / "inbox.state.sqlite3") as store:
        files = store.reports.file_table().set_index("file_name")
    late_row = files.loc["dp_test_0_late.pdf"]
    assert late_row["status"] == "uploaded" and late_row["remote_file_id"], late_row.to_dict()


def test_packet_mode_asks_at_most_two_requests_per_dispute_on_its_first_send(
    api, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox_with_documents(tmp_path)
    out = _run("--inbox", str(tmp_path / "inbox"))
    assert "3 file(s) uploaded" in out, out
    snap = api.snapshot()
    assert [snap[f"dp_test_{i}"]["evidence_updates"] for i in range(3)] == [1, 1, 1]
    asked = api.app[STATS_KEY]["by_route"]  # beside the run's own listings (the key's proof)
    a_dispute = {route: n for route, n in asked.items() if route != "GET /v1/disputes"}
    assert a_dispute == {"POST /v1/files/upload": 3, "POST /v1/disputes/update-evidence": 3}, asked


def _edit(inbox, n_docs: int, delivered: str, amount: str, name: str, monkeypatch) -> None:
    """The inbox edited: delivery date, amount, `n_docs` extra documents; and the merchant's
    `name` (cosmetic: it goes in the evidence JSON, never in a new PDF)."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME", name)
    write_rows(inbox / "shipments.csv", SHIPMENTS,
               [[5000 + i, f"1Z{i:06d}", "UPS", delivered, "Delivered"] for i in range(3)])  # fmt: skip
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount", "currency"],
               [[f"dp_test_{i}", f"#{5000 + i}", "general", amount, "USD"] for i in range(3)])  # fmt: skip
    for k in range(n_docs):
        (inbox / "proofs" / f"dp_test_0_extra{k}.pdf").write_bytes(pdf_of(1, f"EXTRA {k}"))


@pytest.mark.slow
def test_a_dispute_edited_four_times_holds_at_most_one_superseding_pdf(api, tmp_path, monkeypatch):
    inbox = inbox_with_documents(tmp_path)
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME", "Acme Ltd")
    _run("--inbox", str(inbox))
    edits = [  # each material (a new document, a delivery date, the amount, another document),
        # the merchant's name changed with the first and the third (cosmetic)
        (1, "2026-10-01", "", "Acme GmbH"),
        (1, "2026-10-02", "", "Acme GmbH"),
        (1, "2026-10-02", "19.50", "Acme AG"),
        (2, "2026-10-02", "19.50", "Acme AG"),
    ]
    for n_docs, delivered, amount, name in edits:
        _edit(inbox, n_docs, delivered, amount, name, monkeypatch)
        _run("--inbox", str(inbox))
    summaries = [
        f["file_name"] for f in _files(api, "dp_test_0") if "-evidence-summary" in f["file_name"]
    ]
    assert summaries == ["dp_test_0-evidence-summary.pdf", "dp_test_0-evidence-summary-v2.pdf"]
    for f in _files(api, "dp_test_0"):  # what the API holds is what we registered, byte for byte
        body = _blob(tmp_path, "dp_test_0", f["file_name"])
        assert hashlib.sha256(body).hexdigest() == f["sha256"], f["file_name"]
    # the evidence JSON went at every edit of the data (a document alone does not change it)
    snap = api.snapshot()["dp_test_0"]
    assert snap["evidence_updates"] == 4
    assert snap["evidence"]["merchant_profile"]["merchant_name"] == "Acme AG"  # the name went
    first = PdfReader(io.BytesIO(_blob(tmp_path, "dp_test_0", summaries[1]))).pages[0]
    words = " ".join(first.extract_text().split())
    assert "This version replaces dp_test_0-evidence-summary.pdf" in words
    assert "new document: dp_test_0_extra0.pdf" in words
    assert "merchant" not in words.split("read it in place of the earlier one")[0]  # cosmetic
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Generated PDF at the API"].startswith("v2 at the API (not current")


def test_a_cosmetic_profile_change_uploads_nothing_new(api, tmp_path, monkeypatch):
    inbox = inbox_with_documents(tmp_path)
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME", "Acme Ltd")
    _run("--inbox", str(inbox))
    before = {pid: len(v["files"]) for pid, v in api.snapshot().items()}
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME", "Acme GmbH")
    _run("--inbox", str(inbox))
    snap = api.snapshot()
    assert {pid: len(v["files"]) for pid, v in snap.items()} == before  # no new PDF
    assert snap["dp_test_0"]["evidence"]["merchant_profile"]["merchant_name"] == "Acme GmbH"
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Generated PDF at the API"].startswith("v1 at the API (current facts; a cosmetic")


def test_a_packet_over_its_page_limit_is_held_with_one_line_and_nothing_goes(
    api, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES", '{"default": {"max_pages": 8}}')
    inbox = inbox_with_documents(tmp_path)
    (inbox / "proofs" / "dp_test_1_terms.pdf").write_bytes(pdf_of(6, "TERMS"))
    out = _run("--inbox", str(inbox), code=5)  # held: a person must act
    snap = api.snapshot()
    assert snap["dp_test_1"]["files"] == [] and snap["dp_test_1"]["evidence_updates"] == 0
    assert len(snap["dp_test_0"]["files"]) == 1  # the others went on
    row = _latest(tmp_path).loc["dp_test_1"]
    line = row["Next step"] + " " + row.get("Detail", "")
    assert "held: over the default limit: " in line and "pages against at most 8" in line, line
    assert "largest: " in line and "dp_test_1_terms.pdf (6 p." in line, line
    assert "over the card network's limits" in out
    # raised limit: it fits, and goes
    monkeypatch.setenv(
        "DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES", '{"default": {"max_pages": 30}}'
    )
    _run("--inbox", str(inbox))
    assert len(api.snapshot()["dp_test_1"]["files"]) == 1


STRIPE = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
          "Status", "Card Brand", "Card Last4", "orderId (metadata)"]  # fmt: skip


def test_the_limit_profile_follows_the_paid_charge_not_a_declined_first_attempt(
    api, tmp_path, monkeypatch
):
    """Issue 39, item 11: an order whose first charge is a declined Visa attempt and whose
    paid charge is a Mastercard: the Mastercard profile (19 pages) holds a 25-page document;
    the Visa one (49 pages) let it go out."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    (inbox / "proofs" / "dp_test_0_statement.pdf").write_bytes(pdf_of(25, "STATEMENT"))
    write_rows(inbox / "payments.csv", STRIPE, [
        ["ch_declined", "2026-10-01 10:00:00", "30.50", "0", "usd", "false", "Failed", "Visa",
         "4242", "5000"],
        ["ch_paid", "2026-10-01 10:02:00", "30.50", "0", "usd", "true", "Paid", "MasterCard",
         "4444", "5000"],
    ])  # fmt: skip
    _run("--inbox", str(inbox), code=5)  # held: a person must act
    snap = api.snapshot()
    assert snap["dp_test_0"]["files"] == [] and snap["dp_test_0"]["evidence_updates"] == 0
    assert len(snap["dp_test_1"]["files"]) == 1  # the other went on
    line = _latest(tmp_path).loc["dp_test_0"]["Next step"]
    assert "held: over the mastercard limit: " in line and "against at most 19" in line, line


def test_a_packet_over_the_apis_10_mb_is_held_before_anything_goes_naming_the_documents(
    api, tmp_path, monkeypatch
):
    """Issue 39, item 11: Mastercard takes 14.5 MB, the API 10 MB a file. An 11 MB packet
    passed the profile, its evidence went, then the packet was refused locally with a line
    naming the stored copy by its hash. It is held when it is built, nothing of the dispute
    sent, the line naming the analyst's documents and which to drop."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__LIMITS", "mastercard")
    inbox = inbox_with_documents(tmp_path, 2)
    (inbox / "proofs" / "dp_test_0_bank statement.pdf").write_bytes(heavy_pdf("BANK", 6_000_000))
    (inbox / "proofs" / "dp_test_0_chat log.pdf").write_bytes(heavy_pdf("CHAT", 5_000_000))
    out = _run("--inbox", str(inbox), code=5)  # held: a person must act
    snap = api.snapshot()
    assert snap["dp_test_0"]["files"] == [] and snap["dp_test_0"]["evidence_updates"] == 0
    assert len(snap["dp_test_1"]["files"]) == 1  # the other went on
    line = _latest(tmp_path).loc["dp_test_0"]["Next step"]
    assert "held: over the API's limit: " in line and "10.0 MB" in line, line
    assert "dp_test_0_bank statement.pdf (1 p., 6.0 MB)" in line, line
    assert "without dp_test_0_bank statement.pdf it would fit" in line, line
    problems = (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()
    for text in (out, line, problems):
        assert not re.search(r"[0-9a-f]{40}", text), text  # no stored copy's hash name


def test_a_run_killed_while_a_packet_is_sending_sends_it_once(api, tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = inbox_with_documents(tmp_path)
    _run("--inbox", str(inbox))
    state = tmp_path / "inbox.state.sqlite3"
    # what a kill right after the request left the machine leaves: marked sending, no answer
    with sqlite3.connect(state) as c:
        c.execute("UPDATE evidence_files SET status = 'sending', remote_file_id = NULL "
                  "WHERE kind = 'packet'")  # fmt: skip
    _run("--inbox", str(inbox))
    for i in range(3):
        assert len(_files(api, f"dp_test_{i}")) == 1  # reconciled by name, not sent again
    with StateStore(state) as store:
        assert set(store.reports.file_table().query("status != 'in_packet'")["status"]) == {
            "uploaded"
        }
    # and one killed before its request left (a new version, marked sending): sent once
    (inbox / "proofs" / "dp_test_2_invoice.pdf").write_bytes(pdf_of(1, "INVOICE"))
    with StateStore(state) as store:
        opts = options(inbox, packet=PacketPolicy("packet"), summary_pdf=True)
        run_id = store.runs.start_run("test")
        prepare_step(store, opts, ingest_inbox_step(store, opts, run_id), run_id, rebuild=True)
        store.runs.finish_run(run_id, "ok", {})
    with sqlite3.connect(state) as c:
        c.execute("UPDATE evidence_files SET status = 'sending' WHERE status = 'pending'")
    _run("--inbox", str(inbox))
    assert [f["file_name"] for f in _files(api, "dp_test_2")] == [
        "dp_test_2-evidence-packet.pdf",
        "dp_test_2-evidence-packet-v2.pdf",
    ]


def test_a_long_carrier_name_and_a_failing_pdf_never_stop_the_run(api, tmp_path, monkeypatch):
    inbox = inbox_with_documents(tmp_path)
    write_rows(inbox / "shipments.csv", SHIPMENTS,
               [[5000, "1Z0", "C" * 1200, "", "in transit " * 180],
                [5001, "1Z1", "UPS", "2026-10-01", "Delivered"],
                [5002, "1Z2", "UPS", "2026-10-01", "Delivered"]])  # fmt: skip
    import dispute_evidence.engine.prepare.pdf_build as generated

    real = generated.summary_pdf

    def broken_for_one(pid, *args, **kwargs):
        if pid == "dp_test_2":
            raise ValueError("a value no PDF library could lay out")
        return real(pid, *args, **kwargs)

    monkeypatch.setattr(generated, "summary_pdf", broken_for_one)
    out = _run("--inbox", str(inbox), code=5)  # the run went on; the failed PDF needs a look
    snap = api.snapshot()
    assert [snap[f"dp_test_{i}"]["evidence_updates"] for i in range(3)] == [1, 1, 1]
    assert "dp_test_0-evidence-summary.pdf" in [f["file_name"] for f in snap["dp_test_0"]["files"]]
    assert not [f for f in snap["dp_test_2"]["files"] if "-evidence-" in f["file_name"]]
    assert len(snap["dp_test_2"]["files"]) == 3  # its documents went on
    assert "Evidence PDFs that could not be made" in out
    problems = (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()
    assert "dp_test_2" in problems and "a value no PDF library could lay out" in problems


def test_the_packet_is_what_waiting_for_approval_shows_and_the_page_links(
    api, tmp_path, monkeypatch
):
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD", "all")
    inbox = inbox_with_documents(tmp_path)
    _run("--inbox", str(inbox), code=5)  # waiting for approval
    assert all(v["files"] == [] for v in api.snapshot().values())  # held: nothing went
    latest = tmp_path / "inbox.reports" / "latest"
    packet = latest / "waiting-for-approval" / "dp_test_1-packet.pdf"
    pages = [p.extract_text() for p in PdfReader(packet).pages]
    assert "Response to dispute dp_test_1" in pages[0]
    assert any(t.startswith("RECEIPT 1 page 2") for t in pages)
    page = (latest / "summary.html").read_text()
    assert 'href="pdf/dp_test_1-packet.pdf"' in page
    assert (latest / "pdf" / "dp_test_1-packet.pdf").read_bytes() == packet.read_bytes()


def test_an_oversized_photo_is_recompressed_and_the_packet_fits(api, tmp_path, monkeypatch):
    import random

    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = inbox_with_documents(tmp_path, 3)
    noise = random.Random(5).randbytes(2600 * 2000 * 3)
    big = io.BytesIO()
    Image.frombytes("RGB", (2600, 2000), noise).save(big, "JPEG", quality=95)
    assert len(big.getvalue()) > 4_500_000  # as dropped: over the default 4.5 MB
    (inbox / "proofs" / "dp_test_0_photo.jpg").write_bytes(big.getvalue())
    _run("--inbox", str(tmp_path / "inbox"))
    (sent,) = _files(api, "dp_test_0")
    assert sent["size"] <= 4_500_000  # recompressed, and it went
    reader = PdfReader(io.BytesIO(_blob(tmp_path, "dp_test_0", sent["file_name"])))
    assert any((p.extract_text() or "").startswith("dp_test_0_photo.jpg") for p in reader.pages)


def test_in_files_mode_what_would_go_is_checked_too(api, tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES", '{"default": {"max_files": 3}}')
    inbox = inbox_with_documents(tmp_path)  # 3 documents and the summary PDF: 4 files
    _run("--inbox", str(inbox), code=5)
    snap = api.snapshot()
    assert all(v["files"] == [] and v["evidence_updates"] == 0 for v in snap.values())
    line = _latest(tmp_path).loc["dp_test_0"]["Next step"]
    assert "held: over the default limit: 4 files against at most 3" in line, line


def _section(page: str, pid: str) -> str:
    """The page's section of one dispute, its tags dropped (what a person reads)."""
    start = page.index(f'id="d-{pid}"')
    words = re.sub(r"<[^>]+>", " ", page[start : page.index("back to the table", start)])
    return " ".join(words.split())


def test_the_page_names_the_uploaded_packet_once_beside_its_link(api, tmp_path, monkeypatch):
    """Issue 29: a dispute's section listed its generated PDF twice (the link, then again as a
    file). In packet mode the packet linked is the file uploaded: named once, with its status."""
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    inbox = inbox_with_documents(tmp_path, n=2)
    _run("--inbox", str(inbox))
    page = (tmp_path / "inbox.reports" / "latest" / "summary.html").read_text()
    for pid in ("dp_test_0", "dp_test_1"):
        section = _section(page, pid)
        listed = section.split(" Files ", 1)[1]  # the dispute's file list
        assert f"{pid}-evidence-packet.pdf" not in listed, section
        assert (
            f"What the reviewer sees (letter, data sheet, documents): {pid}-packet.pdf "
            f"(uploaded · {pid}-evidence-packet.pdf)" in section
        ), section
        for doc in ("receipt.pdf", "delivery.pdf", "parcel.png"):  # the documents inside it
            assert f"{pid}_{doc} (in_packet · matched by name)" in section, section


def test_a_summary_shown_for_want_of_a_packet_is_named_once(api, tmp_path, monkeypatch):
    """A state from before packets (no packet for a dispute): the section links the summary
    PDF, says it is the summary (not the packet), and does not list it again as a file."""
    inbox = inbox_with_documents(tmp_path, n=1)
    _run("--inbox", str(inbox))
    with sqlite3.connect(tmp_path / "inbox.state.sqlite3") as db:
        db.execute("UPDATE generated_docs SET packet_path = NULL")
    _run("--inbox", str(inbox))
    section = _section(
        (tmp_path / "inbox.reports" / "latest" / "summary.html").read_text(), "dp_test_0"
    )
    name = "dp_test_0-evidence-summary.pdf"
    assert name not in section.split(" Files ", 1)[1], section  # not listed again
    assert f"Evidence summary (letter and data sheet): {name} (uploaded · {name})" in section
    assert "What the reviewer sees" not in section and "dp_test_0_receipt.pdf (uploaded" in section
