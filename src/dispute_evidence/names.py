"""File names and inbox text made safe to send and to show.

An analyst's file name may hold control characters, line breaks or bidirectional marks
(U+202E turns `rtl\u202egnp.pdf` into what reads as `rtlpng.pdf`). They must not reach an
HTTP header, a terminal or a report as they are. Neutral module: imports nothing of ours.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from pathlib import Path

_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _is_invisible(ch: str) -> bool:
    return unicodedata.category(ch) in _INVISIBLE


def upload_name(name: str, fallback: str = "evidence") -> str:
    """The file name the API receives: invisible and control characters dropped, whitespace
    runs made one space, path separators and double quotes replaced; never empty."""
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
    move the cursor or reverse the text."""
    shown = (_is_invisible(ch) and not ch.isspace() for ch in text)
    if not any(shown):
        return text
    return "".join(
        f"<U+{ord(ch):04X}>" if _is_invisible(ch) and not ch.isspace() else ch for ch in text
    )


def readable(text: str) -> str:
    """Text that is valid Unicode: each byte a file name held that was not UTF-8 (Python keeps
    it as a lone surrogate, U+DC80-U+DCFF) written as <0xE9>, so the name can be stored,
    reported and shown, and still tells the analyst which byte it was."""
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
    edit-distance measure), else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""
