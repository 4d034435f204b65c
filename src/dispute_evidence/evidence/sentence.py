"""One sentence of a rebuttal letter and the record it rests on (evidence/letter.py). Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sentence:
    text: str
    source: str  # a SOURCE_WORDS key (evidence/letter.py), or FILE + a document's name
