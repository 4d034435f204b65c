"""Building the PDFs a reviewer reads: any cell we print fits (issue 30: a 1,200-character
carrier name stopped every run with reportlab's LayoutError), the data sheet keeps its
two-page promise, every script prints in an embedded font (not as black boxes), and the packet
holds the letter and every document within its network's limits (issue 28). Fuzzed with
hypothesis over text lengths, scripts and malformed or hostile documents, a bounded number of
examples, each under a deadline and a wall-clock guard (a hang fails its own example)."""

from __future__ import annotations

import io
import random
import re
import signal
import tempfile
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader
from pypdf.errors import PyPdfError as PdfError

from dispute_evidence.documents.facts import Delivery, DocumentFacts, Quote
from dispute_evidence.evidence import fonts
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.evidence.limits import PROFILES, LimitProfile
from dispute_evidence.evidence.packet import Document, PacketError, build_packet
from dispute_evidence.evidence.summary_pdf import DATA_SHEET_PAGES, summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from support.docfixtures import hang_pdf, locked_pdf, pdf_of
from tests.support.examples import examples

# No wall-clock deadline per example: a fresh clone's `make test` on a loaded 2-core machine took
# 13.7 s on an example of the first fuzz test below, against hypothesis's 10 s, and failed. How
# fast a PDF is made is a benchmark's question (python -m bench evidence); here an example
# fails only as a hang, stopped by wall_clock_guard after HUNG_AFTER seconds.
HUNG_AFTER = 60.0


class Hung(Exception):
    """An example still running after HUNG_AFTER seconds."""


@contextmanager
def wall_clock_guard(seconds: float = HUNG_AFTER) -> Iterator[None]:
    """A hang fails its own example (hypothesis then shows which input), not the whole test at
    pytest's timeout: SIGUSR1 to this thread after `seconds` (SIGALRM is pytest-timeout's)."""
    done = threading.Event()

    def hung(*_: object) -> None:
        if not done.is_set():
            raise Hung(f"still running after {seconds:g} s")

    old = signal.signal(signal.SIGUSR1, hung)
    me = threading.get_ident()
    timer = threading.Timer(
        seconds, lambda: done.is_set() or signal.pthread_kill(me, signal.SIGUSR1)
    )
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGUSR1, old)


NAMES = {
    "Polish": "Zażółć gęślą jaźń Brzęczyszczykiewicz",
    "Greek": "Ιωάννης Παπαδόπουλος",
    "Cyrillic": "Иван Петрович Сидоров",
    "Chinese": "王小明",
    "Japanese": "山田太郎 やまだ",
    "Korean": "김민준",
}


def payload(**extra: object) -> dict:
    facts = {
        "order_number": "1001",
        "customer_name": "Jan Kowalski",
        "customer_email": "jan@example.com",
        "dispute": {"reason": "product_not_received", "amount": 49.5, "currency": "EUR"},
        "shipments": [{"carrier": "DHL", "tracking_number": "JD0001", "delivery_status": "Delivered"}],
        "payments": [{"payment_id": "ch_1", "card_brand": "visa", "card_last4": "4242",
                      "avs_line1_check": "pass", "avs_zip_check": "pass", "cvc_check": "pass"}],
    }  # fmt: skip
    facts.update(extra)
    return {
        "products": [{"product_title": "Shirt", "price": 49.5, "quantity": 1, "currency_code": "EUR"}],
        "shipping_tracking_numbers": ["JD0001"],
        "additional_evidence": facts,
        "merchant_profile": {"merchant_name": "Acme GmbH", "merchant_website": "https://acme.test"},
    }  # fmt: skip


def pages_text(body: bytes) -> list[str]:
    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(body)).pages]


def data_sheet_pages(body: bytes) -> int:
    """Pages from the data sheet's title to the page before the sources (or the end)."""
    pages = pages_text(body)
    start = next(i for i, t in enumerate(pages) if "Evidence summary: dispute" in t)
    end = next((i for i, t in enumerate(pages) if "Sources of the letter" in t), len(pages))
    return end - start


def fonts_of(body: bytes) -> set[str]:
    """The fonts that text is actually shown in."""
    out: set[str] = set()

    def seen(text, cm, tm, font, size):
        if text.strip() and font is not None:
            out.add(str(font["/BaseFont"]))

    for page in PdfReader(io.BytesIO(body)).pages:
        page.extract_text(visitor_text=seen)
    return out


def test_long_cells_of_issue_30_fit_and_the_data_sheet_keeps_to_two_pages():
    body = summary_pdf(
        "dp_long",
        wire_facts(payload(
            shipments=[{"carrier": "C" * 1200, "tracking_number": "T" * 300,
                        "delivery_status": "in transit " * 180}],
            payments=[{"payment_id": "ch_1", "card_brand": "B" * 1200, "card_last4": "4242",
                       "avs_line1_check": "unavailable " * 85, "avs_zip_check": "x" * 1000}],
            billing_address="Street " * 300,
        )),
        [f"dp_long_file_{i}_{'n' * 150}.pdf" for i in range(30)],
    )  # fmt: skip
    assert data_sheet_pages(body) <= DATA_SHEET_PAGES
    text = " ".join(pages_text(body))
    assert "…" in text  # clipped, and it says so
    assert "Response to dispute dp_long" in text


def test_many_long_rows_still_keep_the_promise():
    many = [{"carrier": f"Carrier {i} " + "w" * 250, "tracking_number": f"T{i}",
             "delivery_status": "delivered"} for i in range(40)]  # fmt: skip
    body = summary_pdf("dp_rows", wire_facts(payload(shipments=many)), [])
    assert data_sheet_pages(body) <= DATA_SHEET_PAGES
    assert re.search(r"… and \d+ more", " ".join(pages_text(body)))  # says what it left out


def test_polish_greek_cyrillic_and_cjk_names_print_in_an_embedded_font():
    for script, name in NAMES.items():
        body = summary_pdf("dp_name", wire_facts(payload(customer_name=name)), [f"{name}.pdf"])
        text = " ".join(pages_text(body))
        assert name.replace(" ", "") in text.replace(" ", ""), (script, name)
        used = fonts_of(body)
        assert not any("Helvetica" in f for f in used), (script, used)
        assert any("DejaVuSans" in f for f in used), used
        if script in ("Chinese", "Japanese", "Korean"):
            assert any("DroidSansFallback" in f for f in used), (script, used)


SCRIPTS = st.sampled_from(
    [
        "abcdefghijklmnop ",
        "ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ ",
        "αβγδεζηθικλμνξοπρστυφχψω ",
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя ",
        "你好世界中文字符测试 ",
        "日本語のテキスト ",
        "한국어텍스트 ",
        "<>&\"'%{}[]\\/;: ",
        "\u200b\u00ad\t",
    ]
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    alphabet = draw(SCRIPTS) + draw(SCRIPTS)
    size = draw(st.sampled_from([0, 1, 30, 400, 1200, 2500]))
    rng = random.Random(draw(st.integers(0, 10**6)))
    return "".join(rng.choice(alphabet) for _ in range(size))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    carrier=texts(), status=texts(), brand=texts(), avs=texts(), name=texts(),
    title=texts(), rows=st.integers(0, 30),
)  # fmt: skip
def test_fuzz_any_text_in_any_cell_makes_a_pdf_within_the_promise(
    carrier, status, brand, avs, name, title, rows
):
    ships = [{"carrier": carrier, "tracking_number": f"T{i}", "delivery_status": status}
             for i in range(max(1, rows // 3))]  # fmt: skip
    p = payload(
        shipments=ships,
        payments=[{"payment_id": "ch_1", "card_brand": brand, "avs_line1_check": avs}],
        customer_name=name,
    )
    p["products"] = [{"product_title": title, "price": 1, "quantity": 1, "currency_code": "EUR"}
                     for _ in range(rows)]  # fmt: skip
    with wall_clock_guard():
        body = summary_pdf("dp_fuzz", wire_facts(p), [f"{title[:40]}.pdf"])
    assert body.startswith(b"%PDF") and data_sheet_pages(body) <= DATA_SHEET_PAGES


def _covered(alphabet: str) -> str:
    """The letters of `alphabet` our fonts have a glyph for (DejaVu Sans, or the CJK fallback)."""
    have = fonts._body_chars() | fonts._cjk_chars()
    return "".join(ch for ch in alphabet if ch.isalpha() and ord(ch) in have)


NAME_SCRIPTS = {
    script: _covered(letters)
    for script, letters in {
        "Polish": "aąbcćdeęfghijklłmnńoóprsśtuwyzźżAĄCĆEĘLŁNŃOÓSŚZŹŻ",
        "Greek": "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
        "Cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ",
        "Chinese": "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗小明伟芳娜秀英敏静丽强磊军洋勇艳杰",
        "Japanese": "山田太郎佐藤鈴木高橋やまだたろうさとうすずきヤマダタロウ",
        "Korean": "김이박최정강조윤장임민준서연지우하은도현수빈예진",
    }.items()
}


@st.composite
def names(draw: st.DrawFn) -> tuple[str, str]:
    """(script, a name of one to three words in it)."""
    script = draw(st.sampled_from(sorted(NAME_SCRIPTS)))
    word = st.text(alphabet=NAME_SCRIPTS[script], min_size=1, max_size=10)
    return script, " ".join(draw(st.lists(word, min_size=1, max_size=3)))


def _squeezed(text: str) -> str:
    return "".join(unicodedata.normalize("NFC", text).split())


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=names())
def test_fuzz_a_name_in_any_script_comes_out_of_the_pdf_as_text(name):
    """The reviewer's viewer (and pypdf) reads the name back, not boxes: every letter of it
    is in a font that has it, and the PDF maps it back to the letter."""
    script, text = name
    assert NAME_SCRIPTS[script], script  # the fonts cover this script at all
    with wall_clock_guard():
        body = summary_pdf("dp_name", wire_facts(payload(customer_name=text)), [])
    assert _squeezed(text) in _squeezed(" ".join(pages_text(body))), (script, text)


# -- the packet ------------------------------------------------------------------------------
def photo(width: int, height: int, quality: int = 95) -> bytes:
    """A noisy photo: JPEG cannot make it small without lowering its quality or size."""
    noise = Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3))
    out = io.BytesIO()
    noise.save(out, "JPEG", quality=quality)
    return out.getvalue()


def front(pid: str, attached: list[str]):
    return lambda pages: summary_pdf(pid, wire_facts(payload()), attached, pages=pages)


def test_the_packet_holds_the_letter_then_every_document_with_its_first_page_listed():
    png = io.BytesIO()
    Image.new("RGB", (600, 400), "white").save(png, "PNG")
    docs = [
        Document("receipt.pdf", "application/pdf", pdf_of(2, "RECEIPT")),
        Document("label.png", "image/png", png.getvalue()),
        Document("pod.pdf", "application/pdf", pdf_of(3, "DELIVERY")),
    ]
    names = [d.name for d in docs]
    packet = build_packet(front("dp_1", names), docs, PROFILES["visa"])
    pages = pages_text(packet.body)
    assert packet.over is None and len(pages) == packet.pages
    assert "Response to dispute dp_1" in pages[0]
    first = packet.starts
    assert pages[first["receipt.pdf"] - 1].startswith("RECEIPT page 1")
    assert "label.png" in pages[first["label.png"] - 1]
    assert pages[first["pod.pdf"] - 1].startswith("DELIVERY page 1")
    # none named by a letter (`cited`): by name
    assert first["label.png"] < first["pod.pdf"] < first["receipt.pdf"]
    assert packet.pages == first["receipt.pdf"] + 1
    letter, sheet = " ".join(pages[0].split()), " ".join(pages[1].split())
    for name in names:  # the letter's and the data sheet's lists give each one's first page
        x = packet.exhibits[name]
        assert re.search(rf"Exhibit {x.label}: {x.words}[^()]*\(page {first[name]}\)", letter), (
            name,
            letter,
        )
        assert f"Exhibit {x.label} {x.words} page {first[name]}" in sheet, (name, sheet)
        assert f"Exhibit {x.label} — {x.words} — page {first[name]} of" in pages[first[name] - 1]
        assert name not in letter  # the reviewer reads labels, not our file names
    again = build_packet(front("dp_1", names), docs, PROFILES["visa"])
    assert again.body == packet.body  # the same inputs, the same bytes: no new version


def test_the_packet_puts_the_documents_in_the_order_the_letter_names_them():
    """Issue 28: the letter, the data sheet, then each document where the letter first names
    it (for a not-as-described claim the policy it quotes before the proof of delivery, issue
    36: delivery does not answer a defect), not by file name; the documents it
    does not name last, by name. Each packet page the letter cites opens that document."""
    pod = DocumentFacts("z_proof_of_delivery.pdf", "", "proof_of_delivery", "text", 1,
                        delivery=Delivery(date(2026, 10, 6), "A. Smith", None,
                                          Quote("Delivered on 2026-10-06, signed by A. Smith", 1)))  # fmt: skip
    policy = DocumentFacts("a_policy.pdf", "", "policy", "text", 1,
                           policy_clauses={"refund": Quote("Returns are accepted within 30 days.", 1)})  # fmt: skip
    read = [policy, DocumentFacts("m_receipt.pdf", "", "receipt", "not_read"), pod]  # by name
    facts = payload(
        dispute={"reason": "product_unacceptable", "amount": 49.5, "currency": "EUR"},
        shipments=[
            {"carrier": "DHL", "tracking_number": "JD0001", "delivery_status": "In transit"}
        ],
    )
    cited = build_letter(wire_facts(facts), read).documents
    assert cited == ("a_policy.pdf", "z_proof_of_delivery.pdf", "m_receipt.pdf")
    opens = {"a_policy.pdf": "POLICY page 1", "m_receipt.pdf": "RECEIPT page 1",
             "z_proof_of_delivery.pdf": "DELIVERY page 1"}  # fmt: skip
    kinds = {d.name: d.kind for d in read}  # the stamps say what the letter's reading says
    docs = [Document(name, "application/pdf", pdf_of(2 if name.startswith("m") else 1,
                                                      words.split()[0]), kinds[name]) for name, words in opens.items()]  # fmt: skip
    made = lambda pages: summary_pdf("dp_o", wire_facts(facts), read, pages=pages)  # noqa: E731
    packet = build_packet(made, docs, PROFILES["visa"], cited=cited)
    pages = pages_text(packet.body)
    letter, sheet = " ".join(pages[0].split()), " ".join(pages[1].split())
    # labelled in the order the letter first names them: the policy it quotes is Exhibit A
    assert "Our policy (Exhibit A) says" in letter
    assert "The proof of delivery (Exhibit B) records" in letter
    assert "Attached as supporting documents: Exhibit C (receipt or invoice)." in letter
    at = {}
    for name, words in opens.items():
        x = packet.exhibits[name]
        found = re.search(rf"Exhibit {x.label}: {x.words}[^()]*\(page (\d+)\)", letter)
        assert found, (name, letter)
        at[name] = int(found[1])
        assert pages[at[name] - 1].startswith(words), (name, at[name])
        assert f"Exhibit {x.label} — {x.words} — page {at[name]} of" in pages[at[name] - 1]
    assert sorted(at, key=at.__getitem__) == list(cited)  # the packet follows the letter
    assert [packet.exhibits[n].label for n in cited] == ["A", "B", "C"]
    listed = sheet.split("Exhibits", 1)[1]
    assert [listed.index(f"Exhibit {x}") for x in "ABC"] == sorted(
        listed.index(f"Exhibit {x}") for x in "ABC"
    )  # the data sheet lists them so too
    assert build_packet(made, docs, PROFILES["visa"], cited=cited).body == packet.body
    some = build_packet(made, docs, PROFILES["visa"], cited=["z_proof_of_delivery.pdf"])
    assert sorted(some.starts, key=some.starts.__getitem__) == [
        "z_proof_of_delivery.pdf",
        "a_policy.pdf",
        "m_receipt.pdf",
    ]  # then the rest by name


def test_an_oversized_photo_is_recompressed_step_by_step_and_fits():
    big = photo(2600, 2000)
    assert len(big) > PROFILES["default"].max_total_bytes  # as dropped, it would not fit
    docs = [Document("photo.jpg", "image/jpeg", big)]
    packet = build_packet(front("dp_p", ["photo.jpg"]), docs, PROFILES["default"])
    assert packet.over is None, packet.over
    assert packet.recompressed == ["photo.jpg"]
    assert len(packet.body) <= PROFILES["default"].max_total_bytes
    assert "photo.jpg" in pages_text(packet.body)[packet.starts["photo.jpg"] - 1]


def test_a_packet_over_the_page_limit_says_limit_total_and_largest_and_is_not_cut():
    docs = [Document("scan.pdf", "application/pdf", pdf_of(12, "SCAN")),
            Document("terms.pdf", "application/pdf", pdf_of(9, "TERMS"))]  # fmt: skip
    packet = build_packet(front("dp_o", ["scan.pdf", "terms.pdf"]), docs, PROFILES["mastercard"])
    assert packet.over is not None and packet.pages > 19
    assert packet.over.startswith("held: over the mastercard limit: ")
    assert f"{packet.pages} pages against at most 19" in packet.over
    assert "largest: " in packet.over and "scan.pdf (12 p." in packet.over
    assert len(PdfReader(io.BytesIO(packet.body)).pages) == packet.pages  # never truncated


def test_a_tiny_profile_holds_even_after_recompressing():
    tiny = LimitProfile("tiny", 50, 60_000, 60_000, 5, 3508)
    docs = [Document("photo.jpg", "image/jpeg", photo(1600, 1200))]
    packet = build_packet(front("dp_t", ["photo.jpg"]), docs, tiny)
    assert packet.recompressed == ["photo.jpg"]  # it tried, step by step
    assert packet.over is not None and "against at most 0.1 MB in all" in packet.over


# -- malformed and hostile documents in the packet ---------------------------------------------
PDF, PNG, JPEG = "application/pdf", "image/png", "image/jpeg"
FRONT = pdf_of(1, "FRONT")  # a cheap stand-in for the letter: the documents are under test
GOOD_PDF = pdf_of(2, "GOOD")


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 80), "white").save(out, "PNG")
    return out.getvalue()


def _hostile_files() -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        hang = hang_pdf(Path(tmp) / "hang.pdf").read_bytes()
        locked = locked_pdf(Path(tmp) / "locked.pdf", ["Invoice"]).read_bytes()
    return hang, locked


GOOD_PNG = _png()
IMAGE_DATA = slice(33, len(GOOD_PNG) - 12)  # its IDAT chunk: after the header, before IEND
HANG_PDF, LOCKED_PDF = _hostile_files()
REFUSED = re.compile(
    r"(?P<name>\S+) (cannot be read as a PDF \(\w+\)|cannot be read as an image \(\w+\)"
    r"|is password-protected: no reviewer could open it|is \d+x\d+ pixels, too large to place"
    r"|is a damaged PNG \(its checksums do not match\)|has no page that can be shown)"
)


def _flipped(body: bytes) -> st.SearchStrategy[bytes]:
    """`body` with 1 to 20 bytes xor-ed at random places."""
    flips = st.lists(st.tuples(st.integers(0, len(body) - 1), st.integers(1, 255)),
                     min_size=1, max_size=20)  # fmt: skip

    def apply(at: list[tuple[int, int]]) -> bytes:
        out = bytearray(body)
        for i, x in at:
            out[i] ^= x
        return bytes(out)

    return flips.map(apply)


def _broken_png() -> st.SearchStrategy[bytes]:
    """A PNG whose header is right and whose body is cut, zeroed or flipped."""
    cut = st.integers(33, len(GOOD_PNG) - 1).map(lambda n: GOOD_PNG[:n])
    zeroed = st.integers(33, len(GOOD_PNG) - 8).map(
        lambda n: GOOD_PNG[:n] + bytes(8) + GOOD_PNG[n + 8 :]
    )
    flipped = _flipped(GOOD_PNG[33:]).map(lambda rest: GOOD_PNG[:33] + rest)
    return st.one_of(cut, zeroed, flipped)


HOSTILE_BODIES = st.one_of(
    st.tuples(st.just("truncated"), st.integers(0, len(GOOD_PDF) - 1).map(lambda n: GOOD_PDF[:n]), st.just(PDF)),
    st.tuples(st.just("flipped"), _flipped(GOOD_PDF), st.just(PDF)),
    st.tuples(st.just("hang"), st.just(HANG_PDF), st.just(PDF)),
    st.tuples(st.just("locked"), st.just(LOCKED_PDF), st.just(PDF)),
    st.tuples(st.just("empty"), st.just(b""), st.sampled_from([PDF, PNG, JPEG])),
    st.tuples(st.just("broken-png"), _broken_png(), st.just(PNG)),
    st.tuples(st.just("wrong-type"), st.sampled_from([GOOD_PDF, GOOD_PNG]), st.sampled_from([PDF, PNG, JPEG])),
    st.tuples(st.just("good"), st.sampled_from([(GOOD_PDF, PDF), (GOOD_PNG, PNG)]), st.none()).map(
        lambda t: (t[0], t[1][0], t[1][1])
    ),
)  # fmt: skip


@st.composite
def hostile_documents(draw: st.DrawFn) -> list[tuple[str, Document]]:
    """One to four documents, each (what it is, the document), with names of their own."""
    drawn = draw(st.lists(HOSTILE_BODIES, min_size=1, max_size=4))
    ext = {PDF: "pdf", PNG: "png", JPEG: "jpg"}
    return [(what, Document(f"d{i}-{what}.{ext[mime]}", mime, body))
            for i, (what, body, mime) in enumerate(drawn)]  # fmt: skip


def _refusals(packet, docs: list[Document]) -> dict[str, str]:
    """{name: the reason it was refused}, read from the note page put in its place. A refused
    document takes one page; a page of a document placed as it is is never read here (the
    hang PDF's would take hours)."""
    reader = PdfReader(io.BytesIO(packet.body))
    out, placed = {}, {item.name: item.pages for item in packet.items[1:]}  # in packet order
    for d in docs:
        if placed[d.name] != 1 or d.content == HANG_PDF:
            continue
        try:
            text = reader.pages[packet.starts[d.name] - 1].extract_text() or ""
        except PdfError:  # a broken page placed as it is (a byte flip pypdf keeps): no note
            continue
        if said := re.search(r"Not shown here: (.*?)\. It goes to the API as its own file", text):
            out[d.name] = said.group(1)
    return out


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=hostile_documents())
def test_fuzz_malformed_and_hostile_documents_are_placed_or_refused_with_a_named_reason(drawn):
    """Truncated PDFs, byte flips of a small one, issue 30's hang PDF, a password-protected one,
    zero-byte files, PNGs with a broken body, a file of another type than it says: the packet
    is made, each document placed or refused with its name and why, never another exception."""
    docs = [d for _, d in drawn]
    with wall_clock_guard():
        shown = build_packet(lambda _: FRONT, docs, PROFILES["visa"], lenient=True)
        try:
            strict = build_packet(lambda _: FRONT, docs, PROFILES["visa"])
        except PacketError as exc:
            strict, refused_first = None, str(exc)
        refusals = _refusals(shown, docs)
    assert len(PdfReader(io.BytesIO(shown.body)).pages) == shown.pages
    assert list(shown.starts) == [d.name for d in docs]
    assert all(item.pages >= 1 for item in shown.items[1:]), shown.items  # none placed empty
    for what, d in drawn:
        if what == "good":
            assert d.name not in refusals, refusals[d.name]
        if what in ("empty", "locked"):
            assert d.name in refusals, (what, d.name)  # neither can be shown
        if what == "broken-png" and d.content[IMAGE_DATA] != GOOD_PNG[IMAGE_DATA]:
            assert d.name in refusals, d.content  # its pixels would be noise
    for name, reason in refusals.items():
        matched = REFUSED.fullmatch(reason)
        assert matched and matched["name"] == name, reason
    if strict is not None:  # nothing refused: the same packet, every document in it
        assert not refusals and strict.body == shown.body
    else:  # refused at the first document that cannot be placed (placed by name), by name
        first = min(d.name for d in docs if d.name in refusals)
        assert refused_first == refusals[first]


def test_a_pdf_without_pages_and_a_png_with_a_damaged_body_are_refused_by_name():
    """Two the fuzz found: a PDF whose page tree is damaged (pypdf finds no page in it) was
    placed as nothing, the letter pointing at a page of the next document; a PNG with bytes
    zeroed in its image data was placed as noise. Each is refused, saying which and why."""
    pageless = GOOD_PDF.replace(b"/Type /Pages", b"/Type /Pagez")
    zeroed = GOOD_PNG[:100] + bytes(8) + GOOD_PNG[108:]
    docs = [Document("pageless.pdf", PDF, pageless), Document("zeroed.png", PNG, zeroed),
            Document("good.pdf", PDF, GOOD_PDF)]  # fmt: skip
    shown = build_packet(lambda _: FRONT, docs, PROFILES["visa"], lenient=True)
    assert _refusals(shown, docs) == {
        "pageless.pdf": "pageless.pdf has no page that can be shown",
        "zeroed.png": "zeroed.png is a damaged PNG (its checksums do not match)",
    }
    assert (
        PdfReader(io.BytesIO(shown.body))
        .pages[shown.starts["good.pdf"] - 1]
        .extract_text()
        .startswith("GOOD page 1")
    )
    with pytest.raises(PacketError, match="^pageless.pdf has no page that can be shown$"):
        build_packet(lambda _: FRONT, docs, PROFILES["visa"])


# -- the settings ------------------------------------------------------------------------------
def test_upload_and_limit_profiles_are_read_from_the_environment_and_checked(monkeypatch, tmp_path):
    from dispute_evidence.settings import ConfigError, load_settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "packet")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES", '{"amex": {"max_pages": 12}}')
    policy = load_settings().evidence.packet_policy()
    assert policy.upload == "packet" and policy.limits == "auto"
    assert policy.profiles["amex"].max_pages == 12 and policy.profiles["amex"].max_files == 5
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES", '{"amex": {"pages": 12}}')
    with pytest.raises(ConfigError, match="unknown pages"):
        load_settings()
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__UPLOAD", "zip")
    monkeypatch.delenv("DISPUTE_EVIDENCE_EVIDENCE__LIMIT_PROFILES")
    with pytest.raises(ConfigError, match="upload"):
        load_settings()


def test_the_card_brand_picks_the_profile():
    from dispute_evidence.evidence.limits import profile_for

    for brand, name in (("Visa", "visa"), ("MasterCard", "mastercard"),
                        ("American Express", "amex"), ("Discover", "default"), ("", "default")):  # fmt: skip
        p = payload(payments=[{"payment_id": "ch_1", "card_brand": brand}])
        assert profile_for(wire_facts(p), "auto", PROFILES).name == name, brand
    assert profile_for(wire_facts(payload()), "mastercard", PROFILES).name == "mastercard"
