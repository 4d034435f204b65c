"""A document of no known kind keeps its first words for the letter to quote (issue 44): never
a card number in them, however it is written, and a long first page cut at a sentence."""

from __future__ import annotations

from pathlib import Path

from dispute_evidence.documents.facts import OPENING
from dispute_evidence.documents.reading import ReadLimits, ToRead, to_facts

PAN = "4242\u00a04242.4242\t4242"  # no-break space, dot and tab between its groups


def _read(text: str):
    item = ToRead(Path("1046 explanation.pdf"), "1046 explanation.pdf", "application/pdf", "ab")
    return to_facts(item, {"read": "text", "pages": 1, "texts": [text]}, ReadLimits())


def test_the_first_words_never_hold_a_card_number():
    facts = _read(f"Order 1046 was charged once, on the card {PAN}\n4242.\nNo second charge.")
    said = facts.extra[OPENING]
    assert "Order 1046 was charged once" in said
    digits = "".join(c for c in said if c.isdigit())
    assert "4242424242424242" not in digits


def test_a_long_first_page_is_cut_at_a_sentence():
    first = "Order 1046 was charged once by us on the day it was placed."
    facts = _read(" ".join([first] * 12))
    said = facts.extra[OPENING]
    assert said.startswith(first) and said.endswith(".") and len(said) <= 300
