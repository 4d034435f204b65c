"""Issue 44 finding 11, one page: the letters docs/letters/ shows for a credit before the
dispute, a retraction, a subscription of six renewals and a Visa AVS-invalid fraud case ran
onto a second page. Through the real CLI (`run --sandbox`, the inbox's own local API) on
make_letters.py's own inbox, cut to these four disputes: page 1 of each uploaded letter holds
the whole letter, from the header through the request and the signature; what does not fit
(the timeline) goes on top of the next page, whole, and page 1 says so."""

from __future__ import annotations

import importlib.util
import io
import sqlite3
from pathlib import Path

from pypdf import PdfReader

from tests.support.cli_helpers import run_cli
from tests.support.engine_helpers import write_rows

MAKE_LETTERS = Path(__file__).parents[3] / "docs" / "letters" / "make_letters.py"
CASES = {
    "dp_1060": "credit_before_dispute",
    "dp_1061": "retraction",
    "dp_1064": "subscription_6_renewals",
    "dp_1066": "visa_avs_invalid",
}
REQUEST = "For these reasons we ask that the dispute be reversed"


def _make_letters():
    spec = importlib.util.spec_from_file_location("make_letters", MAKE_LETTERS)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages(inbox: Path, pid: str) -> list[str]:
    """Each page of the summary PDF the inbox's local API holds for `pid`, as its text."""
    with sqlite3.connect(inbox / ".dispute-evidence" / "sandbox.sqlite3") as db:
        rows = db.execute(
            "SELECT f.file_name, f.content FROM files f JOIN disputes d "
            "ON d.id = f.dispute_id WHERE d.provider_dispute_id = ? AND "
            "f.file_name LIKE '%summary%'",
            (pid,),
        ).fetchall()
    assert rows, pid
    reader = PdfReader(io.BytesIO(bytes(sorted(rows)[-1][1])))
    return [" ".join((p.extract_text() or "").split()) for p in reader.pages]


def run_letters_inbox(
    inbox: Path, monkeypatch, kept: list[list[object]], files: dict[str, str] | None = None
) -> None:
    """make_letters.py's own inbox, its disputes list cut to `kept` (and `files` added: {name:
    text}), run through the real CLI (`run --sandbox`, the inbox's own local API) as Acme
    Outfitters."""
    _make_letters().make_inbox(inbox)
    for name, text in (files or {}).items():
        (inbox / name).write_text(text, encoding="utf-8")
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason", "amount", "currency", "dispute_date"],
        kept,
    )
    for key in ("DISPUTE_API_BASE_URL", "DISPUTE_API_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    for key, value in (
        ("MERCHANT_ID", "acct_1Acme"),
        ("MERCHANT_NAME", "Acme Outfitters"),
        ("MERCHANT_WEBSITE", "https://acme-outfitters.example"),
        ("MERCHANT_CONTACT", "disputes@acme-outfitters.example"),
        ("COUNTRY", "US"),
    ):
        monkeypatch.setenv(f"DISPUTE_EVIDENCE_MERCHANT__{key}", value)
    run_cli("--inbox", str(inbox), "--sandbox")


def test_the_four_long_letters_fit_their_first_page(tmp_path, monkeypatch):
    ml = _make_letters()
    inbox = tmp_path / "inbox"
    kept: list[list[object]] = [
        [f"dp_{o}", f"#{o}", reason, "129.00", "USD", opened]
        for o, (name, reason, _, opened) in ml.NEW.items()
        if name in CASES.values()
    ]
    run_letters_inbox(inbox, monkeypatch, kept)
    for pid, name in CASES.items():
        pages = _pages(inbox, pid)
        first = pages[0]
        assert first.startswith(f"Response to dispute {pid}"), (name, first)
        assert REQUEST in first, (name, pages[:2])
        # the signature closes page 1: nothing of the letter runs on past it
        assert first.endswith("Acme Outfitters"), (name, first[-300:])
        assert first.index(REQUEST) < first.rindex("Acme Outfitters"), name
        second = pages[1].split("Evidence summary: dispute", 1)[0]
        assert REQUEST not in second and "Acme Outfitters" not in second, (name, second)
        if second:  # what was moved is the timeline, whole, and page 1 says where it is
            assert second.startswith("Timeline"), (name, second)
            assert "Dispute opened." in second, (name, second)
            assert "The timeline and the data sheet on the next page" in first, name
