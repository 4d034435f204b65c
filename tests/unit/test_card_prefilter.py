"""The card-number scan's first look (cardnumbers.may_hold_one, issue 47 item 6) never turns
away a text the full detector finds a card number in: it only spares the detector texts that
cannot hold one (a JSON payload's dates and amounts, a timestamp). Checked on every brand
written every way the corpus writes it, and on generated texts of digits, every separator the
detector allows (entities, line breaks, e-mail quote marks) and letters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dispute_evidence import cardnumbers
from tests.support.examples import examples
from tests.unit.test_card_corpus import SEPARATORS
from tests.unit.test_cardnumbers import BRANDS, _number, _spaced

PIECES = [
    *SEPARATORS.values(),
    "&#160;",
    "&#xA0;",
    "\r\n",
    "\n> ",
    "\u2028",
    "\u00ad",
    "\ufeff",
    "\u3000",
    "\u00b7",
    "\\",
    "CVV",
    "Visa ",
    "Order #",
    "x",
    "FR76 ",
    ":",
    "\u0663",
]


def _found(text: str) -> bool:
    return next(cardnumbers._spans(text, ()), None) is not None


def test_every_corpus_card_passes_the_first_look() -> None:
    seen = 0
    for _brand, prefix, length in BRANDS:
        pan = _number(prefix, length, 7)
        for sep in SEPARATORS.values():
            for text in (_spaced(pan, sep), f"card {_spaced(pan, sep)}, CVV 123", pan):
                seen += _found(text)
                assert not _found(text) or cardnumbers.may_hold_one(text), repr(text)
    assert seen > 2 * len(BRANDS) * len(SEPARATORS)  # the detector found them: a real check


@settings(max_examples=examples(3000), deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(PIECES), st.text("0123456789", min_size=1, max_size=19)),
        max_size=14,
    )
)
def test_the_first_look_keeps_whatever_the_detector_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    if _found(text):
        assert cardnumbers.may_hold_one(text), repr(text)


def test_a_json_payload_with_dates_and_amounts_is_spared_the_detector() -> None:
    body = (
        '{"dispute":{"amount":1000,"currency":"USD"},"order_date":"2025-05-11T13:55:16Z",'
        '"products":[{"price":31.28,"quantity":2},{"price":176.69,"quantity":4}]}'
    )
    assert cardnumbers._THIRTEEN_DIGITS.match(body)  # the old first look let it through
    assert not cardnumbers.may_hold_one(body)
    assert cardnumbers.may_hold_one(body.replace("1000", "4111 1111 1111 1111"))
