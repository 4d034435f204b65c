"""Fuzz tests for reading documents (issue 30): any text length and script, and malformed PDFs,
never crash the reader, never cost more than its budget, and give facts of bounded size."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from support.docfixtures import text_pdf
from tests.support.examples import examples

READ = {"text", "ocr", "unreadable", "timeout", "encrypted", "no_ocr"}
BASE = DocumentFacts(name="x.pdf", sha256="0" * 64, kind="other", read="text")
SCRIPTS = st.sampled_from([
    "Order number: 5003 Delivered on March 5, 2026. Signed by: J. Smith",
    "Zamówienie nr 5003 dostarczone 05.03.2026, podpisał: Łukasz Żółć",
    "Заказ № 5003 доставлен 2026-03-05, подписал: Иван Петров",
    "Παραγγελία 5003 παραδόθηκε 05/03/2026 υπογραφή: Γιώργος",
    "订单号 5003 已于 2026-03-05 送达 签收人：王伟",
    "From: a@b.c\nDate: 2026-03-07\nRefund please, I changed my mind.",
    "Total: EUR 1,299.00 Grand total $ 12.5 order #12 tracking number 1Z12345678",
])  # fmt: skip
TEXT = st.one_of(
    st.text(max_size=3000),
    st.lists(SCRIPTS, max_size=40).map("\n".join),
    st.tuples(SCRIPTS, st.integers(1, 2000)).map(lambda t: t[0] * t[1]),  # long, repeated
    st.text(alphabet="dp_#:0123456789 \nOrdeTrackingDlv", max_size=50_000),
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXT, min_size=1, max_size=3))
def test_facts_from_any_text_are_bounded_and_never_crash(texts):
    for kind in ("proof_of_delivery", "policy", "communication", "receipt"):
        t0 = time.thread_time()  # this thread's CPU: a busy machine does not inflate it
        facts = doctext.facts(DocumentFacts(**{**BASE.__dict__, "kind": kind}), texts)
        # linear patterns: no catastrophic backtracking (that takes minutes, not seconds). CPU
        # time, far from the ~0.1 s a text takes, and no hypothesis deadline: under load (2
        # cores at load 16) wall-clock bounds failed this test with nothing wrong
        assert time.thread_time() - t0 < 10
        quotes = [m.quote for m in facts.messages]
        quotes += [q for q in (facts.policy_clause, facts.delivery and facts.delivery.quote) if q]
        assert all(len(q.text) <= doctext.MAX_QUOTE and 1 <= q.page <= len(texts) for q in quotes)
        assert len(facts.order_numbers) <= doctext.MAX_IDS
        assert len(facts.messages) <= doctext.MAX_MESSAGES


def _mutations(good: bytes) -> st.SearchStrategy[bytes]:
    cut = st.integers(0, len(good)).map(lambda n: good[:n])
    flip = st.tuples(st.integers(0, len(good) - 1), st.binary(min_size=1, max_size=64)).map(
        lambda t: good[: t[0]] + t[1] + good[t[0] + len(t[1]) :]
    )
    junk = st.binary(max_size=4000).map(lambda b: b"%PDF-1.7\n" + b)
    return st.one_of(cut, flip, junk)


def _good() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return text_pdf(
            Path(tmp) / "good.pdf", [["Order number: 5003", "Delivered"]] * 2
        ).read_bytes()


GOOD = _good()


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.lists(_mutations(GOOD), min_size=8, max_size=8))
def test_malformed_pdfs_are_read_within_budget_or_called_unreadable(tmp_path, data):
    items = []
    for i, body in enumerate(data):
        path = tmp_path / f"m{i}.pdf"
        path.write_bytes(body)
        items.append(ToRead(path, path.name, "application/pdf", f"{i:064d}"))
    t0 = time.monotonic()
    out = read_documents(items, ReadLimits(seconds=3, tesseract=None))
    assert time.monotonic() - t0 < 8 * 3 + 5  # each file at most its budget (2 at a time)
    assert {f.read for f in out.values()} <= READ
    assert all(f.note or f.read in ("text", "ocr") for f in out.values())


@settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(pages=st.lists(st.lists(TEXT.map(lambda t: t[:300]), max_size=30), min_size=1, max_size=3))
def test_pdfs_of_any_script_and_length_are_read_whole_or_bounded(tmp_path, pages):
    pdf = text_pdf(tmp_path / "any.pdf", pages)
    limits = ReadLimits(seconds=5, max_chars=20_000, tesseract=None)
    facts = read_documents([ToRead(pdf, "any.pdf", "application/pdf", "a" * 64)], limits)
    got = facts["a" * 64]
    assert got.read in ("text", "no_ocr") and got.pages == len(pages)


# The caps themselves, reached on purpose: the fuzzing above rarely draws more than 20 order
# numbers or messages, or a text past its characters, so it shows them kept, not enforced.
def test_a_text_naming_more_order_numbers_than_are_kept_keeps_the_first_ones():
    text = "\n".join(f"Order number: {5000 + i}" for i in range(doctext.MAX_IDS + 5))
    facts = doctext.facts(BASE, [text])
    assert facts.order_numbers == tuple(str(5000 + i) for i in range(doctext.MAX_IDS))


def test_a_thread_of_more_messages_than_are_kept_keeps_the_first_ones():
    blocks = [
        f"From: customer@example.com\nDate: 2026-03-{1 + i % 28:02d}\nMessage number {i}."
        for i in range(doctext.MAX_MESSAGES + 5)
    ]
    facts = doctext.facts(
        DocumentFacts(**{**BASE.__dict__, "kind": "communication"}), ["\n".join(blocks)]
    )
    assert len(facts.messages) == doctext.MAX_MESSAGES
    assert [m.quote.text for m in facts.messages[:2]] == ["Message number 0.", "Message number 1."]


def test_a_pdf_is_read_up_to_its_characters_and_no_further(tmp_path):
    filler = ["The quick brown fox jumps over the lazy dog, again and again."] * 20
    pdf = text_pdf(tmp_path / "long.pdf", [[*filler, "Order number: 5003"], ["Order number: 6004"]])
    item = ToRead(pdf, "long.pdf", "application/pdf", "b" * 64)
    whole = read_documents([item], ReadLimits(seconds=10, tesseract=None))["b" * 64]
    cut = read_documents([item], ReadLimits(seconds=10, max_chars=500, tesseract=None))["b" * 64]
    assert whole.order_numbers == ("5003", "6004")  # both past the first 500 characters
    assert cut.read == "text" and cut.order_numbers == ()  # page 1 cut, page 2 not read
