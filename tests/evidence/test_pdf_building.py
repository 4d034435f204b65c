"""Building the PDFs a reviewer reads: any cell we print fits (issue 30: a 1,200-character
carrier name stopped every run with reportlab's LayoutError), the data sheet keeps its
two-page promise, every script prints in an embedded font (not as black boxes), and the packet
holds the letter and every document within its network's limits (issue 28). Fuzzed with
hypothesis over text lengths and scripts, a bounded number of examples."""

from __future__ import annotations

import io
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader

from dispute_evidence.evidence.limits import PROFILES, LimitProfile
from dispute_evidence.evidence.packet import Document, build_packet
from dispute_evidence.evidence.summary_pdf import DATA_SHEET_PAGES, summary_pdf
from tests.evidence.docfixtures import pdf_of

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
        payload(
            shipments=[{"carrier": "C" * 1200, "tracking_number": "T" * 300,
                        "delivery_status": "in transit " * 180}],
            payments=[{"payment_id": "ch_1", "card_brand": "B" * 1200, "card_last4": "4242",
                       "avs_line1_check": "unavailable " * 85, "avs_zip_check": "x" * 1000}],
            billing_address="Street " * 300,
        ),
        [f"dp_long_file_{i}_{'n' * 150}.pdf" for i in range(30)],
    )  # fmt: skip
    assert data_sheet_pages(body) <= DATA_SHEET_PAGES
    text = " ".join(pages_text(body))
    assert "…" in text  # clipped, and it says so
    assert "Response to dispute dp_long" in text


def test_many_long_rows_still_keep_the_promise():
    many = [{"carrier": f"Carrier {i} " + "w" * 250, "tracking_number": f"T{i}",
             "delivery_status": "delivered"} for i in range(40)]  # fmt: skip
    body = summary_pdf("dp_rows", payload(shipments=many), [])
    assert data_sheet_pages(body) <= DATA_SHEET_PAGES
    assert re.search(r"… and \d+ more", " ".join(pages_text(body)))  # says what it left out


def test_polish_greek_cyrillic_and_cjk_names_print_in_an_embedded_font():
    for script, name in NAMES.items():
        body = summary_pdf("dp_name", payload(customer_name=name), [f"{name}.pdf"])
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


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    body = summary_pdf("dp_fuzz", p, [f"{title[:40]}.pdf"])
    assert body.startswith(b"%PDF") and data_sheet_pages(body) <= DATA_SHEET_PAGES


# -- the packet ------------------------------------------------------------------------------
def photo(width: int, height: int, quality: int = 95) -> bytes:
    """A noisy photo: JPEG cannot make it small without lowering its quality or size."""
    noise = Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3))
    out = io.BytesIO()
    noise.save(out, "JPEG", quality=quality)
    return out.getvalue()


def front(pid: str, attached: list[str]):
    return lambda pages: summary_pdf(pid, payload(), attached, pages=pages)


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
    assert packet.pages == first["pod.pdf"] + 2
    letter, sheet = " ".join(pages[0].split()), " ".join(pages[1].split())
    for name in names:  # the letter's and the data sheet's lists give each one's first page
        assert f"{name} (packet page {first[name]})" in letter, (name, letter)
        assert f"{name} (packet page {first[name]})" in sheet, (name, sheet)
    again = build_packet(front("dp_1", names), docs, PROFILES["visa"])
    assert again.body == packet.body  # the same inputs, the same bytes: no new version


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
        assert profile_for(p, "auto", PROFILES).name == name, brand
    assert profile_for(payload(), "mastercard", PROFILES).name == "mastercard"
