"""Issue 44 finding 5, the customer's words in a screenshot, through the real CLI against the
local API: a Gmail screenshot (a PNG, read by Tesseract) of the customer's e-mail and the
shop's reply. The customer's own words are quoted with the exhibit and her name, as OCR read
them, the bar it reads for "I" set right; the shop's reply is never quoted as hers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.integration.flows.test_case_wins import _arguing, _letter, _rows
from tests.integration.flows.test_letter_argues import ORDERS
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

FONTS = Path(__file__).parents[3] / "src" / "dispute_evidence" / "evidence" / "fonts"
WORDS = "The board is fine, I just changed my mind. Can I send it back?"


def gmail_screenshot(path: Path) -> None:
    """A Gmail thread as a screen shows it: subject, each sender with its date, "to …", body."""
    text = ImageFont.truetype(str(FONTS / "DejaVuSans.ttf"), 20)
    bold = ImageFont.truetype(str(FONTS / "DejaVuSans-Bold.ttf"), 26)
    img = Image.new("RGB", (1400, 520), "white")
    d = ImageDraw.Draw(img)
    d.text((40, 30), "My order 5000", font=bold, fill="black")
    for y, who, at, to, body in (
        (100, "Ann Smith <ann@example.com>", "Oct 9, 2026, 10:14 AM", "to support", WORDS),
        (
            280,
            "Acme Support <support@acme.test>",
            "Oct 9, 2026, 11:02 AM",
            "to me",
            "Glad it arrived! Yes, you can send it back within 30 days.",
        ),
    ):
        d.text((40, y), who, font=text, fill="black")
        d.text((1000, y), at, font=text, fill="#555555")
        d.text((40, y + 30), to, font=text, fill="#555555")
        d.text((40, y + 80), body, font=text, fill="black")
    img.save(path)


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")
def test_the_customers_words_in_a_gmail_screenshot_are_quoted_with_the_exhibit(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason", "amount", "currency"],
        [["dp_test_0", "#5000", "product_unacceptable", 129.0, "USD"]],
    )
    write_rows(
        inbox / "orders.csv",
        ORDERS,
        [
            [
                5000,
                "Skateboard deck",
                "129",
                1,
                "USD",
                "ann@example.com",
                "Ann Smith",
                "1 Elm St, Boston, MA 02108",
                "2026-10-01",
            ]
        ],
    )
    gmail_screenshot(inbox / "5000 gmail.png")
    run_cli("--inbox", str(inbox))
    letter = _letter(sb, "dp_test_0")
    said = f"Ann Smith <ann@example.com> wrote on 2026-10-09 (Exhibit A): “{WORDS}”"
    assert said in letter, letter
    thesis = letter.split("To the reviewer of this dispute,", 1)[1].split(" The order ", 1)[0]
    assert "I just changed my mind" in thesis, thesis  # her words answer the claim first
    assert "Glad it arrived" not in _arguing(letter), letter  # the shop's reply is not hers
    assert "|" not in letter, letter
