"""The fonts our PDFs are set in, shipped inside the package so a PDF is the same everywhere.

reportlab's built-in Helvetica covers Latin-1 only: a Polish, Greek, Cyrillic or Chinese name
printed as black boxes. DejaVu Sans (Bitstream Vera licence) covers Latin, Greek and Cyrillic;
Droid Sans Fallback (Apache 2.0) covers Chinese, Japanese and Korean and is loaded only for
text that needs it. Both are embedded (subset) in the PDF, so a reviewer's viewer needs no
font of its own. Licences: fonts/LICENSE-*.txt.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from dispute_evidence.cardnumbers import cover_text

FONT_DIR = Path(__file__).parent / "fonts"
BODY = "DejaVuSans"
BOLD = "DejaVuSans-Bold"
CJK = "DroidSansFallback"


@cache
def register() -> None:
    """Register the body fonts once per process (bold and italic map onto the family), and
    write binary streams as they are: reportlab's default ASCII85 text encoding makes every
    image and font 25% larger and costs a second per photo in pure Python."""
    rl_config.useA85 = 0
    pdfmetrics.registerFont(TTFont(BODY, str(FONT_DIR / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(BOLD, str(FONT_DIR / "DejaVuSans-Bold.ttf")))
    addMapping(BODY, 0, 0, BODY)
    addMapping(BODY, 1, 0, BOLD)
    addMapping(BODY, 0, 1, BODY)  # no oblique shipped: italics print upright
    addMapping(BODY, 1, 1, BOLD)


@cache
def _body_chars() -> frozenset[int]:
    register()
    font = pdfmetrics.getFont(BODY)
    return frozenset(font.face.charToGlyph)


@cache
def _cjk_chars() -> frozenset[int]:
    font = TTFont(CJK, str(FONT_DIR / "DroidSansFallback.ttf"))
    pdfmetrics.registerFont(font)
    addMapping(CJK, 0, 0, CJK)
    addMapping(CJK, 1, 0, CJK)
    addMapping(CJK, 0, 1, CJK)
    addMapping(CJK, 1, 1, CJK)
    return frozenset(font.face.charToGlyph)


def _needs_fallback(ch: str) -> bool:
    code = ord(ch)
    return code > 0x24F and code not in _body_chars() and code in _cjk_chars()


def markup(text: str) -> str:
    """`text` escaped for a Paragraph, with the runs the body font lacks set in the fallback;
    a card number covered (the door every Paragraph's text goes through: see
    tests/unit/test_one_door.py)."""
    text = cover_text(text)
    if text.isascii():
        return escape(text)
    out: list[str] = []
    run: list[str] = []
    fallback = False
    for ch in text:
        needs = _needs_fallback(ch)
        if needs != fallback and run:
            out.append(_run("".join(run), fallback))
            run = []
        fallback = needs
        run.append(ch)
    if run:
        out.append(_run("".join(run), fallback))
    return "".join(out)


def _run(text: str, fallback: bool) -> str:
    return f'<font name="{CJK}">{escape(text)}</font>' if fallback else escape(text)
