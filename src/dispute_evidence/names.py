"""File names and inbox text made safe to send and to show.

An analyst's file name may hold control characters, line breaks or bidirectional marks
(U+202E turns `rtl\u202egnp.pdf` into what reads as `rtlpng.pdf`). They must not reach an
HTTP header, a terminal or a report as they are. Nor may a full card number
(`receipt 4111 1111 1111 1111.pdf`): every name and text these functions give is covered
(cardnumbers.py: its last 4 digits kept). Neutral module: imports only cardnumbers.py.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from dispute_evidence.cardnumbers import cover_text

# the ASCII characters _is_invisible holds invisible that are not whitespace (\t\n\v\f\r and
# \x1c-\x1f are whitespace to str.isspace)
_ASCII_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f]")
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _is_invisible(ch: str) -> bool:
    return unicodedata.category(ch) in _INVISIBLE


def upload_name(name: str, fallback: str = "evidence") -> str:
    """The file name the API receives: invisible and control characters dropped, whitespace
    runs made one space, path separators and double quotes replaced, a card number covered;
    never empty."""
    name = cover_text(name)
    kept = (" " if ch.isspace() or ch in "/\\" else "'" if ch == '"' else ch for ch in name)
    clean = " ".join("".join(ch for ch in kept if not _is_invisible(ch)).split())
    stem, dot, suffix = clean.rpartition(".")
    if not dot:
        stem, suffix = clean, ""
    if not stem.strip(". "):
        return fallback + (f".{suffix}" if dot else "")
    return clean


def visible(text: str) -> str:
    """Text for a person: each control or invisible character (whitespace aside) shown as
    <U+XXXX>, so a report or terminal shows what a name really holds and nothing in it can
    move the cursor or reverse the text. A card number is covered."""
    text = cover_text(text)
    if text.isascii() and not _ASCII_CONTROL.search(text):  # most text: one C-level scan
        return text
    shown = (_is_invisible(ch) and not ch.isspace() for ch in text)
    if not any(shown):
        return text
    return "".join(
        f"<U+{ord(ch):04X}>" if _is_invisible(ch) and not ch.isspace() else ch for ch in text
    )


def terminal(text: str) -> str:
    """Text for a terminal: line breaks and tabs kept, every other control or invisible
    character shown as <U+XXXX> (visible() keeps \r, \x85 and U+2028, which rewrite or split
    a line); an escape sequence is printed, never obeyed. Spaces, NBSP among them, stay. A
    card number is covered."""
    text = cover_text(text)
    if text.isascii() and text.isprintable():  # most lines: one C-level scan
        return text
    return "".join(
        f"<U+{ord(ch):04X}>" if _is_invisible(ch) and ch not in "\n\t" else ch for ch in text
    )


def readable(text: str) -> str:
    """Text that is valid Unicode: each byte a file name held that was not UTF-8 (Python keeps
    it as a lone surrogate, U+DC80-U+DCFF) written as <0xE9>, so the name can be stored,
    reported and shown, and still tells the analyst which byte it was. A card number in it
    is covered: a file's name is kept, uploaded and printed."""
    text = cover_text(text)
    if text.isascii():
        return text
    return (
        "".join(f"<0x{ord(ch) - 0xDC00:02X}>" if "\udc80" <= ch <= "\udcff" else ch for ch in text)
        .encode("utf-8", "replace")
        .decode("utf-8")
    )


def shortened(text: str, keep: int = 120) -> str:
    """Text of at most about `keep` characters: its start and its end, joined by '…'."""
    if len(text) <= keep:
        return text
    return text[: keep // 2] + "…" + text[-(keep // 2) :]


def label(path: Path, root: Path) -> str:
    """A file's path relative to `root`, as a report shows it (see readable)."""
    return readable(str(path.relative_to(root)))


def did_you_mean(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """' (did you mean 'x'?)' when one of `choices` is close to `word` (difflib's ratio, an
    edit-distance measure), else ''. Scans every choice: for short lists (keys, time zones);
    use `NearNames` for order numbers and dispute ids."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


# "INV2003", "#2003", "No. 2003", "Order #2003": a label in front of the number, not part of it
_LABEL = re.compile(
    r"^(?:(?:inv(?:oice)?|order|ord|no|nr|num(?:ber)?|ref|po)\.?[\s#:._-]*|#\s*)+(?=\d)"
)
# letters typed (or read by OCR) for the digits they look like: 2OO2, 1OO1, I00l, S005, B008
_LOOKALIKE = str.maketrans("oilsbz", "011582")


def likeness_key(name: str) -> str:
    """`name` as compared for "did you mean": lower case, a leading label (INV, #, No.)
    dropped and, in names with a digit, look-alike letters read as digits."""
    if name.isdigit():  # most order numbers: nothing to read differently
        return name
    key = _LABEL.sub("", name.strip().lower(), count=1)
    return key.translate(_LOOKALIKE) if any(ch.isdigit() for ch in key) else key


def _one_edit(word: str, alphabet: str) -> set[str]:
    """Every string one deletion, swap of neighbours, replacement or insertion from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {word}
    out.update(a + b[1:] for a, b in splits if b)
    out.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
    out.update(a + c + b[1:] for a, b in splits if b for c in alphabet)
    out.update(a + c + b for a, b in splits for c in alphabet)
    return out


def _ratio_one_edit(a: str, b: str) -> float:
    """difflib's ratio for two strings at most one edit apart, without running difflib."""
    if a == b:
        return 1.0
    same = min(len(a), len(b)) - (len(a) == len(b))  # characters in common
    return 2 * same / (len(a) + len(b))


class NearNames:
    """Suggestions ("did you mean") over many names, such as order numbers, from an index.

    Names are indexed by their `likeness_key`; a word's candidates are the names whose key
    is its own or one edit from it (looked up, so the cost does not grow with the number of
    names). The closest by difflib's ratio wins if it reaches `cutoff`; ties go to the
    larger name, as difflib's do. Built on the first question, so an unused one is free.
    """

    def __init__(self, names: Iterable[str], *, cutoff: float = 0.75) -> None:
        self._names = tuple(names)
        self._cutoff = cutoff
        self._by_key: dict[str, str] | None = None  # one name per key
        self._more: dict[str, list[str]] = {}  # the others sharing a key (rare)
        self._alphabet = ""

    def _index(self) -> dict[str, str]:
        if self._by_key is None:
            keys = [name if name.isdigit() else likeness_key(name) for name in self._names]
            self._by_key = by_key = dict(zip(keys, self._names, strict=True))
            if len(by_key) < len(keys):
                for key, name in zip(keys, self._names, strict=True):
                    if by_key[key] != name:
                        self._more.setdefault(key, []).append(name)
            by_key.pop("", None)
            self._alphabet = "".join(sorted(set("".join(by_key))))
        return self._by_key

    def closest(self, word: str) -> str | None:
        """The indexed name `word` most likely stands for, or None."""
        by_key, key = self._index(), likeness_key(word)
        if not key:
            return None
        best: tuple[float, float, str] | None = None
        for near in _one_edit(key, self._alphabet) & by_key.keys():
            score = _ratio_one_edit(key, near)
            if score < self._cutoff:
                continue
            names = (by_key[near], *self._more.get(near, ()))
            for name in names:
                # several alike (2OO2 / 2002, #77 / No. 77): the one closer as typed
                close = near == key or len(names) > 1
                typed = difflib.SequenceMatcher(None, word, name).ratio() if close else 0
                best = max(best or (score, typed, name), (score, typed, name))
        return best[2] if best else None

    def did_you_mean(self, word: str) -> str:
        """' (did you mean 'x'?)' when an indexed name is close to `word`, else ''."""
        close = self.closest(word)
        return f" (did you mean {close!r}?)" if close else ""
