"""One sentence of the letter and what it rests on (evidence/letter.py's SOURCE_WORDS). Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sentence:
    text: str
    source: str  # a SOURCE_WORDS key, or FILE + a document's name
